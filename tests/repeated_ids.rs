//! Tool-call ids that repeat: servers that number their calls per response send `call_0` in
//! every answer (and an AI SDK UIMessage holds one answer per step). A result is answered by
//! the call with its id in its own message, else by the latest earlier one; clearing names
//! each result's own call, and never rewrites a result whose id its message holds twice.

mod common;

use common::{Fixed, compactor};
use context_compaction::clearing::{self, ClearingPolicy};
use context_compaction::formats::{Edit, Format};
use context_compaction::*;
use serde_json::{Value, json};

fn big(label: &str, words: usize) -> String {
    (0..words).map(|i| format!("{label}{i} ")).collect()
}

fn facts(format: Format, messages: &[Value]) -> RequestFacts {
    let hosts: Vec<HostMessage> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            format
                .read_json(&m.to_string(), &format!("messages[{i}]"))
                .unwrap()
        })
        .collect();
    RequestFacts::of_hosts("", "", &[], &hosts, &Heuristic::new()).unwrap()
}

fn plan(format: Format, messages: &[Value], policy: &ClearingPolicy) -> Option<clearing::Clearing> {
    let (heuristic, tracking) = (Heuristic::new(), FileTracking::default());
    let mut finder = clearing::Finder::new(&heuristic, &tracking, false, true);
    for (i, message) in messages.iter().enumerate() {
        finder.read_json(format, i, &message.to_string()).unwrap();
    }
    let found = finder.finish().unwrap();
    let limits = clearing::Limits {
        keep_recent_tokens: 0,
        input_token_budget: None,
    };
    clearing::plan(&found, &facts(format, messages), policy, limits, &heuristic).unwrap()
}

fn applied(format: Format, messages: &[Value], clearing: &clearing::Clearing) -> Vec<Value> {
    let mut out = messages.to_vec();
    for edit in clearing.edits(messages.len()) {
        let edits = Edit {
            results: &edit.results,
            arguments: &edit.arguments,
        };
        let text = messages[edit.index].to_string();
        if let Some(edited) = format.edit_json(&text, "m", &edits).unwrap() {
            out[edit.index] = serde_json::from_str(&edited.text).unwrap();
        }
    }
    out
}

fn protect(tokens: u64) -> ClearingPolicy {
    ClearingPolicy {
        protect_recent_tokens: Some(tokens),
        clear_arguments: Some(true),
        ..ClearingPolicy::default()
    }
}

/// AI SDK model messages: three turns, each reading its own file as `call_0`.
fn model_turns() -> Vec<Value> {
    let mut m = Vec::new();
    for turn in 0..3 {
        let path = format!("src/t{turn}.rs");
        m.push(json!({ "role": "user", "content": format!("turn {turn}") }));
        m.push(json!({ "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": "call_0", "toolName": "read", "input": { "path": path } }] }));
        m.push(json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "call_0", "toolName": "read", "output": { "type": "text", "value": big(&format!("t{turn}-"), 800) } }] }));
    }
    m
}

#[test]
fn each_cleared_result_names_its_own_call_and_clears_its_own_arguments() {
    let messages = model_turns();
    // The newest read is protected; the two before it are cleared.
    let clearing = plan(Format::AiSdk, &messages, &protect(500)).expect("old reads to clear");
    let texts: Vec<&str> = clearing.results.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(texts.len(), 2);
    assert!(
        texts[0].contains("src/t0.rs") && texts[1].contains("src/t1.rs"),
        "{texts:?}"
    );
    // The arguments of the cleared calls went, the newest call's stayed.
    assert_eq!(clearing.argument_messages, [1, 4]);
    let after = applied(Format::AiSdk, &messages, &clearing);
    assert_eq!(after[7], messages[7]);
    assert_eq!(after[8], messages[8]);
    assert_eq!(after[1]["content"][0]["input"], json!({}));
}

#[test]
fn a_result_whose_id_its_ui_message_holds_twice_is_never_cleared() {
    let part = |path: &str| json!({ "type": "tool-read", "toolCallId": "call_0", "state": "output-available", "input": { "path": path }, "output": big(path, 800) });
    let loop_of = |id: &str, paths: &[&str]| {
        let mut parts = Vec::new();
        for path in paths {
            parts.push(json!({ "type": "step-start" }));
            parts.push(part(path));
        }
        json!({ "id": id, "role": "assistant", "parts": parts })
    };
    let user =
        |id: &str| json!({ "id": id, "role": "user", "parts": [{ "type": "text", "text": id }] });
    let messages = vec![
        user("u0"),
        loop_of("a0", &["a.rs"]),
        user("u1"),
        loop_of("a1", &["b.rs", "c.rs"]),
        user("u2"),
        loop_of("a2", &["d.rs"]),
    ];
    let clearing = plan(Format::AiSdkUi, &messages, &protect(500)).expect("a0's read to clear");
    // a1's two results share `call_0`: the rewrite would clear both, so neither is.
    let cleared: Vec<(usize, &str)> = clearing
        .results
        .iter()
        .map(|r| (r.index, r.text.as_str()))
        .collect();
    assert_eq!(cleared.len(), 1, "{cleared:?}");
    assert_eq!(cleared[0].0, 1);
    assert!(cleared[0].1.contains("a.rs"), "{cleared:?}");
    let after = applied(Format::AiSdkUi, &messages, &clearing);
    assert_eq!(&after[3..], &messages[3..]);
    assert_eq!(after[1]["parts"][1]["input"], json!({}));
}

#[test]
fn ui_messages_that_all_call_call_0_still_have_a_cut_between_them() {
    let answer = |id: &str| {
        json!({ "id": id, "role": "assistant", "parts": [
        { "type": "step-start" },
        { "type": "tool-read", "toolCallId": "call_0", "state": "output-available", "input": { "path": id }, "output": big(id, 300) },
        { "type": "step-start" },
        { "type": "text", "text": "done" },
    ] })
    };
    let user = |id: &str| json!({ "id": id, "role": "user", "parts": [{ "type": "text", "text": big(id, 50) }] });
    let mut messages = Vec::new();
    for turn in 0..10 {
        messages.push(user(&format!("u{turn}")));
        messages.push(answer(&format!("a{turn}")));
    }
    let facts = facts(Format::AiSdkUi, &messages);
    let options = PlanOptions {
        input_token_budget: Some(2_000),
        require_reduction: false,
    };
    let plan = compactor(1_000.0, Fixed::new("S"))
        .plan_with_facts(&facts, options)
        .unwrap()
        .expect("over the budget");
    // Near the end (the last two turns kept), not at the first answer.
    assert!(plan.first_kept_index >= 16, "{plan:?}");
}
