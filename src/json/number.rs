//! The text a number is written back as. A message's own numbers are read as `JSON.parse` reads
//! them: every number is a double (`1e999` is Infinity, `1.0` is 1, `-0` is 0) that
//! `JSON.stringify` writes back (a non-finite one as `null`), so `planBytes(body)` reads and
//! counts what `plan({ messages: JSON.parse(body) })` does. (The walker and `JSON.stringify`
//! write numbers as JavaScript does already; reading them again here changes nothing.) Numbers
//! in JSON held in a string (OpenAI's arguments text) are read and written as `serde_json`
//! reads and writes them, as they always were: integers as integers, anything else as a double
//! (`1.50` → `1.5`, `1e2` → `100.0`).

use std::borrow::Cow;

use super::read::{Number, number};

/// The text JavaScript writes back for the number text `raw` of a message's own value:
/// integers of up to 15 digits as they stand.
pub(crate) fn js_number_text(raw: &str) -> Cow<'_, str> {
    // Integers of up to 15 digits are doubles written back as they are.
    if plain(raw, 15) {
        return Cow::Borrowed(raw);
    }
    // serde_json refuses only numbers beyond a double's range: Infinity in JavaScript.
    let Some(v) = number(raw).map(Number::as_f64).filter(|v| v.is_finite()) else {
        return Cow::Borrowed("null");
    };
    // JavaScript writes whole numbers below 10^21 as digits (and -0 as 0), which serde_json
    // read back as an integer when one held it.
    if v.fract() == 0.0 && v.abs() < 1e21 {
        if v == 0.0 {
            return Cow::Borrowed("0");
        }
        if (0.0..18_446_744_073_709_551_616.0).contains(&v) {
            return Cow::Owned(text!(v as u64));
        }
        if (-9_223_372_036_854_775_808.0..0.0).contains(&v) {
            return Cow::Owned(text!(v as i64));
        }
    }
    Cow::Owned(float_text(v))
}

/// The text `serde_json` writes back for the number text `raw` it reads (in JSON held in a
/// string): short integers as they stand; `None` when it cannot hold it.
pub(crate) fn serde_number_text(raw: &str) -> Option<Cow<'_, str>> {
    if plain(raw, 18) {
        return Some(Cow::Borrowed(raw));
    }
    Some(Cow::Owned(match number(raw)? {
        Number::U64(n) => text!(n),
        Number::I64(n) => text!(n),
        Number::F64(v) => float_text(v),
    }))
}

/// Whether `raw` is an integer of at most `digits` digits that is not `-0…`.
fn plain(raw: &str, digits: usize) -> bool {
    let rest = raw.strip_prefix('-').unwrap_or(raw);
    rest.len() <= digits && rest.bytes().all(|b| b.is_ascii_digit()) && !raw.starts_with("-0")
}

/// A double as `serde_json` writes it (the shortest text that reads back as it, by `zmij`,
/// the writer `serde_json` uses); `null` when not finite.
fn float_text(v: f64) -> String {
    if !v.is_finite() {
        return "null".to_owned();
    }
    zmij::Buffer::new().format_finite(v).to_owned()
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
            ("12345678901234567890", "12345678901234567168"),
        ] {
            assert_eq!(js_number_text(raw), js, "{raw}");
        }
    }

    #[test]
    fn json_text_numbers_are_what_serde_json_writes_back() {
        for (raw, serde) in [
            ("1.50", Some("1.5")),
            ("1e2", Some("100.0")),
            ("-0", Some("-0.0")),
            ("123456789012345678", Some("123456789012345678")),
            ("-9223372036854775808", Some("-9223372036854775808")),
            ("-9223372036854775809", Some("-9.223372036854776e+18")),
            ("18446744073709551616", Some("1.8446744073709552e+19")),
            ("1e999", None),
            ("0e999999999999", Some("0.0")),
        ] {
            assert_eq!(serde_number_text(raw).as_deref(), serde, "{raw}");
        }
    }
}
