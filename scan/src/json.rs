//! Values of a tape written back as compact JSON, byte for byte as `serde_json` writes the value
//! it reads of them, without building that value: here, compiled for speed, as every argument
//! of every tool call a summary's records show goes through it.

use std::borrow::Cow;

use crate::{Kind, Val, escape_into, rewritten_escape, unescape};

/// Objects with more keys than this are not written (checking for repeats is quadratic).
pub const MAX_CHECKED_KEYS: usize = 32;

/// The text a number's raw text is written back as; `None` when it cannot be.
pub type NumberText = fn(&str) -> Option<Cow<'_, str>>;

/// Appends `value` as compact JSON, numbers through `number`; `None` (with part of it written)
/// when `serde_json` would write it differently in a way not known without building it: a
/// repeated key, an object of more than [`MAX_CHECKED_KEYS`] keys, a number `number` refuses.
pub fn write_json(value: Val, number: NumberText, out: &mut String) -> Option<()> {
    match value.kind() {
        Kind::Null => out.push_str("null"),
        Kind::Bool => out.push_str(if value.raw() == "true" {
            "true"
        } else {
            "false"
        }),
        Kind::Number => out.push_str(&number(value.raw())?),
        Kind::String => write_string(value, out),
        Kind::Array => {
            out.push('[');
            for (i, item) in value.children().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, number, out)?;
            }
            out.push(']');
        }
        Kind::Object => {
            out.push('{');
            let mut children = value.children();
            let mut entries = 0;
            while let (Some(key), Some(item)) = (children.next(), children.next()) {
                if entries >= MAX_CHECKED_KEYS || repeated(value, entries, &key.str()?) {
                    return None;
                }
                if entries > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_json(item, number, out)?;
                entries += 1;
            }
            out.push('}');
        }
    }
    Some(())
}

/// Whether one of the first `entries` keys of `object` is `key`.
fn repeated(object: Val, entries: usize, key: &str) -> bool {
    object
        .children()
        .step_by(2)
        .take(entries)
        .any(|k| k.str().is_some_and(|k| k == key))
}

/// A string between quotes: its text as it stands when its escapes are the ones `serde_json`
/// writes itself, its value escaped otherwise.
fn write_string(value: Val, out: &mut String) {
    out.push('"');
    let raw = value.raw();
    if value.verbatim() {
        escape_into(raw, out);
    } else if value.escaped() && rewritten_escape(raw.as_bytes()) {
        escape_into(&unescape(raw), out);
    } else {
        out.push_str(raw);
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Node, Tape};

    fn number(raw: &str) -> Option<Cow<'_, str>> {
        (raw != "1e999").then_some(Cow::Borrowed(raw))
    }

    fn written(json: &str) -> Option<String> {
        let mut nodes: Vec<Node> = Vec::new();
        crate::value(json.as_bytes(), 0, &mut nodes).ok()?;
        let mut out = String::new();
        write_json(Tape::new(json, &nodes).root(), number, &mut out)?;
        Some(out)
    }

    #[test]
    fn writes_compact_json_as_serde_json_does() {
        for json in [
            // Keys in order: this crate's serde_json sorts them.
            r#"{ "n" : [1, -2, 3.5, true, null], "o": {}, "path" : "a\u0062c" }"#,
            r#"["quote \" and \/ slash", "tab\t", "\u00e9t\u00e9 \ud83d\ude00", []]"#,
            r#"{"oldText":"\tif (x) {\n\t\treturn \"y\";\n\t}\u0001"}"#,
        ] {
            let expected = serde_json::from_str::<serde_json::Value>(json)
                .unwrap()
                .to_string();
            assert_eq!(written(json).as_deref(), Some(expected.as_str()), "{json}");
        }
    }

    #[test]
    fn refuses_what_serde_json_would_write_otherwise() {
        // A repeated key (serde_json keeps one entry), too many keys to check, a number the
        // caller cannot write back.
        let many: Vec<String> = (0..=MAX_CHECKED_KEYS)
            .map(|i| format!("\"k{i}\":0"))
            .collect();
        for json in [
            r#"{"a":1,"b":2,"a":3}"#.to_owned(),
            format!("{{{}}}", many.join(",")),
            "[1e999]".to_owned(),
        ] {
            assert_eq!(written(&json), None, "{json}");
        }
    }
}
