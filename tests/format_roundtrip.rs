//! Round trip: a random conversation rendered into every format reads back into the same
//! canonical units, one host message each, in order.

use context_compaction::formats::Format;
use context_compaction::*;
use proptest::prelude::*;
use serde_json::{Value, json};

#[derive(Debug, Clone)]
enum Op {
    User(usize),
    Say(usize),
    Calls(usize),
    Answer(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (1..30usize).prop_map(Op::User),
        (1..30usize).prop_map(Op::Say),
        (1..4usize).prop_map(Op::Calls),
        (0..8usize).prop_map(Op::Answer),
    ]
}

/// One conversation step: the canonical message and what it was made of.
enum Step {
    User(String),
    Say(String),
    Calls(Vec<(String, Value)>),
    Result(String, String),
}

fn steps(ops: &[Op]) -> Vec<Step> {
    let (mut out, mut pending, mut next) = (Vec::new(), Vec::<String>::new(), 0);
    for op in ops {
        match op {
            Op::User(n) => out.push(Step::User(format!("question {}", "u".repeat(*n)))),
            Op::Say(n) => out.push(Step::Say(format!("answer {}", "a".repeat(*n)))),
            Op::Calls(k) => {
                let calls: Vec<_> = (0..*k)
                    .map(|i| {
                        (
                            format!("c{}", next + i),
                            json!({"path": format!("f{}.rs", next + i)}),
                        )
                    })
                    .collect();
                next += k;
                pending.extend(calls.iter().map(|(id, _)| id.clone()));
                out.push(Step::Calls(calls));
            }
            Op::Answer(i) if !pending.is_empty() => {
                let id = pending.remove(i % pending.len());
                out.push(Step::Result(id.clone(), format!("contents of {id}")));
            }
            Op::Answer(_) => {}
        }
    }
    out
}

fn render(format: Format, steps: &[Step]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for step in steps {
        let merge_results = matches!(format, Format::Anthropic | Format::AiSdk);
        match (format, step) {
            (_, Step::User(text)) => out.push(json!({"role": "user", "content": text})),
            (Format::Canonical, Step::Say(text)) => out.push(json!({"role": "assistant", "content": [{"type": "text", "text": text}]})),
            (Format::OpenAIResponses, Step::Say(text)) => out.push(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]})),
            (_, Step::Say(text)) => out.push(json!({"role": "assistant", "content": text})),
            (Format::Canonical, Step::Calls(calls)) => out.push(json!({"role": "assistant", "content": calls.iter().map(|(id, a)| json!({"type": "toolCall", "id": id, "name": "read", "arguments": a})).collect::<Vec<_>>()})),
            (Format::OpenAIChat, Step::Calls(calls)) => out.push(json!({"role": "assistant", "content": null, "tool_calls": calls.iter().map(|(id, a)| json!({"id": id, "type": "function", "function": {"name": "read", "arguments": a.to_string()}})).collect::<Vec<_>>()})),
            (Format::OpenAIResponses, Step::Calls(calls)) => out.extend(calls.iter().map(|(id, a)| json!({"type": "function_call", "call_id": id, "name": "read", "arguments": a.to_string()}))),
            (Format::Anthropic, Step::Calls(calls)) => out.push(json!({"role": "assistant", "content": calls.iter().map(|(id, a)| json!({"type": "tool_use", "id": id, "name": "read", "input": a})).collect::<Vec<_>>()})),
            (Format::AiSdk, Step::Calls(calls)) => out.push(json!({"role": "assistant", "content": calls.iter().map(|(id, a)| json!({"type": "tool-call", "toolCallId": id, "toolName": "read", "input": a})).collect::<Vec<_>>()})),
            (Format::Canonical, Step::Result(id, text)) => out.push(json!({"role": "toolResult", "toolCallId": id, "toolName": "read", "content": [{"type": "text", "text": text}]})),
            (Format::OpenAIChat, Step::Result(id, text)) => out.push(json!({"role": "tool", "tool_call_id": id, "content": text})),
            (Format::OpenAIResponses, Step::Result(id, text)) => out.push(json!({"type": "function_call_output", "call_id": id, "output": text})),
            (_, Step::Result(id, text)) if merge_results => {
                // Consecutive results share one host message in these formats.
                let (block, role) = match format {
                    Format::Anthropic => (json!({"type": "tool_result", "tool_use_id": id, "content": text}), "user"),
                    _ => (json!({"type": "tool-result", "toolCallId": id, "toolName": "read", "output": {"type": "text", "value": text}}), "tool"),
                };
                let open = out.last_mut().filter(|m| m["role"] == role && m["content"].as_array().is_some_and(|c| c.iter().all(|b| b["type"] == block["type"])));
                match open {
                    Some(last) => last["content"].as_array_mut().unwrap().push(block),
                    None => out.push(json!({"role": role, "content": [block]})),
                }
            }
            (_, Step::Result(..)) => unreachable!(),
            // UIMessages hold calls and results together: tests/ai_sdk_ui.rs.
            (Format::AiSdkUi, _) => unreachable!(),
        }
    }
    out
}

proptest! {
    #[test]
    fn every_format_round_trips_to_the_same_units(ops in prop::collection::vec(op(), 0..40)) {
        let steps = steps(&ops);
        let canonical: Vec<Message> = render(Format::Canonical, &steps).iter().map(|m| parse::message(&m.to_string(), "m").unwrap()).collect();
        let expected = records::serialize(&canonical);
        for format in [Format::OpenAIChat, Format::OpenAIResponses, Format::Anthropic, Format::AiSdk] {
            let rendered = render(format, &steps);
            let hosts: Vec<_> = rendered.iter().enumerate().map(|(i, m)| format.read_json(&m.to_string(), &format!("messages[{i}]")).unwrap()).collect();
            // Never drops or merges a host message, and keeps their order.
            prop_assert_eq!(hosts.len(), rendered.len());
            let units: Vec<Message> = hosts.into_iter().flat_map(|h| h.units).collect();
            prop_assert_eq!(records::serialize(&units), expected.clone(), "{}", format.name());
        }
    }
}
