//! AI SDK ModelMessages of `ai` 6 and 7 written by hand: every part kind reads into the units a
//! summary needs, approvals pair with their calls, and parts of a later version never stop a
//! chat. (What `convertToModelMessages` makes of UIMessages: tests/ai-sdk.)

mod common;

use common::*;
use context_compaction::formats::{Format, HostMessage};
use context_compaction::*;
use serde_json::{Value, json};

fn hosts(messages: &[Value]) -> Vec<HostMessage> {
    read_hosts(Format::AiSdk, messages)
}

fn records_of(hosts: &[HostMessage]) -> String {
    let units: Vec<Message> = hosts.iter().flat_map(|h| h.units.clone()).collect();
    records::serialize(&units)
}

fn tokens(messages: &[Value]) -> Vec<u64> {
    let facts = RequestFacts::of_hosts("", "", &[], &hosts(messages), &Heuristic::new()).unwrap();
    facts.messages.iter().map(|f| f.tokens).collect()
}

/// A turn where the user refuses one call and approves another.
fn approvals() -> Vec<Value> {
    vec![
        json!({"role": "user", "content": "clean up the repo"}),
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "I will delete the build folder and list the rest."},
            {"type": "tool-call", "toolCallId": "c1", "toolName": "bash", "input": {"command": "rm -rf build"}},
            {"type": "tool-approval-request", "approvalId": "a1", "toolCallId": "c1"},
            {"type": "tool-call", "toolCallId": "c2", "toolName": "bash", "input": {"command": "ls"}},
            {"type": "tool-approval-request", "approvalId": "a2", "toolCallId": "c2"},
        ]}),
        json!({"role": "tool", "content": [
            {"type": "tool-approval-response", "approvalId": "a1", "approved": false, "reason": "keep the build"},
            {"type": "tool-result", "toolCallId": "c1", "toolName": "bash", "output": {"type": "execution-denied", "reason": "keep the build"}},
            {"type": "tool-approval-response", "approvalId": "a2", "approved": true},
        ]}),
        json!({"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "c2", "toolName": "bash", "output": {"type": "content", "value": [
                {"type": "text", "text": "src tests"},
                {"type": "file-data", "data": "AAAA", "mediaType": "image/png"},
                {"type": "image-url", "url": "https://x/y.png"},
                {"type": "file", "data": {"type": "url", "url": "https://x/z.pdf"}, "mediaType": "application/pdf"},
                {"type": "custom", "kind": "openai.x"},
            ]}},
        ]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Listed; the build stays."}]}),
    ]
}

#[test]
fn every_part_kind_of_ai_7_reads_into_what_a_summary_needs() {
    let read = hosts(&approvals());
    let text = records_of(&read);
    assert!(text.contains("[Tool call] bash"), "{text}");
    assert!(
        text.contains("keep the build"),
        "a denial is the call's result: {text}"
    );
    assert!(text.contains("src tests"), "{text}");
    assert!(
        !text.contains("approvalId") && !text.contains("a1"),
        "{text}"
    );
    // The denial is an error result; the files in the output count as images.
    let Message::ToolResult(denied) = &read[2].units[0] else {
        panic!("{:?}", read[2].units)
    };
    assert!(denied.is_error);
    let Message::ToolResult(listed) = &read[3].units[0] else {
        panic!("{:?}", read[3].units)
    };
    assert_eq!(
        listed
            .content
            .iter()
            .filter(|c| **c == ContentBlock::Image)
            .count(),
        3
    );
}

#[test]
fn approval_parts_are_not_sent_to_the_model_and_count_nothing() {
    let messages = approvals();
    let mut without = messages.clone();
    without[1]["content"]
        .as_array_mut()
        .unwrap()
        .retain(|p| p["type"] != "tool-approval-request");
    without[2]["content"]
        .as_array_mut()
        .unwrap()
        .retain(|p| p["type"] != "tool-approval-response");
    assert_eq!(tokens(&messages), tokens(&without));
}

#[test]
fn no_cut_separates_a_call_from_its_approval_or_denial() {
    let mut messages = vec![json!({"role": "user", "content": "x".repeat(4000)})];
    messages.extend(approvals());
    let facts = RequestFacts::of_hosts("", "", &[], &hosts(&messages), &Heuristic::new()).unwrap();
    let options = PlanOptions {
        input_token_budget: Some(0),
        require_reduction: false,
    };
    for keep in 0..400 {
        let Some(plan) = compactor(keep as f64, Fixed::new("S"))
            .plan_with_facts(&facts, options)
            .unwrap()
        else {
            continue;
        };
        // The calls are in message 2, the approvals and results in 3 and 4.
        assert!(
            !(3..=4).contains(&plan.first_kept_index),
            "keep {keep}: {plan:?}"
        );
    }
}

#[test]
fn a_call_waiting_for_approval_is_in_flight() {
    let mut messages = approvals();
    messages.truncate(2);
    messages.insert(0, json!({"role": "user", "content": "x".repeat(4000)}));
    let facts = RequestFacts::of_hosts("", "", &[], &hosts(&messages), &Heuristic::new()).unwrap();
    let options = PlanOptions {
        input_token_budget: Some(0),
        require_reduction: false,
    };
    let plan = compactor(0.0, Fixed::new("S"))
        .plan_with_facts(&facts, options)
        .unwrap()
        .unwrap();
    assert_eq!(plan.first_kept_index, 2);
}

#[test]
fn parts_of_a_later_version_count_as_their_json() {
    let later = json!({"type": "hologram", "payload": "y".repeat(400)});
    let messages = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "hi"}, later.clone()]}),
        json!({"role": "assistant", "content": [later.clone(), {"type": "custom", "kind": "openai.compaction"}, {"type": "reasoning-file", "data": "AAAA", "mediaType": "image/png"}]}),
        json!({"role": "tool", "content": [later.clone(), {"type": "tool-result", "toolCallId": "c", "toolName": "t", "output": {"type": "hologram-output", "value": "z".repeat(400)}}]}),
    ];
    let counted = tokens(&messages);
    assert!(counted.iter().all(|&t| t > 90), "{counted:?}");
    // Counted in place (the heuristic) as from the units, the leading part of the tool message
    // included.
    let in_place: Vec<u64> = messages
        .iter()
        .map(|m| {
            Format::AiSdk
                .facts_json(&m.to_string(), "m", &Heuristic::new())
                .unwrap()
                .tokens
        })
        .collect();
    assert_eq!(in_place, counted);
    assert!(counted[2] > 200, "{counted:?}");
    // The output of a later type is the result's text; the unknown parts are left out of it.
    let text = records_of(&hosts(&messages));
    assert!(text.contains("hologram-output"), "{text}");
    assert!(!text.contains("payload"), "{text}");
}
