//! Anthropic Messages API messages: `user` (text, image, document, `tool_result`) and
//! `assistant` (text, thinking, redacted thinking, `tool_use`, server tool use and the
//! `*_tool_result` blocks that answer it).

use serde_json::Value;

use super::read::Reader;
use super::{HostMessage, assistant_host};
use crate::error::Result;
use crate::message::{
    AssistantBlock, ContentBlock, Message, ToolCall, ToolResultMessage, UserMessage,
};

const ATTACHMENTS: [&str; 3] = ["image", "document", "search_result"];

pub(super) fn read(r: &Reader) -> Result<HostMessage> {
    match r.required_str("role")? {
        "user" => user(r),
        "assistant" => assistant_message(r),
        other => Err(r.error(
            "role",
            &format!("unknown role \"{other}\" (expected user or assistant)"),
        )),
    }
}

fn user(r: &Reader) -> Result<HostMessage> {
    if let Some(Value::String(text)) = r.get("content") {
        return Ok(HostMessage::of_units(vec![Message::user(text.clone())]));
    }
    let mut units = Vec::new();
    let mut pending: Vec<ContentBlock> = Vec::new();
    for (path, value) in r.array("content")? {
        let block = Reader::new(value, &path)?;
        match block.kind()? {
            "text" => pending.push(ContentBlock::Text(block.required_str("text")?.to_owned())),
            kind if ATTACHMENTS.contains(&kind) => pending.push(ContentBlock::Image),
            "tool_result" => {
                flush(&mut units, &mut pending);
                units.push(Message::ToolResult(ToolResultMessage {
                    tool_call_id: block.required_str("tool_use_id")?.to_owned(),
                    tool_name: None,
                    content: block.content("content", &["text"], &ATTACHMENTS)?,
                    is_error: block.bool("is_error")?,
                }));
            }
            other => {
                return Err(
                    block.unknown(other, "text, image, document, search_result or tool_result")
                );
            }
        }
    }
    flush(&mut units, &mut pending);
    Ok(HostMessage::of_units(units))
}

fn flush(units: &mut Vec<Message>, pending: &mut Vec<ContentBlock>) {
    if !pending.is_empty() {
        units.push(Message::User(UserMessage {
            content: std::mem::take(pending),
        }));
    }
}

fn assistant_message(r: &Reader) -> Result<HostMessage> {
    if let Some(Value::String(text)) = r.get("content") {
        return Ok(assistant_host(
            vec![AssistantBlock::Text(text.clone())],
            Vec::new(),
        ));
    }
    let mut blocks = Vec::new();
    // Results of server-side tools arrive in the same assistant message as their calls.
    let mut results = Vec::new();
    for (path, value) in r.array("content")? {
        let block = Reader::new(value, &path)?;
        match block.kind()? {
            "text" => blocks.push(AssistantBlock::Text(block.required_str("text")?.to_owned())),
            "thinking" => blocks.push(AssistantBlock::Thinking(
                block.required_str("thinking")?.to_owned(),
            )),
            "redacted_thinking" => blocks.push(AssistantBlock::Opaque(
                block.str("data")?.unwrap_or_default().to_owned(),
            )),
            kind if kind == "tool_use" || kind.ends_with("_tool_use") => {
                blocks.push(AssistantBlock::ToolCall(ToolCall {
                    id: block.required_str("id")?.to_owned(),
                    name: block.required_str("name")?.to_owned(),
                    arguments: block.get("input").cloned().unwrap_or(Value::Null),
                }))
            }
            kind if kind.ends_with("_tool_result") => results.push(server_result(&block, kind)?),
            other => {
                return Err(block.unknown(
                    other,
                    "text, thinking, redacted_thinking, tool_use, *_tool_use or *_tool_result",
                ));
            }
        }
    }
    Ok(assistant_host(blocks, results))
}

fn server_result(block: &Reader, kind: &str) -> Result<Message> {
    let content = block.get("content").cloned().unwrap_or(Value::Null);
    let is_error = content
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.ends_with("_error"));
    let text = match &content {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    Ok(Message::ToolResult(ToolResultMessage {
        tool_call_id: block.required_str("tool_use_id")?.to_owned(),
        tool_name: Some(kind.trim_end_matches("_tool_result").to_owned()),
        content: vec![ContentBlock::Text(text)],
        is_error,
    }))
}
