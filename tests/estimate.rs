//! The request estimate: system prompt, projected summary, raw messages, tools, images, framing.

mod common;

use common::*;
use context_compaction::*;
use serde_json::json;

fn facts(request: &Request) -> RequestFacts {
    RequestFacts::of(request).unwrap()
}

#[test]
fn the_estimate_adds_every_part_of_the_request() {
    let messages = vec![user("abc"), say("de")];
    let tools = vec![ToolDefinition {
        name: "read".into(),
        description: "Read".into(),
        parameters: j(json!({"type": "object"})),
    }];
    let estimator = CharEstimator::default();
    let request = Request {
        system_prompt: "system",
        summary: "sum",
        tools: &tools,
        estimator: &estimator,
        ..Request::new(&messages)
    };
    let f = facts(&request);
    assert_eq!(f.system_prompt, 6);
    assert_eq!(
        f.summary,
        project_summary("sum").unwrap().chars().count() as u64
    );
    assert_eq!(f.tools, 4 + 4 + r#"{"type":"object"}"#.len() as u64);
    assert_eq!(
        f.messages.iter().map(|m| m.tokens).collect::<Vec<_>>(),
        vec![3, 2]
    );
    assert_eq!(f.total(), f.system_prompt + f.summary + f.tools + 5);
}

#[test]
fn an_empty_summary_and_system_prompt_count_nothing() {
    let f = facts(&Request::new(&[]));
    assert_eq!(
        (f.system_prompt, f.summary, f.tools, f.total()),
        (0, 0, 0, 0)
    );
}

#[test]
fn images_cost_a_fixed_amount_and_framing_is_per_message_and_call() {
    let image = Message::User(UserMessage {
        content: vec![ContentBlock::Image],
    });
    let heuristic = Heuristic::new();
    let request = Request {
        estimator: &heuristic,
        ..Request::new(std::slice::from_ref(&image))
    };
    assert_eq!(facts(&request).messages[0].tokens, 1_200 + 4);
    let cheap = Heuristic { image_tokens: 85 };
    let request = Request {
        estimator: &cheap,
        ..Request::new(std::slice::from_ref(&image))
    };
    assert_eq!(facts(&request).messages[0].tokens, 85 + 4);

    let call = Message::tool_calls(vec![ToolCall::new("1", "read", j(json!({"path": "a"})))]);
    let expected = 4 + 4 + heuristic.count("read") + heuristic.count(r#"{"path":"a"}"#);
    let request = Request {
        estimator: &heuristic,
        ..Request::new(std::slice::from_ref(&call))
    };
    assert_eq!(facts(&request).messages[0].tokens, expected);
}

#[test]
fn thinking_and_tool_results_are_counted() {
    let thinking = Message::Assistant(AssistantMessage {
        content: vec![AssistantBlock::Thinking("a b c".into())],
        stop_reason: None,
    });
    let result = Message::tool_result("1", "bash", "x y");
    let estimator = CharEstimator::default();
    let messages = [thinking, result];
    let f = facts(&Request {
        estimator: &estimator,
        ..Request::new(&messages)
    });
    assert_eq!(f.messages[0].tokens, 5);
    assert_eq!(f.messages[1].tokens, 3);
    assert_eq!(f.messages[1].tool_result_ids, vec!["1".to_owned()]);
}

/// Tool-call arguments from a `serde_json` value.
fn j(value: serde_json::Value) -> context_compaction::Json {
    value.to_string().parse().expect("JSON")
}
