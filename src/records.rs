//! Compact categorical records: how the generator summarizer shows messages to the model.
//!
//! Visible user and assistant text stays complete; images become counts; failed and aborted
//! attempts are left out; thinking, tool arguments and tool results are truncated to
//! [`MAX_LINES`] lines or [`MAX_BYTES`] bytes. Ids, signatures, metadata and payloads are dropped.

use std::collections::HashMap;

use crate::message::{AssistantBlock, ContentBlock, Message};

/// The most lines a truncated part keeps.
pub const MAX_LINES: usize = 100;
/// The most bytes a truncated part keeps.
pub const MAX_BYTES: usize = 2048;

/// Which end of a long text survives truncation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The beginning.
    Head,
    /// The end.
    Tail,
}

/// Serializes `messages` into records separated by blank lines.
pub fn serialize(messages: &[Message]) -> String {
    let call_names: HashMap<&str, &str> = messages
        .iter()
        .flat_map(Message::calls)
        .map(|call| (call.id.as_str(), call.name.as_str()))
        .collect();
    let mut records = Vec::new();
    for message in messages {
        if message.is_failed_attempt() {
            continue;
        }
        match message {
            Message::User(user) => records.push(format!("[User]: {}", content_text(&user.content))),
            Message::Assistant(assistant) => {
                for block in &assistant.content {
                    records.push(match block {
                        AssistantBlock::Opaque(_) => continue,
                        AssistantBlock::Text(text) => format!("[Assistant]: {text}"),
                        AssistantBlock::Thinking(text) => {
                            format!("[Assistant thinking]: {}", truncate(text, Keep::Tail))
                        }
                        AssistantBlock::ToolCall(call) => format!(
                            "[Tool call] {}: {}",
                            call.name,
                            truncate(&call.arguments.to_string(), Keep::Head)
                        ),
                    });
                }
            }
            Message::ToolResult(result) => {
                let name = result
                    .tool_name
                    .as_deref()
                    .or_else(|| call_names.get(result.tool_call_id.as_str()).copied())
                    .unwrap_or("unknown");
                let keep = if result.is_error || name == "bash" {
                    Keep::Tail
                } else {
                    Keep::Head
                };
                let status = if result.is_error { "error" } else { "ok" };
                let text = content_text(&result.content);
                records.push(format!(
                    "[Tool result] {name} ({status}): {}",
                    truncate(&text, keep)
                ));
            }
        }
    }
    records.join("\n\n")
}

/// Text blocks joined by line breaks, followed by the number of images, if any.
fn content_text(content: &[ContentBlock]) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let mut images = 0;
    for block in content {
        match block {
            ContentBlock::Text(text) => parts.push(text),
            ContentBlock::Image => images += 1,
            ContentBlock::Opaque(_) => {}
        }
    }
    let image_note = match images {
        0 => String::new(),
        1 => "[1 image]".to_owned(),
        n => format!("[{n} images]"),
    };
    if !image_note.is_empty() {
        parts.push(&image_note);
    }
    parts.join("\n")
}

/// Shortens `text` to [`MAX_LINES`] lines and [`MAX_BYTES`] bytes, keeping `keep`, and marks
/// what was cut.
pub fn truncate(text: &str, keep: Keep) -> String {
    let kept = match keep {
        Keep::Head => head(text),
        Keep::Tail => tail(text),
    };
    if kept.len() == text.len() {
        return text.to_owned();
    }
    let note = format!(
        "[… {} of {} bytes truncated]",
        text.len() - kept.len(),
        text.len()
    );
    match keep {
        Keep::Head => format!("{kept}\n{note}"),
        Keep::Tail => format!("{note}\n{kept}"),
    }
}

fn head(text: &str) -> &str {
    // A trailing line break does not start a line of its own (as in `tail`).
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut end = body
        .match_indices('\n')
        .nth(MAX_LINES - 1)
        .map_or(text.len(), |(i, _)| i);
    end = end.min(MAX_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn tail(text: &str) -> &str {
    // A trailing line break does not start a line of its own.
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut start = body
        .rmatch_indices('\n')
        .nth(MAX_LINES - 1)
        .map_or(0, |(i, _)| i + 1);
    start = start.max(text.len().saturating_sub(MAX_BYTES));
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_unchanged() {
        assert_eq!(truncate("a\nb", Keep::Head), "a\nb");
        assert_eq!(truncate("a\nb\n", Keep::Tail), "a\nb\n");
    }

    #[test]
    fn keeps_a_hundred_lines() {
        let text: String = (0..150).map(|i| format!("{i}\n")).collect();
        let head = truncate(&text, Keep::Head);
        assert!(head.starts_with("0\n1\n"));
        assert!(head.contains("\n99\n[… "));
        assert!(!head.contains("100"));
        let tail = truncate(&text, Keep::Tail);
        assert!(tail.ends_with("\n149\n"));
        assert!(tail.contains("truncated]\n50\n51\n"), "{tail}");
        assert!(!tail.contains("\n49\n"));
    }

    #[test]
    fn a_final_line_break_is_not_a_line() {
        let text: String = (0..100).map(|i| format!("{i}\n")).collect();
        assert_eq!(truncate(&text, Keep::Head), text);
        assert_eq!(truncate(&text, Keep::Tail), text);
        let longer = format!("{text}100\n");
        assert!(truncate(&longer, Keep::Head).ends_with("\n99\n[… 5 of 294 bytes truncated]"));
    }

    #[test]
    fn keeps_two_kib_on_a_char_boundary() {
        let text = "é".repeat(2000); // 4000 bytes, one line
        let head = truncate(&text, Keep::Head);
        assert!(head.starts_with(&"é".repeat(1024)));
        assert!(head.ends_with("[… 1952 of 4000 bytes truncated]"), "{head}");
        let tail = truncate(&text, Keep::Tail);
        assert!(tail.starts_with("[… 1952 of 4000 bytes truncated]\n"));
        assert!(tail.ends_with(&"é".repeat(1024)));
    }
}
