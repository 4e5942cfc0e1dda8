//! Numbers in a body as the objects path sees them. `JSON.parse` reads every number as a
//! double (`1e999` is Infinity, `1.0` is 1, `-0` is 0) and `JSON.stringify` writes it back
//! (a non-finite one as `null`), so `planBytes(body)` reads and counts what
//! `plan({ messages: JSON.parse(body) })` does.

use serde_json::Value;

use crate::parse::json_text;
use context_compaction_scan::{Kind, Node};

/// The value `JSON.parse` then `JSON.stringify` make of the number text `raw`, as
/// `serde_json` reads that text back.
pub(super) fn js_number(raw: &str) -> Value {
    // serde_json refuses only numbers beyond a double's range: Infinity in JavaScript.
    match json_text(raw) {
        Ok(Value::Number(n)) => js_double(n.as_f64()),
        _ => Value::Null,
    }
}

fn js_double(value: Option<f64>) -> Value {
    let Some(v) = value.filter(|v| v.is_finite()) else {
        return Value::Null;
    };
    // JavaScript writes whole numbers below 10^21 as digits (and -0 as 0), which serde_json
    // reads as an integer when one holds it.
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

/// Message JSON read as `JSON.parse` reads it: numbers out of a double's range are `null`
/// (`nodes` is the message's tape, offsets into the body at `start`), and every number is
/// the one JavaScript would write back.
pub(super) fn parse(text: &str, start: usize, nodes: &[Node]) -> serde_json::Result<Value> {
    let mut value = match json_text(text) {
        Ok(value) => value,
        Err(error) => json_text(&without_overflow(text, start, nodes).ok_or(error)?)?,
    };
    normalize(&mut value);
    Ok(value)
}

/// `text` with each number serde_json cannot hold written as `null`; `None` when there is
/// none (the error is another one).
fn without_overflow(text: &str, start: usize, nodes: &[Node]) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for node in nodes.iter().filter(|n| n.kind == Kind::Number) {
        let (from, to) = (node.start as usize - start, node.end as usize - start);
        let raw = text.get(from..to)?;
        if json_text(raw).is_ok() {
            continue;
        }
        out.push_str(text.get(copied..from)?);
        out.push_str("null");
        copied = to;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(text.get(copied..)?);
    Some(out)
}

fn normalize(value: &mut Value) {
    match value {
        Value::Number(n) => *value = js_double(n.as_f64()),
        Value::Array(items) => items.iter_mut().for_each(normalize),
        Value::Object(fields) => fields.values_mut().for_each(normalize),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_what_javascript_writes_back() {
        for (raw, js) in [
            ("1e999", "null"),
            ("-1e999", "null"),
            (&"9".repeat(400), "null"),
            ("1.0", "1"),
            ("1e2", "100"),
            ("-0", "0"),
            ("-0.0", "0"),
            ("1.5", "1.5"),
            ("-12", "-12"),
            ("1e21", "1e+21"),
            ("1e-7", "1e-7"),
        ] {
            assert_eq!(js_number(raw).to_string(), js, "{raw}");
        }
    }

    #[test]
    fn out_of_range_numbers_read_as_null() {
        let text = r#"{"a": 1e999, "b": [1.0, -0], "c": "1e999"}"#;
        let mut nodes = Vec::new();
        context_compaction_scan::value(text.as_bytes(), 0, &mut nodes).unwrap();
        let value = parse(text, 0, &nodes).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": null, "b": [1, 0], "c": "1e999"})
        );
    }
}
