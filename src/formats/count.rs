//! Heuristic token counts of scanned values, without building strings where it can be helped.

use super::json::{MAX_CHECKED_KEYS, Numbers, Quoted, quoted, repeated};
use crate::token::score;
use context_compaction_scan::{Kind, Val, score_quoted};

// A pair of quotes or brackets.
pub(crate) const PAIR: u64 = 2 * PUNCTUATION;
// What the heuristic scores each JSON punctuation byte (`{`, `"`, `:`, …).
pub(crate) const PUNCTUATION: u64 = 40;

/// The heuristic score of the value JSON `text` holds, written as compact JSON (as
/// `serde_json` writes the value it parses); `None` when `text` is not JSON.
pub(crate) fn json_score(text: &str) -> Option<u64> {
    let mut nodes = Vec::new();
    let end = context_compaction_scan::value(text.as_bytes(), 0, &mut nodes).ok();
    if end == Some(text.len())
        && let Some(score) = score_as(Val::root(text, &nodes), Numbers::SerdeJson)
    {
        return Some(score);
    }
    let value = super::json::json_text(text).ok()?;
    Some(score(value.to_string().as_bytes()))
}

/// The heuristic score of tool-call arguments given as JSON text, as the readers read them: the
/// value the text holds, or the text itself as a string when it is not JSON.
pub(crate) fn arguments_text_score(text: &str) -> u64 {
    json_score(text).unwrap_or_else(|| quoted_score(text.as_bytes()))
}

/// The heuristic score of `text` written as a JSON string (quoted, escaped as `serde_json`
/// escapes it); `serde_json` writes it when that is not known without writing it.
pub(crate) fn quoted_score(text: &[u8]) -> u64 {
    if let Some(score) = score_quoted(text) {
        return score;
    }
    let written = std::str::from_utf8(text)
        .ok()
        .and_then(|text| serde_json::to_string(text).ok());
    score(written.unwrap_or_default().as_bytes())
}

/// The heuristic score of `value`, a message's own value, as compact JSON. Its numbers are
/// those `JSON.parse` reads (`1e2` is 100, `1e999` is null), so `planBytes(body)` counts what
/// `plan({ messages: JSON.parse(body) })` does.
pub(crate) fn compact_score(value: Val) -> Option<u64> {
    score_as(value, Numbers::JavaScript)
}

/// The heuristic score of `value` as compact JSON: the sum over its pieces, because every piece
/// is delimited by JSON punctuation.
fn score_as(value: Val, numbers: Numbers) -> Option<u64> {
    Some(match value.kind() {
        Kind::Null | Kind::Bool => score(value.raw().as_bytes()),
        Kind::Number => score(numbers.text(value.raw())?.as_bytes()),
        Kind::String => string_score(value),
        Kind::Array => {
            let mut total = PAIR;
            for (i, item) in value.children().enumerate() {
                total += score_as(item, numbers)? + if i > 0 { PUNCTUATION } else { 0 };
            }
            total
        }
        Kind::Object => {
            let mut total = PAIR;
            let mut children = value.children();
            let mut entries = 0;
            while let (Some(key), Some(item)) = (children.next(), children.next()) {
                // A colon, and a comma before every entry but the first.
                total += PUNCTUATION + if entries == 0 { 0 } else { PUNCTUATION };
                total += string_score(key) + score_as(item, numbers)?;
                // serde_json keeps one entry per key; repeats (and objects too large to check
                // cheaply) are counted by serde_json itself. The keys before are read again
                // rather than kept: most arguments have a few, and a list would allocate.
                if entries >= MAX_CHECKED_KEYS || repeated(value, entries, &key.str()?) {
                    return None;
                }
                entries += 1;
            }
            total
        }
    })
}

/// A string as `serde_json` writes it: escapes it writes itself are scored as they stand.
fn string_score(value: Val) -> u64 {
    match quoted(value) {
        Quoted::Raw(raw) => PAIR + score(raw.as_bytes()),
        Quoted::Value(text) => quoted_score(text.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::Heuristic;
    use context_compaction_scan as tape;

    fn compact(text: &str) -> Option<u64> {
        let mut nodes = Vec::new();
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        compact_score(Val::root(text, &nodes)).map(crate::token::rounded)
    }

    #[test]
    fn compact_counts_equal_counting_serde_json_output() {
        let h = Heuristic::new();
        for text in [
            r#"{"path": "src/main.rs", "limit": 200, "flags": [true, false, null]}"#,
            r#"{"command":"ls -la\n  cd /tmp && echo \"hi\"", "n": -12}"#,
            r#"{"x": 1.5, "y": 100, "z": 0, "w": 12345678901234567890}"#,
            r#"{"s": "caf\u00e9 \/ \u0001 \ud83d\ude00"}"#,
            r#"[[], {}, "", [1, [2, {"a": {"b": "c"}}]]]"#,
            "\"just a string with   spaces\"",
            "null",
        ] {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(compact(text), Some(h.count(&value.to_string())), "{text}");
        }
    }

    #[test]
    fn numbers_are_read_as_javascript_reads_them_except_in_json_text() {
        let h = Heuristic::new();
        assert_eq!(compact(r#"{"n": 1e999}"#), compact(r#"{"n": null}"#));
        assert_eq!(
            compact(r#"{"n": 1e2, "m": -0}"#),
            compact(r#"{"n": 100, "m": 0}"#)
        );
        // Arguments text is read by serde_json, as the general reader reads it.
        let text = r#"{"x": 1.50, "y": 1e2, "z": -0}"#;
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            json_score(text).map(crate::token::rounded),
            Some(h.count(&value.to_string()))
        );
    }

    #[test]
    fn repeated_keys_are_left_to_serde_json() {
        assert_eq!(compact(r#"{"a": 1, "b": 2, "a": 3}"#), None);
    }
}
