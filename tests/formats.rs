//! Message formats: the same conversation in all five formats plans the same cut and hands the
//! summarizer the same records; per-format shapes; malformed input names the path.

mod common;

use common::*;
use context_compaction::formats::{Format, HostMessage};
use context_compaction::*;
use serde_json::{Value, json};

const FORMATS: [(Format, &str); 5] = [
    (
        Format::Canonical,
        include_str!("fixtures/formats/canonical.json"),
    ),
    (
        Format::OpenAIChat,
        include_str!("fixtures/formats/openai-chat.json"),
    ),
    (
        Format::OpenAIResponses,
        include_str!("fixtures/formats/openai-responses.json"),
    ),
    (
        Format::Anthropic,
        include_str!("fixtures/formats/anthropic.json"),
    ),
    (Format::AiSdk, include_str!("fixtures/formats/ai-sdk.json")),
];

fn read_all(format: Format, messages: &Value) -> Result<Vec<HostMessage>> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, m)| format.read_json(&m.to_string(), &format!("messages[{i}]")))
        .collect()
}

fn hosts(format: Format, text: &str) -> Vec<HostMessage> {
    read_all(format, &serde_json::from_str(text).unwrap()).unwrap()
}

fn units(hosts: &[HostMessage]) -> Vec<Message> {
    hosts.iter().flat_map(|h| h.units.clone()).collect()
}

fn facts(hosts: &[HostMessage]) -> RequestFacts {
    RequestFacts::of_hosts("You fix bugs.", "", &[], hosts, &Heuristic::new()).unwrap()
}

/// Records of what a plan summarizes (history, turn prefix) and keeps.
fn cut_records(hosts: &[HostMessage], keep: u64) -> (String, String, String, bool) {
    let options = PlanOptions {
        input_token_budget: Some(0),
        require_reduction: false,
    };
    let plan = compactor(keep as f64, Fixed::new("S"))
        .plan_with_facts(&facts(hosts), options)
        .unwrap()
        .unwrap();
    let part = |r: std::ops::Range<usize>| records::serialize(&units(&hosts[r]));
    (
        part(plan.messages_to_summarize.clone()),
        part(plan.turn_prefix_messages.clone()),
        part(plan.first_kept_index..hosts.len()),
        plan.split_turn,
    )
}

#[test]
fn every_format_reads_the_same_conversation() {
    let canonical = hosts(Format::Canonical, FORMATS[0].1);
    let expected = records::serialize(&units(&canonical));
    assert!(expected.contains("[User]: Please fix the failing test in src/lib.rs\n[1 image]"));
    for (format, text) in FORMATS {
        let read = hosts(format, text);
        assert_eq!(
            records::serialize(&units(&read)),
            expected,
            "{}",
            format.name()
        );
        // Identical units estimate identically, whatever the host grouping (framing aside:
        // Responses sends a tool call as an item of its own).
        let chars = CharEstimator::default();
        let total = |h: &[HostMessage]| {
            RequestFacts::of_hosts("", "", &[], h, &chars)
                .unwrap()
                .total()
        };
        assert_eq!(total(&read), total(&canonical), "{}", format.name());
        // Converting never drops or reorders a host message.
        assert_eq!(
            read.len(),
            serde_json::from_str::<Value>(text)
                .unwrap()
                .as_array()
                .unwrap()
                .len()
        );
    }
}

#[test]
fn every_format_plans_the_same_cut_and_hands_over_the_same_records() {
    let canonical = hosts(Format::Canonical, FORMATS[0].1);
    let tokens: Vec<u64> = facts(&canonical)
        .messages
        .iter()
        .map(|f| f.tokens)
        .collect();
    let from = |i: usize| tokens[i..].iter().sum::<u64>();
    // Keep nothing (the cut stops at the pending call), keep from the last user message, keep
    // from the middle of the first turn (a split turn).
    for keep in [0, from(7), from(6)] {
        let expected = cut_records(&canonical, keep);
        for (format, text) in FORMATS {
            assert_eq!(
                cut_records(&hosts(format, text), keep),
                expected,
                "{} keep {keep}",
                format.name()
            );
        }
    }
    assert!(
        cut_records(&canonical, from(6)).3,
        "the last keep splits a turn"
    );
    assert_eq!(
        cut_records(&canonical, 0).2,
        r#"[Tool call] bash: {"command":"cargo test"}"#
    );
}

#[test]
fn a_user_message_of_only_tool_results_does_not_start_a_turn() {
    let anthropic = hosts(Format::Anthropic, FORMATS[3].1);
    assert!(anthropic[0].starts_turn);
    assert!(!anthropic[2].starts_turn, "tool results only");
    assert_eq!(anthropic[2].units.len(), 2);
    let mixed = Format::Anthropic
        .read_json(&json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "done"}, {"type": "text", "text": "and now this"}]}).to_string(), "m")
        .unwrap();
    assert!(mixed.starts_turn);
    assert_eq!(mixed.units.len(), 2);
}

