//! Values of a tape written back as compact JSON, byte for byte as `serde_json` writes the value
//! it reads of them (the records of tool-call arguments), without building that value; and the
//! rules both this and the in-place token count (`count.rs`) follow to get there; and JSON text
//! read as `JSON.stringify` writes it (`json_text`).

use std::borrow::Cow;

use context_compaction_scan::{
    self as tape, Kind, Node, Val, escape_into, rewritten_escape, unescape,
};
use serde_json::Value;

use super::numbers::{js_number, js_number_text, serde_number_text};
use crate::json_text::text_of;
use crate::search::find;

// Objects with more keys than this are left to serde_json (checking for repeats is quadratic).
pub(crate) const MAX_CHECKED_KEYS: usize = tape::MAX_CHECKED_KEYS;

/// Who reads the numbers of a value: `JSON.parse` for a message's own values (as a body's
/// bytes hold them; the walker and `JSON.stringify` write them as JavaScript does already),
/// `serde_json` for JSON held in a string (OpenAI's arguments text).
#[derive(Clone, Copy)]
pub(crate) enum Numbers {
    JavaScript,
    SerdeJson,
}

impl Numbers {
    /// The text of number `raw` written back; `None` when `serde_json` cannot hold it.
    pub(crate) fn text(self, raw: &str) -> Option<Cow<'_, str>> {
        match self {
            Numbers::JavaScript => Some(js_number_text(raw)),
            Numbers::SerdeJson => serde_number_text(raw),
        }
    }
}

