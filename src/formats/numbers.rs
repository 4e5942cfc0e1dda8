//! Numbers of a message's own values as the objects path sees them. `JSON.parse` reads every
//! number as a double (`1e999` is Infinity, `1.0` is 1, `-0` is 0) and `JSON.stringify` writes
//! it back (a non-finite one as `null`), so `planBytes(body)` reads and counts what
//! `plan({ messages: JSON.parse(body) })` does. (The walker and `JSON.stringify` write numbers
//! as JavaScript does already; reading them again here changes nothing.)

use std::borrow::Cow;

use serde_json::Value;

/// The text JavaScript writes back for the number text `raw` of a message's own value (what
/// [`js_number`] writes): integers of up to 15 digits as they stand.
pub(crate) fn js_number_text(raw: &str) -> Cow<'_, str> {
    // Integers of up to 15 digits are doubles written back as they are.
    if plain(raw, 15) {
        return Cow::Borrowed(raw);
    }
    Cow::Owned(crate::json_text::text_of(&js_number(raw)))
}

/// The text `serde_json` writes back for the number text `raw` it reads (in JSON held in a
/// string): short integers as they stand, anything else through `serde_json` (`1.50` → `1.5`,
/// `1e2` → `100.0`); `None` when it cannot hold it.
pub(crate) fn serde_number_text(raw: &str) -> Option<Cow<'_, str>> {
    if plain(raw, 18) {
        return Some(Cow::Borrowed(raw));
    }
    Some(Cow::Owned(crate::json_text::text_of(
        &serde_json::from_str::<Value>(raw).ok()?,
    )))
}

/// Whether `raw` is an integer of at most `digits` digits that is not `-0…`.
fn plain(raw: &str, digits: usize) -> bool {
    let rest = raw.strip_prefix('-').unwrap_or(raw);
    rest.len() <= digits && rest.bytes().all(|b| b.is_ascii_digit()) && !raw.starts_with("-0")
}

/// The value `JSON.parse` then `JSON.stringify` make of the number text `raw`, as
/// `serde_json` reads that text back.
pub(crate) fn js_number(raw: &str) -> Value {
    // serde_json refuses only numbers beyond a double's range: Infinity in JavaScript.
    match serde_json::from_str(raw) {
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
            ("1e+21", "1e+21"),
            ("1e-7", "1e-7"),
        ] {
            assert_eq!(js_number(raw).to_string(), js, "{raw}");
        }
    }
}
