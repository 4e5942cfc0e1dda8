//! Heuristic token counts of scanned values, without building strings where it can be helped.

use super::json::{MAX_CHECKED_KEYS, Numbers, Quoted, quoted, repeated};
use crate::token::score;
use context_compaction_scan::{Kind, Tape, Val, score_held_json, score_quoted};

// A pair of quotes or brackets.
pub(crate) const PAIR: u64 = 2 * PUNCTUATION;
// What the heuristic scores each JSON punctuation byte (`{`, `"`, `:`, …).
pub(crate) const PUNCTUATION: u64 = 40;

/// The heuristic score of the value JSON `text` holds, written as compact JSON (as
/// `serde_json` writes the value it parses); `None` when `text` is not JSON.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code)
)]
pub(crate) fn json_score(text: &str) -> Option<u64> {
    let mut nodes = Vec::new();
    let end = context_compaction_scan::value(text.as_bytes(), 0, &mut nodes).ok();
    if end == Some(text.len())
        && let Some(score) = score_as(Tape::new(text, &nodes).root(), Numbers::SerdeJson)
    {
        return Some(score);
    }
    let value = crate::json::Json::parse(text).ok()?;
    Some(score(value.as_str().as_bytes()))
}

/// The heuristic score of tool-call arguments given as JSON text, as the readers read them: the
/// value the text holds, or the text itself as a string when it is not JSON.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code)
)]
pub(crate) fn arguments_text_score(text: &str) -> u64 {
    json_score(text).unwrap_or_else(|| quoted_score(text.as_bytes()))
}

/// [`arguments_text_score`] of the JSON text the string `value` holds (empty when missing),
/// read from the string's escaped text when that tells it (the held text is written as
/// `serde_json` writes it, see [`score_held_json`]), else from the text unescaped.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code)
)]
pub(crate) fn held_arguments_score(value: Option<Val>) -> u64 {
    if let Some(value) = value
        && value.escaped()
        && !value.verbatim()
        && let Some(score) = score_held_json(value.raw().as_bytes())
    {
        return score;
    }
    arguments_text_score(&super::sink::held_text(value))
}

