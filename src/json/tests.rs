//! The crate's JSON reader and writer against `serde_json`, the reference they replace: the
//! same values written the same way, the same errors at the same places.

use context_compaction_scan::{self as tape, Tape};
use proptest::prelude::*;

use super::oracle::{js_number, js_value, serde_value};
use super::{Json, js_number_text, serde_number_text};
use crate::formats::json::value_json;

/// What `serde_json` makes of `text`: its compact text, or its error's words.
fn serde_reads(text: &str) -> Result<String, String> {
    serde_value(text)
        .map(|v| v.to_string())
        .map_err(|e| e.to_string())
}

fn ours(text: &str) -> Result<String, String> {
    Json::parse(text)
        .map(|v| v.as_str().to_owned())
        .map_err(|e| e.to_string())
}

/// Number texts at the edges of what `serde_json` holds and how it writes them.
fn number() -> impl Strategy<Value = String> {
    let edges = vec![
        "0",
        "-0",
        "0.0",
        "-0.0",
        "1.50",
        "1e2",
        "1E+2",
        "1e-2",
        "123456789012345678",
        "-123456789012345678",
        "1234567890123456789",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "99999999999999999999",
        "1e308",
        "1.7976931348623157e308",
        "1.7976931348623159e308",
        "2e308",
        "-2e308",
        "4.9e-324",
        "5e-324",
        "2e-324",
        "1e-400",
        "0e99999999999",
        "1e2147483647",
        "1e2147483648",
        "1e-2147483648",
        "0.1000000000000000055511151231257827",
        "123456789012345678901234567890e-10",
        "1e21",
        "1e-7",
        "0.000001",
        "1e16",
        "1e15",
        "9007199254740993",
        "0.30000000000000004",
        "100e-2",
    ];
    prop_oneof![
        4 => "-?[1-9][0-9]{0,5}",
        2 => "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
        2 => prop::sample::select(edges).prop_map(str::to_owned),
        2 => any::<f64>().prop_filter("finite", |v| v.is_finite()).prop_map(|v| format!("{v:e}")),
        1 => any::<f64>().prop_filter("finite", |v| v.is_finite()).prop_map(|v| format!("{v}")),
    ]
}

/// A string with every kind of escape, lone surrogates among them.
fn string() -> impl Strategy<Value = String> {
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
        r"\udc00x",
        r"\uD800\uDBFF",
        r"\u0000",
        r"\u001f",
    ];
    let piece = prop_oneof![
        3 => "[a-zA-Z ]{1,12}",
        2 => prop::sample::select(escapes).prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 0..6).prop_map(|p| format!("\"{}\"", p.concat()))
}

/// JSON text: values of every kind, keys that repeat (escaped ones among them), whitespace or
/// none between the pieces.
fn json_text() -> impl Strategy<Value = String> {
    let space = prop_oneof![20 => Just(""), 1 => Just(" "), 1 => Just("\n  "), 1 => Just("\t\r")];
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        number(),
        string(),
    ];
    let few = prop::sample::select(vec!["a", "b", "path", r"a\nb", r"\u0061", "k/", r"k\/"]);
    let key = prop_oneof![3 => "[a-z_]{1,8}", 2 => few.prop_map(str::to_owned)];
    leaf.prop_recursive(5, 48, 6, move |inner| {
        let item = (space.clone(), inner.clone(), space.clone());
        let entry = (key.clone(), space.clone(), inner, space.clone());
        prop_oneof![
            prop::collection::vec(item, 0..6).prop_map(|items| {
                let items: Vec<_> = items.iter().map(|(a, v, b)| format!("{a}{v}{b}")).collect();
                format!("[{}]", items.join(","))
            }),
            prop::collection::vec(entry, 0..6).prop_map(|entries| {
                let entries: Vec<_> = entries
                    .iter()
                    .map(|(k, a, v, b)| format!("\"{k}\"{a}:{v}{b}"))
                    .collect();
                format!("{{{}}}", entries.join(","))
            }),
        ]
    })
}