/// A string as `serde_json` writes it back: its text as it stands, or its value to escape.
pub(crate) enum Quoted<'a> {
    /// Content to write between quotes as it is (the escapes in it are the ones serde_json
    /// writes itself).
    Raw(&'a str),
    /// A value to escape.
    Value(Cow<'a, str>),
}

/// How the string `value` is written back as JSON.
pub(crate) fn quoted(value: Val) -> Quoted {
    let raw = value.raw();
    if value.verbatim() {
        return Quoted::Value(Cow::Borrowed(raw));
    }
    if value.escaped() && rewritten_escape(raw.as_bytes()) {
        return Quoted::Value(Cow::Owned(unescape(raw)));
    }
    Quoted::Raw(raw)
}

/// Whether one of the first `entries` keys of `object` is `key`.
pub(crate) fn repeated(object: Val, entries: usize, key: &str) -> bool {
    object
        .children()
        .step_by(2)
        .take(entries)
        .any(|k| k.str().is_some_and(|k| k == key))
}

/// Appends a message's own value (`null` when missing) as compact JSON, its numbers read as
/// `JSON.parse` reads them.
pub(crate) fn write_value(value: Option<Val>, out: &mut String) {
    let Some(value) = value else {
        out.push_str("null");
        return;
    };
    let start = out.len();
    if write(value, Numbers::JavaScript, out).is_none() {
        // A repeated key (or too many to check): serde_json keeps one entry per key.
        out.truncate(start);
        out.push_str(&text_of(&to_value(Some(value))));
    }
}

/// Appends the value JSON `text` holds (OpenAI's arguments text) as compact JSON, or `text` as
/// a JSON string when it is not JSON; `nodes` is scratch space.
pub(crate) fn write_text(text: &str, nodes: &mut Vec<Node>, out: &mut String) {
    let start = out.len();
    let end = tape::value(text.as_bytes(), 0, nodes).ok();
    if end == Some(text.len()) && write(Val::root(text, nodes), Numbers::SerdeJson, out).is_some() {
        return;
    }
    out.truncate(start);
    match json_text(text) {
        Ok(value) => out.push_str(&text_of(&value)),
        Err(_) => {
            out.push('"');
            escape_into(text, out);
            out.push('"');
        }
    }
}

/// Appends `value` as compact JSON (see [`tape::write_json`], in the crate compiled for speed);
/// `None` (with part of it written) when serde_json would write it differently in a way not
/// known without building it: a repeated key, an object too large to check, a number it cannot
/// hold.
fn write(value: Val, numbers: Numbers, out: &mut String) -> Option<()> {
    let number: tape::NumberText = match numbers {
        Numbers::JavaScript => |raw| Some(js_number_text(raw)),
        Numbers::SerdeJson => serde_number_text,
    };
    tape::write_json(value, number, out)
}

/// A value of a tape as a `serde_json` value (`null` when missing), for the places that keep
/// one (tool-call arguments in records). Built from the nodes, so it works on any tape; a
/// repeated key keeps its first place and its last value, as `serde_json` reads it.
pub(crate) fn to_value(value: Option<Val>) -> Value {
    let Some(value) = value else {
        return Value::Null;
    };
    match value.kind() {
        Kind::Null => Value::Null,
        Kind::Bool => Value::Bool(value.raw() == "true"),
        Kind::Number => js_number(value.raw()),
        Kind::String => Value::String(value.str().unwrap_or_default().into_owned()),
        Kind::Array => Value::Array(value.children().map(|v| to_value(Some(v))).collect()),
        Kind::Object => {
            let mut object = serde_json::Map::new();
            let mut children = value.children();
            while let (Some(key), Some(item)) = (children.next(), children.next()) {
                let key = key.str().unwrap_or_default().into_owned();
                object.insert(key, to_value(Some(item)));
            }
            Value::Object(object)
        }
    }
}

/// Parses JSON text as `JSON.stringify` writes it. Lone surrogates, which it escapes and
/// Rust strings cannot hold, become U+FFFD instead of failing the whole value.
pub fn json_text(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str(text) {
        Err(_) if find(text, "\\ud").is_some() || find(text, "\\uD").is_some() => {
            serde_json::from_str(&replace_lone_surrogates(text))
        }
        parsed => parsed,
    }
}

/// Replaces `\uD800`–`\uDFFF` escapes that are not part of a valid pair with `\uFFFD`.
/// In JSON text a backslash only ever starts an escape, so escapes are walked one by one.
fn replace_lone_surrogates(text: &str) -> String {
    let unit_at = |i: usize| -> Option<u16> {
        let escape = text.get(i..i + 6)?;
        escape
            .strip_prefix("\\u")
            .and_then(|hex| u16::from_str_radix(hex, 16).ok())
    };
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while let Some(at) = text
        .get(i..)
        .and_then(|rest| rest.find('\\'))
        .map(|k| i + k)
    {
        let width = match (unit_at(at), unit_at(at + 6)) {
            (Some(0xD800..=0xDBFF), Some(0xDC00..=0xDFFF)) => 12,
            (Some(0xD800..=0xDFFF), _) => {
                out.push_str(text.get(copied..at).unwrap_or(""));
                out.push_str("\\ufffd");
                copied = at + 6;
                6
            }
            (Some(_), _) => 6,
            (None, _) => 2,
        };
        i = at + width;
    }
    out.push_str(text.get(copied..).unwrap_or(""));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compact(text: &str) -> String {
        let mut nodes = Vec::new();
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        let mut out = String::new();
        write_value(Some(Val::root(text, &nodes)), &mut out);
        out
    }

    fn arguments(text: &str) -> String {
        let mut out = String::new();
        write_text(text, &mut Vec::new(), &mut out);
        out
    }

    #[test]
    fn writes_what_serde_json_writes_of_the_value() {
        for text in [
            r#"{"path": "src/main.rs", "limit": 200, "flags": [true, false, null]}"#,
            r#"{"command":"ls -la\n  cd /tmp && echo \"hi\"\t\u0001", "n": -12}"#,
            r#"{"s": "caf\u00e9 \/ \u0001 \ud83d\ude00 \ud800"}"#,
            r#"[[], {}, "", [1, [2, {"a": {"b": "c"}}]]]"#,
            r#"{"a": 1, "b": 2, "a": 3}"#,
            "\"just a string with   spaces\"",
            "null",
        ] {
            let value = json_text(text).unwrap();
            assert_eq!(compact(text), to_value_of(text).to_string(), "{text}");
            assert_eq!(arguments(text), value.to_string(), "{text}");
        }
    }

    fn to_value_of(text: &str) -> serde_json::Value {
        let mut nodes = Vec::new();
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        to_value(Some(Val::root(text, &nodes)))
    }

    #[test]
    fn numbers_are_read_as_javascript_reads_them_except_in_json_text() {
        let text = r#"{"x": 1.50, "y": 1e2, "z": -0, "w": 12345678901234567890, "v": 1e999}"#;
        assert_eq!(compact(text), to_value_of(text).to_string());
        assert!(compact(text).starts_with(r#"{"x":1.5,"y":100,"z":0,"#));
        assert!(compact(text).ends_with(r#","v":null}"#));
        let serde = r#"{"x": 1.50, "y": 1e2, "z": -0, "w": 12345678901234567890}"#;
        let value = json_text(serde).unwrap();
        assert_eq!(arguments(serde), value.to_string());
    }

    #[test]
    fn arguments_that_are_not_json_are_a_string() {
        for text in ["{\"a\": 1e999}", "not json", "{\"a\":1} ", "", "\u{1}\"x"] {
            let expected =
                json_text(text).unwrap_or_else(|_| serde_json::Value::String(text.to_owned()));
            assert_eq!(arguments(text), expected.to_string(), "{text:?}");
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let parsed = json_text(r#"["a\ud800b", "\ud83d\ude00", "\\ud800", "\udc00"]"#).unwrap();
        assert_eq!(
            parsed,
            serde_json::json!(["a\u{fffd}b", "😀", "\\ud800", "\u{fffd}"])
        );
        assert!(json_text("[1,").is_err());
    }
}
