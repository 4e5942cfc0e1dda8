//! The size of a message (`context_compaction::tail::size`), what a plan from the tail knows of
//! the messages it does not read: the UTF-16 length of the keys and strings under the keys the
//! format's reader reads, 4 for any other value. The package's sizer (`pkg-template/host/size.js`)
//! gives the same numbers on the same messages as objects (`tests/js/differential.test.mjs`
//! checks it against the sizes `tests/differential.rs` writes).

use context_compaction::formats::Format;
use context_compaction::history::{History, Parts, Sizes, Texts};
use context_compaction::tail::size::{of_json, of_texts};
use context_compaction::{Heuristic, Result};

fn size(format: Format, text: &str) -> f64 {
    of_json(format, text, "m").unwrap()
}

#[test]
fn keys_and_strings_count_their_utf16_length_other_values_four() {
    // role 4+4, content 7 + (type 4+4, text 4+4), stopReason 10+4; timestamp not read.
    let m = r#"{"role":"user","content":[{"type":"text","text":"abcd"}],"stopReason":null,"timestamp":12}"#;
    assert_eq!(size(Format::Canonical, m), (8 + 7 + 8 + 8 + 14) as f64);
    // Numbers, booleans and null count 4 wherever they are.
    let m = r#"{"role":"user","content":[1, 2.5e3, true, false, null, []]}"#;
    assert_eq!(size(Format::Canonical, m), (8 + 7 + 5 * 4) as f64);
}

#[test]
fn a_string_counts_as_javascript_counts_its_length() {
    // é is one unit, 😀 two (a surrogate pair), whether written as text or escaped.
    let plain = r#"{"role":"héllo😀"}"#;
    assert_eq!(size(Format::Canonical, plain), (4 + 7) as f64);
    let escaped = r#"{"role":"h\u00e9llo\ud83d\ude00"}"#;
    assert_eq!(size(Format::Canonical, escaped), (4 + 7) as f64);
    // Every other escape is one unit; an escaped key counts as its value.
    let m = r#"{"r\u006fle":"a\nb\"c\\d\/"}"#;
    assert_eq!(size(Format::Canonical, m), (4 + 8) as f64);
}

#[test]
fn the_reader_s_keys_only_but_every_key_where_it_may_read_any() {
    let m = r#"{"role":"user","content":"hi","extra":"a long text the reader never reads"}"#;
    assert_eq!(size(Format::Canonical, m), (8 + 9) as f64);
    // OpenAI Responses reads an unknown item as its whole JSON: every key counts.
    let whole = (8 + 9 + 5 + 34) as f64;
    assert_eq!(size(Format::OpenAIResponses, m), whole);
    // A message that is no object counts whole.
    assert_eq!(size(Format::Canonical, r#"["ab", 3]"#), 6.0);
}

#[test]
fn a_repeated_key_counts_once_with_its_last_value_as_json_parse_keeps_it() {
    let m = r#"{"role":"user","content":"a long first value","content":"b"}"#;
    assert_eq!(size(Format::Canonical, m), (8 + 8) as f64);
}

#[test]
fn containers_nested_too_deep_count_four() {
    // The message is at depth 0, its fields' values at 1: a container at depth 120 or more
    // is not followed (as the walker does not follow it).
    let nested = |levels: usize| {
        let open = "[".repeat(levels);
        let close = "]".repeat(levels);
        format!(r#"{{"content":{open}"abcdefgh"{close}}}"#)
    };
    assert_eq!(size(Format::Canonical, &nested(119)), (7 + 8) as f64);
    assert_eq!(size(Format::Canonical, &nested(120)), (7 + 4) as f64);
}

#[test]
fn a_size_pass_names_the_system_messages_and_the_failed_attempts() {
    let texts = [
        r#"{"role":"system","content":"be brief"}"#,
        r#"{"role":"assistant","content":[],"stopReason":"aborted"}"#,
        r#"{"role":"assistant","content":[],"stopReason":"stop"}"#,
        r#"{"role":"developer","content":"x"}"#,
        "not json",
    ];
    let chat = of_texts(Format::OpenAIChat, &texts, None, true).unwrap();
    assert_eq!((chat.system, chat.failed), (vec![0, 3], vec![]));
    assert!(chat.sizes[4].is_nan());
    let canonical = of_texts(Format::Canonical, &texts, Some(&[2, 1]), false).unwrap();
    assert_eq!((canonical.system, canonical.failed), (vec![], vec![1]));
    // A text that is not JSON fails the pass, naming it.
    let error = of_texts(Format::Canonical, &texts, None, false).unwrap_err();
    assert!(error.to_string().contains("messages[4]"), "{error}");
}

#[test]
fn an_in_memory_history_reads_and_sizes_its_texts() -> Result<()> {
    let estimator = Heuristic::new();
    let messages = vec![
        r#"{"role":"system","content":"be brief"}"#.to_owned(),
        r#"{"role":"user","content":"hello there"}"#.to_owned(),
        r#"{"role":"assistant","content":"hi","usage":{"prompt_tokens":40,"completion_tokens":2}}"#
            .to_owned(),
    ];
    let history = Texts {
        format: Format::OpenAIChat,
        messages: &messages,
        parts: Parts {
            system_prompt: "",
            summary: "",
            tools: &[],
            estimator: &estimator,
            reported: &[],
            provider_compaction: Default::default(),
            pinned: &[],
        },
    };
    assert_eq!(history.len(), 3);
    assert_eq!(history.system_messages()?, [0]);
    let facts = history.facts(&[1])?;
    let want = Format::OpenAIChat.facts_json(&messages[1], "m", &estimator)?;
    assert_eq!(facts, [want]);
    let usages = history.usages(&[1, 2])?;
    assert_eq!(usages[0], None);
    assert_eq!(usages[1].map(|u| u.input), Some(40));
    let sizes = history.sizes(Some(&[2]), false)?;
    // The usage is not among the keys the reader reads: it is not sized.
    let want = Sizes {
        sizes: vec![(4 + 9 + 7 + 2) as f64],
        ..Sizes::default()
    };
    assert_eq!(sizes, want);
    Ok(())
}
