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
