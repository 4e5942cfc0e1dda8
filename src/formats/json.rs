//! Values of a tape written back as compact JSON, byte for byte as `serde_json` writes the value
//! it reads of them (the records of tool-call arguments), without building that value; and the
//! rules both this and the in-place token count (`count.rs`) follow to get there.

use std::borrow::Cow;

use context_compaction_scan::{
    self as tape, Node, Tape, Val, escape_into, rewritten_escape, unescape,
};

use crate::json::{Json, js_number_text, serde_number_text, write};

// Objects with more keys than this are written the general way (checking for repeats is
// quadratic).
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

/// Whether one of the first `entries` keys of `object` is `key` (`None` when `key` is not a
/// string).
pub(crate) fn repeated(object: Val, entries: usize, key: Val) -> Option<bool> {
    // A key laid out as its value is one of a JavaScript object's own keys (the package's
    // walker): none repeats.
    if key.verbatim() {
        return Some(false);
    }
    let key = key.str()?;
    Some(
        object
            .children()
            .step_by(2)
            .take(entries)
            .any(|k| k.str().is_some_and(|k| k == key)),
    )
}

/// Appends a message's own value (`null` when missing) as compact JSON, its numbers read as
/// `JSON.parse` reads them.
pub(crate) fn write_value(value: Option<Val>, out: &mut String) {
    match value {
        // Every number is written (JavaScript's `null` for what it cannot hold).
        Some(value) => _ = write(value, |raw| Some(js_number_text(raw)), out),
        None => out.push_str("null"),
    }
}

/// A message's own value (`null` when missing) as a [`Json`], its numbers read as `JSON.parse`
/// reads them.
pub(crate) fn value_json(value: Option<Val>) -> Json {
    let mut out = String::new();
    write_value(value, &mut out);
    Json::written(out)
}

/// Appends the value JSON `text` holds (OpenAI's arguments text) as compact JSON, or `text` as
/// a JSON string when it is not JSON; `nodes` is scratch space.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code)
)]
pub(crate) fn write_text(text: &str, nodes: &mut Vec<Node>, out: &mut String) {
    let start = out.len();
    let end = tape::value(text.as_bytes(), 0, nodes).ok();
    if end.map(|end| tape::skip_space(text.as_bytes(), end)) == Some(text.len())
        && write(Tape::new(text, nodes).root(), serde_number_text, out).is_some()
    {
        return;
    }
    out.truncate(start);
    out.push('"');
    escape_into(text, out);
    out.push('"');
}

/// The value JSON `text` holds (tool-call arguments given as text), or `text` as a JSON string
/// when it is not JSON.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code)
)]
pub(crate) fn text_json(text: &str) -> Json {
    Json::parse(text).unwrap_or_else(|_| Json::string(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::oracle::{js_value, serde_value};

    fn compact(text: &str) -> String {
        let mut nodes = Vec::new();
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        let mut out = String::new();
        write_value(Some(Tape::new(text, &nodes).root()), &mut out);
        out
    }

    fn arguments(text: &str) -> String {
        let mut out = String::new();
        write_text(text, &mut Vec::new(), &mut out);
        assert_eq!(text_json(text).as_str(), out);
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
            r#"{"a": {"x": 1, "x": [2]}, "b": 2, "a\u0000": 3, "a": {"y": 1e2}}"#,
            "\"just a string with   spaces\"",
            "null",
        ] {
            let value = serde_value(text).unwrap();
            assert_eq!(compact(text), to_value_of(text).to_string(), "{text}");
            assert_eq!(arguments(text), value.to_string(), "{text}");
        }
    }

    #[test]
    fn objects_of_many_keys_are_written_whole() {
        let keys: Vec<String> = (0..100).map(|i| format!("\"k{}\": {i}", i % 70)).collect();
        let text = format!("{{{}}}", keys.join(", "));
        assert_eq!(compact(&text), to_value_of(&text).to_string());
        assert_eq!(arguments(&text), serde_value(&text).unwrap().to_string());
    }

    fn to_value_of(text: &str) -> serde_json::Value {
        let mut nodes = Vec::new();
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        js_value(Tape::new(text, &nodes).root())
    }

    #[test]
    fn numbers_are_read_as_javascript_reads_them_except_in_json_text() {
        let text = r#"{"x": 1.50, "y": 1e2, "z": -0, "w": 12345678901234567890, "v": 1e999}"#;
        assert_eq!(compact(text), to_value_of(text).to_string());
        assert!(compact(text).starts_with(r#"{"x":1.5,"y":100,"z":0,"#));
        assert!(compact(text).ends_with(r#","v":null}"#));
        let serde = r#"{"x": 1.50, "y": 1e2, "z": -0, "w": 12345678901234567890}"#;
        let value = serde_value(serde).unwrap();
        assert_eq!(arguments(serde), value.to_string());
    }

    #[test]
    fn arguments_that_are_not_json_are_a_string() {
        for text in ["{\"a\": 1e999}", "not json", "{\"a\":1} ", "", "\u{1}\"x"] {
            let expected =
                serde_value(text).unwrap_or_else(|_| serde_json::Value::String(text.to_owned()));
            assert_eq!(arguments(text), expected.to_string(), "{text:?}");
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let text = r#"["a\ud800b", "\ud83d\ude00", "\\ud800", "\udc00"]"#;
        let expected = serde_json::json!(["a\u{fffd}b", "😀", "\\ud800", "\u{fffd}"]);
        assert_eq!(serde_value(text).unwrap(), expected);
        assert_eq!(Json::parse(text).unwrap().as_str(), expected.to_string());
        assert!(Json::parse("[1,").is_err());
    }
}
