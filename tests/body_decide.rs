//! A request whose messages are a body is decided as the same messages as objects are
//! (`body::decide` against `Compactor::decide`): clear first, else the same summary plan;
//! calibrated by the usage the body's answers carry.

mod common;

use common::*;
use context_compaction::body;
use context_compaction::clearing::ClearingPolicy;
use context_compaction::formats::Format;
use context_compaction::history::Parts;
use context_compaction::*;
use serde_json::{Value, json};

/// Two old, large tool results, then a short turn (canonical messages).
fn turns() -> Vec<Value> {
    let big = |label: &str| {
        (0..1500)
            .map(|i| format!("{label}{i} "))
            .collect::<String>()
    };
    let call = |id: &str| {
        json!({"role": "assistant", "content": [
            {"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": "ls"}}]})
    };
    let result = |id: &str, text: String| {
        json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
            "content": [{"type": "text", "text": text}]})
    };
    vec![
        json!({"role": "user", "content": "look around"}),
        call("c1"),
        result("c1", big("alpha")),
        call("c2"),
        result("c2", big("beta")),
        json!({"role": "assistant", "content": [{"type": "text", "text": "done"}]}),
        json!({"role": "user", "content": "and now?"}),
    ]
}

fn compactor(clearing: Option<ClearingPolicy>) -> Compactor<Fixed> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: 0,
        clearing,
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap()
}

fn decided(compactor: &Compactor<Fixed>, messages: &[Value], budget: u64) -> body::Decided {
    let body = serde_json::to_vec(messages).unwrap();
    let estimator = Heuristic::new();
    let parts = Parts {
        system_prompt: "",
        summary: "",
        tools: &[],
        estimator: &estimator,
        reported: &[],
        provider_compaction: Default::default(),
        pinned: &[],
    };
    let options = PlanOptions {
        input_token_budget: Some(budget),
        require_reduction: false,
    };
    body::decide(compactor, &body, Format::Canonical, &parts, options).unwrap()
}

fn as_objects(compactor: &Compactor<Fixed>, messages: &[Value], budget: u64) -> Option<Planned> {
    let units: Vec<Message> = read_hosts(Format::Canonical, messages)
        .into_iter()
        .flat_map(|host| host.units)
        .collect();
    let request = Request {
        input_token_budget: Some(budget),
        ..Request::new(&units)
    };
    compactor.decide(&request).unwrap()
}

#[test]
fn a_body_is_decided_as_its_messages_are() {
    let messages = turns();
    let eager = Some(ClearingPolicy {
        protect_recent_tokens: Some(0),
        ..ClearingPolicy::default()
    });
    for clearing in [eager, None] {
        let compactor = compactor(clearing.clone());
        let decided = decided(&compactor, &messages, 2000);
        assert_eq!(decided.spans.len(), messages.len());
        let want = as_objects(&compactor, &messages, 2000);
        assert_eq!(decided.planned, want, "clearing {}", clearing.is_some());
        let cleared = matches!(decided.planned, Some(Planned::Clear(_)));
        assert_eq!(cleared, clearing.is_some());
    }
}

#[test]
fn the_usage_an_answer_carries_calibrates_a_body() {
    let mut messages = turns();
    let raw = decided(&compactor(None), &messages, 100_000).facts.total();
    // The answer says the request it closes (all but the last message) cost half as much again.
    let usage = json!({"input": raw * 3 / 2, "output": 0});
    if let Some(answer) = messages.get_mut(5) {
        answer["usage"] = usage;
    }
    let facts = decided(&compactor(None), &messages, 100_000).facts;
    assert!(facts.calibration.anchor.is_some());
    assert!(
        facts.total() > raw * 3 / 2,
        "{} against {raw}",
        facts.total()
    );
}

#[test]
fn the_id_of_a_message_is_read_from_its_span() {
    let messages = vec![
        json!({"id": "m1", "role": "user", "content": "hi"}),
        json!({"role": "user", "content": "there"}),
    ];
    let body = serde_json::to_vec(&messages).unwrap();
    let spans = body::facts(&body, Format::Canonical, &Heuristic::new())
        .unwrap()
        .spans;
    assert_eq!(body::message_id(&body, &spans, 0).as_deref(), Some("m1"));
    assert_eq!(body::message_id(&body, &spans, 1), None);
    assert_eq!(body::message_id(&body, &spans, 2), None);
}