#[test]
fn system_and_developer_messages_count_and_are_never_cut() {
    let mut messages: Vec<Value> = serde_json::from_str(FORMATS[1].1).unwrap();
    messages.insert(
        0,
        json!({"role": "developer", "content": "Answer in English."}),
    );
    let read = read_all(Format::OpenAIChat, &Value::Array(messages)).unwrap();
    assert_eq!(read[0].role, Role::System);
    let f = facts(&read);
    assert!(f.messages[0].tokens > 0);
    let options = PlanOptions {
        input_token_budget: Some(0),
        require_reduction: false,
    };
    let plan = compactor(0.0, Fixed::new("S"))
        .plan_with_facts(&f, options)
        .unwrap()
        .unwrap();
    assert!(plan.first_kept_index > 1);
    // It stays with the kept messages, so the estimate after includes it.
    assert_eq!(f.pinned_tokens(plan.first_kept_index), f.messages[0].tokens);
    assert_eq!(
        plan.estimate_after_without_summary,
        f.system_prompt + f.messages[0].tokens + f.message_tokens(plan.first_kept_index)
    );
}

#[test]
fn thinking_signatures_redactions_and_reasoning_items() {
    let anthropic = Format::Anthropic
        .read_json(
            &json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "consider the sign", "signature": "EqQBCgIYAhIM"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
            {"type": "text", "text": "done"}]})
            .to_string(),
            "m",
        )
        .unwrap();
    let text = records::serialize(&anthropic.units);
    assert_eq!(
        text,
        "[Assistant thinking]: consider the sign\n\n[Assistant]: done"
    );
    let responses = Format::OpenAIResponses
        .read_json(&json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "consider the sign"}], "encrypted_content": "gAAAAABo".repeat(50)}).to_string(), "m")
        .unwrap();
    assert_eq!(
        records::serialize(&responses.units),
        "[Assistant thinking]: consider the sign"
    );
    let tokens = MessageFacts::of_host(&responses, &Heuristic::new())
        .unwrap()
        .tokens;
    assert!(tokens > 50, "the encrypted content counts: {tokens}");
    let ai = Format::AiSdk
        .read_json(&json!({"role": "assistant", "content": [{"type": "reasoning", "text": "consider the sign"}, {"type": "text", "text": "done"}]}).to_string(), "m")
        .unwrap();
    assert_eq!(records::serialize(&ai.units), text);
}

#[test]
fn tool_errors_and_outputs_in_each_format() {
    let anthropic = Format::Anthropic
        .read_json(&json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "is_error": true, "content": [{"type": "text", "text": "denied"}]}]}).to_string(), "m")
        .unwrap();
    assert!(matches!(&anthropic.units[0], Message::ToolResult(r) if r.is_error));
    for (kind, value, error) in [
        ("text", json!("t"), false),
        ("json", json!({"a": 1}), false),
        ("error-text", json!("bad"), true),
        ("error-json", json!({"e": 1}), true),
    ] {
        let ai = Format::AiSdk
            .read_json(&json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "x", "toolName": "bash", "output": {"type": kind, "value": value}}]}).to_string(), "m")
            .unwrap();
        assert!(
            matches!(&ai.units[0], Message::ToolResult(r) if r.is_error == error),
            "{kind}"
        );
    }
    let content = Format::AiSdk
        .read_json(&json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "x", "toolName": "shot", "output": {"type": "content", "value": [{"type": "text", "text": "see"}, {"type": "media", "data": "AAA", "mediaType": "image/png"}]}}]}).to_string(), "m")
        .unwrap();
    assert_eq!(
        records::serialize(&content.units),
        "[Tool result] shot (ok): see\n[1 image]"
    );
}

#[test]
fn server_tools_and_unknown_items_are_counted() {
    let anthropic = Format::Anthropic
        .read_json(&json!({"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "rust wasm"}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result", "url": "https://example.org", "title": "x"}]},
            {"type": "text", "text": "found it"}]}).to_string(), "m")
        .unwrap();
    assert_eq!(anthropic.role, Role::Assistant);
    assert_eq!(anthropic.units.len(), 2);
    let unknown = Format::OpenAIResponses
        .read_json(&json!({"type": "image_generation_call", "id": "ig_1", "result": "iVBORw0KGgo=".repeat(40)}).to_string(), "m")
        .unwrap();
    assert!(
        MessageFacts::of_host(&unknown, &Heuristic::new())
            .unwrap()
            .tokens
            > 40
    );
    assert_eq!(records::serialize(&unknown.units), "");
    // Calls and their outputs of built-in tools pair by call_id.
    let call = Format::OpenAIResponses
        .read_json(
            &json!({"type": "computer_call", "call_id": "c1", "action": {"type": "click"}})
                .to_string(),
            "m",
        )
        .unwrap();
    let output = Format::OpenAIResponses.read_json(&json!({"type": "computer_call_output", "call_id": "c1", "output": {"type": "input_image"}}).to_string(), "m").unwrap();
    assert_eq!(
        MessageFacts::of_host(&call, &Heuristic::new())
            .unwrap()
            .tool_call_ids,
        vec!["c1"]
    );
    assert_eq!(
        MessageFacts::of_host(&output, &Heuristic::new())
            .unwrap()
            .tool_result_ids,
        vec!["c1"]
    );
}

