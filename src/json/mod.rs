//! The crate's own JSON value: what a tool call's arguments and a tool's parameters hold, kept
//! as the compact JSON text `serde_json` would write of the value (one entry per key, numbers as
//! it writes them), read through the scanner's tape. A value is only carried, counted, written
//! into records and looked into for a path, so its text is all it needs to be.
//!
//! `read` words malformed text as `serde_json` does, `number` writes numbers back as
//! JavaScript or `serde_json` does, and `write` writes any value of a tape compactly.

mod number;
#[cfg(test)]
pub(crate) mod oracle;
mod read;
#[cfg(test)]
mod tests;
mod write;

use std::fmt;

use context_compaction_scan::{self as tape, Kind, Tape, Val};

pub(crate) use number::{js_number_text, serde_number_text};
pub(crate) use write::write;

/// A JSON value, held as compact JSON text: the text `serde_json` writes of the value it reads
/// (keys in order, one entry per key with its last value, numbers as it writes them).
/// Two values are equal when their texts are: objects with the same entries in another order
/// differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Json(String);

/// JSON text that cannot be read, worded as `serde_json` words it: what is wrong, and the line
/// and column where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError(String);

impl Json {
    /// `null`.
    pub fn null() -> Json {
        Json("null".to_owned())
    }

    /// `{}`.
    pub fn empty_object() -> Json {
        Json("{}".to_owned())
    }

    /// The JSON string of `text`.
    pub fn string(text: &str) -> Json {
        let mut out = String::with_capacity(text.len() + 2);
        out.push('"');
        tape::escape_into(text, &mut out);
        out.push('"');
        Json(out)
    }

    /// Reads JSON text, as `serde_json` reads it (whitespace around the value allowed, numbers
    /// beyond a double's range refused). A `\u` escape of a lone surrogate, which
    /// `JSON.stringify` writes and a Rust string cannot hold, is read as U+FFFD.
    pub fn parse(text: &str) -> Result<Json, JsonError> {
        let mut nodes = Vec::new();
        let end = tape::value(text.as_bytes(), 0, &mut nodes).ok();
        if end.map(|end| tape::skip_space(text.as_bytes(), end)) == Some(text.len()) {
            let mut out = String::new();
            if write(Tape::new(text, &nodes).root(), serde_number_text, &mut out).is_some() {
                return Ok(Json(out));
            }
        }
        let what = syntax_error(text).unwrap_or_else(|| "not one JSON value".to_owned());
        Err(JsonError(what))
    }

    /// Compact JSON text the crate wrote itself.
    pub(crate) fn written(text: String) -> Json {
        Json(text)
    }

    /// A value of a tape over compact JSON text as `serde_json` writes it (a [`Json`]'s own):
    /// its text as it stands.
    pub(crate) fn of_compact(value: Val) -> Json {
        let raw = value.raw();
        Json(match value.kind() {
            Kind::String => text!("\"", raw, "\""),
            _ => raw.to_owned(),
        })
    }

    /// The value as compact JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        self.0 == "null"
    }

    /// The string at `key` of an object; `None` when the value is not an object or the key is
    /// missing or not a string.
    pub fn get_str(&self, key: &str) -> Option<String> {
        let mut nodes = Vec::new();
        tape::value(self.0.as_bytes(), 0, &mut nodes).ok()?;
        let tape = Tape::new(&self.0, &nodes);
        let value = tape.root().get(key)?;
        Some(value.str()?.into_owned())
    }
}

impl Default for Json {
    /// `null`.
    fn default() -> Json {
        Json::null()
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl crate::text::Piece for Json {
    fn push_to(&self, text: &mut String) {
        text.push_str(&self.0);
    }
}

impl std::str::FromStr for Json {
    type Err = JsonError;

    fn from_str(text: &str) -> Result<Json, JsonError> {
        Json::parse(text)
    }
}

#[cfg(test)]
impl From<serde_json::Value> for Json {
    fn from(value: serde_json::Value) -> Json {
        Json(value.to_string())
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JsonError {}

impl crate::text::Piece for JsonError {
    fn push_to(&self, text: &mut String) {
        text.push_str(&self.0);
    }
}

/// What is wrong with JSON text `text`, as `serde_json` words it ("expected value at line 1
/// column 2"); `None` when it reads it whole (the scanner refuses only what it refuses).
pub(crate) fn syntax_error(text: &str) -> Option<String> {
    read::error(text)
}
