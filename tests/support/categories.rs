//! Splits a session log into the estimator's calibration categories (shared by the accuracy
//! test and `examples/categories.rs`, and mirrored by `bench/accuracy.mjs`).

use context_compaction::{AssistantBlock, ContentBlock, Heuristic, Message, parse};

/// The categories, in table order.
pub const CATEGORIES: [&str; 5] = ["user", "assistant", "thinking", "toolCall", "toolResult"];

/// Heuristic token totals per category (framing left out) for a session log in JSON lines.
pub fn heuristic_totals(jsonl: &str) -> [u64; 5] {
    let heuristic = Heuristic::new();
    let mut totals = [0u64; 5];
    let mut add = |category: usize, text: &str| totals[category] += heuristic.count(text);
    for line in jsonl.lines().filter(|l| !l.trim().is_empty()) {
        let entry: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        if entry["type"] != "message" {
            continue;
        }
        match parse::message(&entry["message"].to_string(), "message").expect("a canonical message")
        {
            Message::User(user) => content(&user.content, &mut |t| add(0, t)),
            Message::Assistant(assistant) => {
                for block in &assistant.content {
                    match block {
                        AssistantBlock::Text(text) => add(1, text),
                        AssistantBlock::Thinking(text) => add(2, text),
                        AssistantBlock::Opaque(_) | AssistantBlock::Sealed { .. } => {}
                        AssistantBlock::ToolCall(call) => {
                            add(3, &call.name);
                            add(3, &call.arguments.to_string());
                        }
                    }
                }
            }
            Message::ToolResult(result) => content(&result.content, &mut |t| add(4, t)),
        }
    }
    totals
}

fn content(blocks: &[ContentBlock], add: &mut dyn FnMut(&str)) {
    for block in blocks {
        if let ContentBlock::Text(text) = block {
            add(text);
        }
    }
}