#[test]
fn parallel_calls_as_separate_items_are_kept_while_in_flight() {
    // Responses: two function_call items, one answered, one still running.
    let items = json!([
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "a", "name": "bash", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "name": "bash", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "b", "output": "ok"}
    ]);
    let read = read_all(Format::OpenAIResponses, &items).unwrap();
    let options = PlanOptions {
        input_token_budget: Some(0),
        require_reduction: false,
    };
    let plan = compactor(0.0, Fixed::new("S"))
        .plan_with_facts(&facts(&read), options)
        .unwrap();
    assert_eq!(
        plan.unwrap().first_kept_index,
        1,
        "call a is in flight: both calls stay"
    );
}

#[test]
fn legacy_function_calls_pair_by_name() {
    let items = json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": null, "function_call": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
        {"role": "function", "name": "weather", "content": "rain"},
        {"role": "user", "content": "thanks"}
    ]);
    let read = read_all(Format::OpenAIChat, &items).unwrap();
    let f = facts(&read);
    assert_eq!(f.messages[1].tool_call_ids, f.messages[2].tool_result_ids);
}

#[test]
fn malformed_input_names_the_path() {
    let cases = [
        (
            Format::OpenAIChat,
            json!([{"role": "user", "content": [{"type": "video"}]}]),
            "messages[0].content[0].type: unknown block type \"video\"",
        ),
        (
            Format::OpenAIChat,
            json!([{"role": "assistant", "tool_calls": [{"id": "x"}]}]),
            "messages[0].tool_calls[0].function: missing",
        ),
        (
            Format::OpenAIChat,
            json!([{"role": "tool"}]),
            "messages[0].tool_call_id: missing",
        ),
        (
            Format::Anthropic,
            json!([{"role": "user", "content": [{"type": "tool_result"}]}]),
            "messages[0].content[0].tool_use_id: missing",
        ),
        (
            Format::Anthropic,
            json!([{"role": "system", "content": "x"}]),
            "messages[0].role: unknown role \"system\"",
        ),
        (
            Format::AiSdk,
            json!([{"role": "tool", "content": [{"type": "tool-result", "output": {"type": "text", "value": "x"}}]}]),
            "messages[0].content[0].toolCallId: missing",
        ),
        (
            Format::AiSdkUi,
            json!([{"id": "a", "role": "user", "content": "hi"}]),
            "messages[0].parts: missing (expected an array of parts) (the message has `content`: a ModelMessage? use format \"ai-sdk\")",
        ),
        (
            Format::AiSdkUi,
            json!([{"id": "a", "role": "assistant", "parts": [{"type": "tool-read", "toolCallId": "c"}]}]),
            "messages[0].parts[0].state: missing",
        ),
        (
            Format::OpenAIResponses,
            json!([{"type": "function_call", "name": "x"}]),
            "messages[0].call_id: missing",
        ),
        (
            Format::OpenAIResponses,
            json!([42]),
            "messages[0]: expected an object, got a number",
        ),
    ];
    for (format, messages, expected) in cases {
        let err = read_all(format, &messages).unwrap_err();
        assert_eq!(err.code(), "invalid_request");
        assert!(
            err.to_string().contains(expected),
            "{}: {err}",
            format.name()
        );
    }
    assert_eq!(
        Format::from_name("xml").unwrap_err().code(),
        "invalid_request"
    );
}

#[test]
fn the_summary_projects_in_the_request_format() {
    let text = project_summary("S \"quoted\"\n").unwrap();
    let projected = |format: Format| format.project_summary("S \"quoted\"\n").unwrap();
    assert_eq!(
        projected(Format::OpenAIResponses).as_str(),
        json!({"type": "message", "role": "user", "content": [{ "type": "input_text", "text": text }]}).to_string()
    );
    assert_eq!(
        projected(Format::AiSdkUi).as_str(),
        json!({"id": context_compaction::formats::SUMMARY_ID, "role": "user", "parts": [{ "type": "text", "text": text }]}).to_string()
    );
    assert_eq!(
        projected(Format::Anthropic).as_str(),
        json!({"role": "user", "content": text}).to_string()
    );
    assert_eq!(Format::AiSdk.project_summary(""), None);
}
