//! The readers' layouts (`Format::layout`, what the package's walker lays out of a message's
//! values): a message with only what they keep reads exactly as the whole message does, for
//! the facts (with the default heuristic and with an estimator that counts units), the units,
//! the records and the errors, on every format's fixture, the real session and messages
//! written to hold what the layouts leave out.

use context_compaction::formats::{Format, Layout};
use context_compaction::*;
use serde_json::{Map, Value, json};

/// Counts characters: the facts are then counted from the units.
struct Chars;
impl Estimator for Chars {
    fn count_tokens(&self, text: &str) -> std::result::Result<u64, BoxError> {
        Ok(text.chars().count() as u64)
    }
}

/// What the walker lays out of `message` below its top-level keys, as `pkg-template/walk.js`
/// does it with `layout.js`.
fn pruned(format: Format, message: &Value) -> Value {
    let Value::Object(fields) = message else {
        return message.clone();
    };
    let layouts = format.layout();
    let kept = fields.iter().map(|(key, value)| {
        let layout = layouts.iter().find(|(k, _)| k == key).map(|(_, l)| *l);
        let value = layout.map_or_else(|| value.clone(), |l| apply(l, value));
        (key.clone(), value)
    });
    Value::Object(kept.collect())
}

fn apply(layout: Layout, value: &Value) -> Value {
    match (layout, value) {
        (Layout::Items(items), Value::Array(values)) => {
            Value::Array(values.iter().map(|v| apply(*items, v)).collect())
        }
        (Layout::Typed(blocks), Value::Object(fields)) => {
            let kind = fields.get("type").and_then(Value::as_str);
            let Some(block) = blocks.iter().find(|b| Some(b.kind) == kind) else {
                return value.clone();
            };
            let mut kept = Map::new();
            for (key, value) in fields {
                if key == "type" {
                    kept.insert(key.clone(), value.clone());
                } else if let Some((_, layout)) = block.keys.iter().find(|(k, _)| k == key) {
                    kept.insert(key.clone(), apply(*layout, value));
                }
            }
            Value::Object(kept)
        }
        _ => value.clone(),
    }
}

/// Everything a reader makes of `message`, as text (errors included).
fn read(format: Format, message: &Value) -> String {
    let text = message.to_string();
    let facts = format.facts_json(&text, "m", &Heuristic::new());
    let counted = format.facts_json(&text, "m", &Chars);
    let units = format.read_json(&text, "m");
    let records = format.records_json([text.as_str()]);
    format!("{facts:?}\n{counted:?}\n{units:?}\n{records:?}")
}

/// Checks every message of `messages` and returns how many the layouts made smaller.
fn check(format: Format, messages: &[Value]) -> usize {
    let mut smaller = 0;
    for (i, message) in messages.iter().enumerate() {
        let kept = pruned(format, message);
        assert_eq!(
            read(format, message),
            read(format, &kept),
            "{} message {i}: {message}",
            format.name()
        );
        smaller += usize::from(kept != *message);
    }
    smaller
}

fn fixture(text: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn every_fixture_reads_the_same_with_only_what_the_layouts_keep() {
    let fixtures = [
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
        (
            Format::AiSdkUi,
            include_str!("fixtures/formats/ai-sdk-ui.json"),
        ),
    ];
    for (format, text) in fixtures {
        check(format, &fixture(text));
    }
}

#[test]
fn the_real_session_reads_the_same_with_only_what_the_layouts_keep() {
    let messages: Vec<Value> = include_str!("fixtures/large-session.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["type"] == "message")
        .map(|entry| entry["message"].clone())
        .collect();
    assert!(messages.len() > 500);
    // Its thinking signatures and streamed calls' partial JSON are left out.
    assert!(check(Format::Canonical, &messages) >= 3);
}

#[test]
fn what_the_layouts_leave_out_never_counts() {
    let image = json!({"type": "image", "data": "iVBORw0KGgo".repeat(50), "mimeType": "image/png"});
    let canonical = [
        json!({"role": "user", "content": [{"type": "text", "text": "look", "textSignature": "s"}, image]}),
        json!({"role": "toolResult", "toolCallId": "c1", "toolName": "shot", "content": [image, {"type": "text", "text": "ok", "extra": [1, 2]}]}),
        json!({"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "thinking", "thinking": "hm", "thinkingSignature": "x".repeat(300)},
            {"type": "toolCall", "id": "c1", "name": "shot", "arguments": {"data": "kept", "type": "image"}, "partialJson": "{\"data\""},
        ]}),
        // Errors: an image where assistants take none, a text that is no string, no type, an
        // unknown type, a type that is no string, a block that is no object.
        json!({"role": "assistant", "content": [image]}),
        json!({"role": "user", "content": [{"type": "text", "text": 7, "data": "x"}]}),
        json!({"role": "user", "content": [{"text": "no type", "data": "x"}]}),
        json!({"role": "user", "content": [{"type": "video", "data": "x"}]}),
        json!({"role": "user", "content": [{"type": 3, "data": "x"}]}),
        json!({"role": "user", "content": ["text"]}),
        json!({"role": "toolResult", "content": [{"type": "text", "text": "no id"}]}),
    ];
    assert_eq!(check(Format::Canonical, &canonical), 5);
    let source =
        json!({"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo".repeat(50)});
    let anthropic = [
        json!({"role": "user", "content": [{"type": "text", "text": "look", "citations": []}, {"type": "image", "source": source}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "cache_control": {"type": "ephemeral"},
            "content": [{"type": "text", "text": "shot"}, {"type": "image", "source": source}, {"type": "document", "source": source}]}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "plain"}]}),
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hm", "signature": "s".repeat(300)},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "tool_use", "id": "t1", "name": "shot", "input": {"type": "x"}, "cache_control": {"type": "ephemeral"}},
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"q": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result", "url": "u", "encrypted_content": "e"}]},
        ]}),
        json!({"role": "assistant", "content": [{"type": "image", "source": source}]}),
        json!({"role": "user", "content": [{"type": "tool_result", "content": [{"type": "image", "source": source}]}]}),
    ];
    assert_eq!(check(Format::Anthropic, &anthropic), 5);
    let url = json!({"url": format!("data:image/png;base64,{}", "iVBORw0KGgo".repeat(50))});
    let chat = [
        json!({"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": url}]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "hi", "annotations": []}, {"type": "refusal", "refusal": "no"}]}),
        json!({"role": "system", "content": [{"type": "image_url", "image_url": url}]}),
        json!({"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "r", "x": 1}]}),
    ];
    assert_eq!(check(Format::OpenAIChat, &chat), 4);
}
