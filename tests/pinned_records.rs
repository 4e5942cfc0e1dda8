//! A pinned message is kept after the summary, so the summarizer never sees it: its records
//! are left out of what the built-in summarizer is sent, whatever comes before and after it.

use context_compaction::formats::Format;

#[test]
fn a_pinned_message_has_no_records() {
    let texts = [
        r#"{"role":"user","content":"first question"}"#,
        r#"{"role":"user","content":"THE PINNED SPEC","pinned":true}"#,
        r#"{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.rs"}}]}"#,
        r#"{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"fn main() {}"}]}"#,
        r#"{"role":"user","content":"last question"}"#,
    ];
    let records = Format::Canonical.records_json(texts).unwrap();
    assert!(!records.contains("THE PINNED SPEC"), "{records}");
    let unpinned: Vec<&str> = texts
        .iter()
        .copied()
        .filter(|t| !t.contains("pinned"))
        .collect();
    assert_eq!(records, Format::Canonical.records_json(unpinned).unwrap());
    // Pinned first or last, and nothing but pinned.
    let first = Format::Canonical
        .records_json([texts[1], texts[0]])
        .unwrap();
    assert_eq!(first, Format::Canonical.records_json([texts[0]]).unwrap());
    let last = Format::Canonical
        .records_json([texts[0], texts[1]])
        .unwrap();
    assert_eq!(last, first);
    assert_eq!(Format::Canonical.records_json([texts[1]]).unwrap(), "");
}

/// One history in each format with a marker, its messages named `[m<i>]` in their text: which
/// of them a plan summarizes, by facts (an application summarizer's slices) and as read (the
/// built-in summarizer's records), must be the same messages: not the system messages, not
/// those the format's marker pins, not those the request's indices pin.
mod every_pin_kind {
    use context_compaction::formats::Format;
    use context_compaction::pinned::{Found, Summarized, mark_first};
    use context_compaction::{Heuristic, unpinned};
    use serde_json::{Value, json};

    /// Message `i` of `format`: `role` ("user", "assistant", "system"), pinned by its marker
    /// when `marked`.
    fn message(format: Format, i: usize, role: &str, marked: bool) -> String {
        let text = format!("[m{i}] some words");
        let mut message = match format {
            Format::Canonical if role == "assistant" => {
                json!({ "role": role, "content": [{ "type": "text", "text": text }] })
            }
            Format::Canonical | Format::AiSdk | Format::OpenAIChat => {
                json!({ "role": role, "content": text })
            }
            _ => {
                json!({ "id": format!("u{i}"), "role": role, "parts": [{ "type": "text", "text": text }] })
            }
        };
        if marked {
            let (at, key): (&[&str], &str) = match format {
                Format::Canonical => (&[], "pinned"),
                Format::AiSdkUi => (&["metadata"], "pinned"),
                _ => (&["providerOptions", "contextCompaction"], "pinned"),
            };
            let mut place = &mut message;
            for step in at {
                place = &mut place[*step];
            }
            place[key] = Value::Bool(true);
        }
        message.to_string()
    }

    /// The `[m<i>]` named in `text`, in order.
    fn named(text: &str, len: usize) -> Vec<usize> {
        (0..len)
            .filter(|i| text.contains(&format!("[m{i}]")))
            .collect()
    }

    /// Which messages each path summarizes: (by facts, by records, by units read).
    fn both(
        format: Format,
        texts: &[String],
        requested: &[u32],
    ) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
        let estimator = Heuristic::new();
        let mut facts: Vec<_> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                format
                    .facts_json(t, &format!("messages[{i}]"), &estimator)
                    .unwrap()
            })
            .collect();
        mark_first(requested, &mut facts);
        let by_facts: Vec<usize> = unpinned(&facts, 0..texts.len()).collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let records = format
            .records_json_until(&texts, requested, 0)
            .unwrap()
            .unwrap_or_default();
        let summarized = Summarized::new(0..texts.len(), requested);
        let by_units = summarized
            .to_read()
            .into_iter()
            .map(|i| i as usize)
            .filter(|&i| {
                let host = format.read_json(texts[i], "m").unwrap();
                summarized.includes(i, Found::of_host(&host))
            })
            .collect();
        (by_facts, named(&records, texts.len()), by_units)
    }

    #[test]
    fn facts_and_the_messages_as_read_agree_on_every_pin() {
        let roles = [
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
        ];
        for format in [Format::Canonical, Format::AiSdk, Format::AiSdkUi] {
            // Message 1 pinned by its marker, message 4 by the request; 2 is a system message
            // where the format has one.
            let system = format != Format::Canonical;
            let texts: Vec<String> = roles
                .iter()
                .enumerate()
                .map(|(i, &role)| {
                    let role = if i == 2 && system { "system" } else { role };
                    message(format, i, role, i == 1)
                })
                .collect();
            let expected: Vec<usize> = match system {
                true => vec![0, 3, 5],
                false => vec![0, 2, 3, 5],
            };
            let (by_facts, by_records, by_units) = both(format, &texts, &[4]);
            assert_eq!(by_facts, expected, "{format:?}: by facts");
            assert_eq!(by_records, expected, "{format:?}: records");
            assert_eq!(by_units, expected, "{format:?}: units");
            // Nothing pinned: every message but the system one.
            let plain: Vec<String> = (0..3).map(|i| message(format, i, "user", false)).collect();
            let (by_facts, by_records, _) = both(format, &plain, &[]);
            assert_eq!((by_facts, by_records), (vec![0, 1, 2], vec![0, 1, 2]));
        }
    }

    #[test]
    fn the_rule_names_each_source_of_a_pin() {
        let summarized = Summarized::new(1..5, &[2, 7]);
        assert_eq!(summarized.to_read(), vec![1, 3, 4]);
        let none = Found::default();
        assert!(summarized.includes(1, none) && summarized.includes(4, none));
        assert!(!summarized.includes(2, none), "the request pins it");
        assert!(
            !summarized.includes(5, none) && !summarized.includes(0, none),
            "outside"
        );
        let marked = Found {
            pinned: true,
            system: false,
        };
        let system = Found {
            pinned: false,
            system: true,
        };
        assert!(!summarized.includes(3, marked) && !summarized.includes(3, system));
    }
}