/// The heuristic score of `text` written as a JSON string (quoted, escaped as `serde_json`
/// escapes it); written out when that is not known without writing it.
pub(crate) fn quoted_score(text: &[u8]) -> u64 {
    if let Some(score) = score_quoted(text) {
        return score;
    }
    let written = std::str::from_utf8(text)
        .map_or_else(|_| crate::json::Json::null(), crate::json::Json::string);
    score(written.as_str().as_bytes())
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
                // cheaply) are written out the general way and counted. The keys before are read again
                // rather than kept: most arguments have a few, and a list would allocate.
                if entries >= MAX_CHECKED_KEYS || repeated(value, entries, key)? {
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
        compact_score(Tape::new(text, &nodes).root()).map(crate::token::rounded)
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
    fn repeated_keys_are_left_to_the_general_writer() {
        assert_eq!(compact(r#"{"a": 1, "b": 2, "a": 3}"#), None);
    }

    /// JSON text from pieces: numbers as `serde_json` may write them otherwise, strings with
    /// every kind of escape, keys that repeat, and whitespace or none between the pieces.
    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let space = prop_oneof![40 => Just(""), 1 => Just(" "), 1 => Just("\n  "), 1 => Just("\t")];
        // Escapes of every kind: `serde_json` writes the first eight as they stand.
        let escapes = vec![
            r"\n",
            r"\t",
            r#"\""#,
            r"\\",
            "/",
            r"\r\b\f",
            "é日本😀",
            " 12 345",
            r"\/",
            r"\u00e9",
            r"\ud83d\ude00",
            r"\ud800",
        ];
        let piece = prop_oneof![
            3 => "[a-zA-Z ]{1,12}",
            2 => prop::sample::select(escapes[..8].to_vec()).prop_map(str::to_owned),
            1 => prop::sample::select(escapes).prop_map(str::to_owned),
        ];
        let string = prop::collection::vec(piece, 0..6).prop_map(|p| format!("\"{}\"", p.concat()));
        let number = prop_oneof![
            8 => "-?[1-9][0-9]{0,5}",
            1 => "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,2})?",
            // At the edges of what serde_json writes as it stands (18 digits, `-0`).
            1 => prop::sample::select(vec![
                "0", "-0", "1.50", "1e2", "123456789012345678", "-123456789012345678",
                "1234567890123456789", "99999999999999999999", "-9999999999999999999",
            ])
            .prop_map(str::to_owned),
        ];
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            number,
            string,
        ];
        // A few keys often (so that they repeat), escaped ones among them.
        let few = prop::sample::select(vec!["a", "b", "path", r"a\nb", r"k\/", "k/"]);
        let key = prop_oneof![4 => "[a-z_]{1,8}", 1 => few.prop_map(str::to_owned)];
        leaf.prop_recursive(4, 32, 5, move |inner| {
            let item = (space.clone(), inner.clone(), space.clone());
            let entry = (key.clone(), space.clone(), inner, space.clone());
            prop_oneof![
                prop::collection::vec(item, 0..5).prop_map(|items| {
                    let items: Vec<_> =
                        items.iter().map(|(a, v, b)| format!("{a}{v}{b}")).collect();
                    format!("[{}]", items.join(","))
                }),
                prop::collection::vec(entry, 0..5).prop_map(|entries| {
                    let entries: Vec<_> = entries
                        .iter()
                        .map(|(k, a, v, b)| format!("\"{k}\"{a}:{v}{b}"))
                        .collect();
                    format!("{{{}}}", entries.join(","))
                }),
            ]
        })
    }

    /// `text` as the content of a JSON string: as `serde_json` writes it, with `/` written
    /// `\/`, or with every character beyond ASCII a `\u` escape (pairs for the wide ones).
    fn held(text: &str, way: u8) -> String {
        let quoted = serde_json::to_string(text).unwrap();
        let raw = &quoted[1..quoted.len() - 1];
        match way {
            0 => raw.to_owned(),
            1 => raw.replace('/', r"\/"),
            _ => raw
                .chars()
                .map(|c| match c.is_ascii() {
                    true => c.to_string(),
                    false => c
                        .encode_utf16(&mut [0; 2])
                        .iter()
                        .map(|u| format!("\\u{u:04x}"))
                        .collect(),
                })
                .collect(),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(1024))]

        /// The score read from the escaped text equals the score of the text unescaped and
        /// read in full, whatever the text (JSON or not, compact or not).
        #[test]
        fn held_arguments_score_as_the_text_read_in_full(
            text in json_text(),
            around in proptest::sample::select(vec!["", "", "", "", " ", "x"]),
            way in proptest::sample::select(vec![0u8, 0, 0, 0, 1, 2]),
        ) {
            use proptest::prelude::*;
            let text = format!("{text}{around}");
            let body = format!("\"{}\"", held(&text, way));
            let mut nodes = Vec::new();
            tape::value(body.as_bytes(), 0, &mut nodes).unwrap();
            let tape = Tape::new(&body, &nodes);
            let value = tape.root();
            let unescaped = value.str().unwrap_or_default();
            prop_assert_eq!(unescaped.as_ref(), text.as_str());
            static HITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            static ALL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            if value.escaped() && score_held_json(value.raw().as_bytes()).is_some() { HITS.fetch_add(1, std::sync::atomic::Ordering::Relaxed); }
            let all = ALL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if all % 500 == 499 { eprintln!("hits {} of {}", HITS.load(std::sync::atomic::Ordering::Relaxed), all + 1); }
            prop_assert_eq!(held_arguments_score(Some(value)), arguments_text_score(&text));
        }
    }

    #[test]
    fn compact_arguments_are_read_from_the_escaped_text() {
        // What `JSON.stringify` writes of tool arguments, as a body holds it.
        let text =
            r#"{"path":"src/a.rs","edits":[{"old":"fn a() {\n\t\"x\"\n}","new":"\\"}],"n":3}"#;
        let raw = held(text, 0);
        assert_eq!(
            score_held_json(raw.as_bytes()),
            Some(arguments_text_score(text))
        );
        let body = format!("\"{raw}\"");
        let mut nodes = Vec::new();
        tape::value(body.as_bytes(), 0, &mut nodes).unwrap();
        assert_eq!(
            held_arguments_score(Some(Tape::new(&body, &nodes).root())),
            arguments_text_score(text)
        );
        assert_eq!(held_arguments_score(None), arguments_text_score(""));
    }
}