/// `text` with one change at `at` (a fraction of its length): a character left out, one put
/// in, or the rest cut off.
fn damaged(text: &str, at: f64, change: u8, put: char) -> String {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let i = bounds[((bounds.len() - 1) as f64 * at) as usize];
    let next = bounds
        .iter()
        .copied()
        .find(|&b| b > i)
        .unwrap_or(text.len());
    match change {
        0 => format!("{}{}", &text[..i], &text[next..]),
        1 => format!("{}{put}{}", &text[..i], &text[i..]),
        _ => text[..i].to_owned(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Any JSON text reads to what serde_json reads and writes of it, or fails with its error.
    #[test]
    fn reads_and_writes_json_text_as_serde_json(text in json_text(), around in "[ \n]{0,2}") {
        let text = format!("{around}{text}{around}");
        prop_assert_eq!(ours(&text), serde_reads(&text), "{}", text);
    }

    /// A message's own values (numbers as JavaScript reads them) are written as the value
    /// `serde_json` held of them was.
    #[test]
    fn writes_message_values_as_serde_json_wrote_them(text in json_text()) {
        let mut nodes = Vec::new();
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        let tape = Tape::new(&text, &nodes);
        let value = tape.root();
        prop_assert_eq!(value_json(Some(value)).to_string(), js_value(value).to_string());
    }

    /// Malformed text fails with serde_json's words, at its line and column.
    #[test]
    fn malformed_json_fails_as_in_serde_json(
        text in json_text(),
        at in 0.0..1.0f64,
        change in 0..3u8,
        put in prop::sample::select(vec!['"', '\\', ',', ':', '[', ']', '{', '}', '-', '.', 'e',
            '0', '1', 'n', 'u', 'x', ' ', '\n', '\u{1}', 'é']),
    ) {
        let text = damaged(&text, at, change, put);
        prop_assert_eq!(ours(&text), serde_reads(&text), "{:?}", text);
    }

    /// Numbers at every edge: written back as serde_json writes them, or as JavaScript does.
    #[test]
    fn numbers_are_written_as_serde_json_and_javascript_write_them(raw in number()) {
        let serde = serde_json::from_str::<serde_json::Value>(&raw).ok().map(|v| v.to_string());
        prop_assert_eq!(serde_number_text(&raw).map(|t| t.into_owned()), serde, "{}", raw);
        prop_assert_eq!(js_number_text(&raw).into_owned(), js_number(&raw).to_string(), "{}", raw);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Objects of more keys than the scanner's writer checks for repeats, some repeated.
    #[test]
    fn large_objects_are_written_as_serde_json_writes_them(
        entries in prop::collection::vec(("[a-z]{1,2}", number()), 30..90),
    ) {
        let entries: Vec<String> = entries.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        let text = format!("{{{}}}", entries.join(","));
        prop_assert_eq!(ours(&text), serde_reads(&text), "{}", text);
        let mut nodes = Vec::new();
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        let tape = Tape::new(&text, &nodes);
        let value = tape.root();
        prop_assert_eq!(value_json(Some(value)).to_string(), js_value(value).to_string());
    }
}

#[test]
fn nesting_up_to_the_limit_reads_as_in_serde_json() {
    for depth in [1, 64, 126, 127, 128, 129, 200] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}"), ("[{\"k\":[", "]}]")] {
            let text = format!("{}0{}", open.repeat(depth), close.repeat(depth));
            assert_eq!(ours(&text), serde_reads(&text), "{depth} {open}");
            let cut = &text[..text.len() - 1];
            assert_eq!(ours(cut), serde_reads(cut), "{depth} {open} cut");
        }
    }
}

#[test]
fn errors_name_the_line_and_column() {
    for (text, error) in [
        ("[1,]", "trailing comma at line 1 column 4"),
        (
            "{\n  \"a\": 1,\n  \"b\" 2\n}",
            "expected `:` at line 3 column 7",
        ),
        ("", "EOF while parsing a value at line 1 column 0"),
        ("[1] x", "trailing characters at line 1 column 5"),
        (
            "\"a\u{1}\"",
            "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3",
        ),
        ("[1e999]", "number out of range at line 1 column 6"),
        ("[tru]", "expected ident at line 1 column 5"),
    ] {
        assert_eq!(ours(text), Err(error.to_owned()), "{text:?}");
        assert_eq!(serde_reads(text), Err(error.to_owned()), "{text:?}");
    }
}
