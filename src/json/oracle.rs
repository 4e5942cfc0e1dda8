//! The reference the crate's JSON is checked against in tests: `serde_json` itself (a
//! dev-dependency), as the crate used it before it had a reader of its own.

use context_compaction_scan::{Kind, Val};
use serde_json::Value;

/// What `serde_json` reads of JSON text as `JSON.stringify` writes it: lone surrogates, which it
/// escapes and `serde_json` refuses, read as U+FFFD.
pub(crate) fn serde_value(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str(text) {
        Err(_) if text.contains("\\ud") || text.contains("\\uD") => {
            serde_json::from_str(&replace_lone_surrogates(text))
        }
        parsed => parsed,
    }
}

/// Replaces `\uD800`–`\uDFFF` escapes that are not part of a valid pair with `\uFFFD`.
pub(crate) fn replace_lone_surrogates(text: &str) -> String {
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

/// A message's own value as a `serde_json` value: its numbers as `JSON.parse` reads them and
/// `JSON.stringify` writes them, read back by `serde_json`.
pub(crate) fn js_value(value: Val) -> Value {
    match value.kind() {
        Kind::Null => Value::Null,
        Kind::Bool => Value::Bool(value.raw() == "true"),
        Kind::Number => js_number(value.raw()),
        Kind::String => Value::String(value.str().unwrap_or_default().into_owned()),
        Kind::Array => Value::Array(value.children().map(js_value).collect()),
        Kind::Object => {
            let mut object = serde_json::Map::new();
            let mut children = value.children();
            while let (Some(key), Some(item)) = (children.next(), children.next()) {
                let key = key.str().unwrap_or_default().into_owned();
                object.insert(key, js_value(item));
            }
            Value::Object(object)
        }
    }
}

/// The value `JSON.parse` then `JSON.stringify` make of the number text `raw`, as `serde_json`
/// reads that text back.
pub(crate) fn js_number(raw: &str) -> Value {
    let Ok(Value::Number(n)) = serde_json::from_str(raw) else {
        return Value::Null;
    };
    let Some(v) = n.as_f64().filter(|v| v.is_finite()) else {
        return Value::Null;
    };
    if v.fract() == 0.0 && v.abs() < 1e21 {
        if v == 0.0 {
            return Value::from(0u64);
        }
        if (0.0..18_446_744_073_709_551_616.0).contains(&v) {
            return Value::from(v as u64);
        }
        if (-9_223_372_036_854_775_808.0..0.0).contains(&v) {
            return Value::from(v as i64);
        }
    }
    Value::from(v)
}
