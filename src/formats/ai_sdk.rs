//! Vercel AI SDK `ModelMessage`s: `system`, `user` (text, image, file parts), `assistant`
//! (text, reasoning, tool-call parts, provider-executed tool results), `tool` (tool-result
//! parts whose `output` is text, json, error-text, error-json or content).

use serde_json::Value;

use super::read::Reader;
use super::{HostMessage, assistant_host};
use crate::error::Result;
use crate::message::{
    AssistantBlock, ContentBlock, Message, ToolCall, ToolResultMessage, UserMessage,
};

pub(super) fn read(r: &Reader) -> Result<HostMessage> {
    match r.required_str("role")? {
        "system" => Ok(HostMessage::system(r.required_str("content")?.to_owned())),
        "user" => Ok(HostMessage::of_units(vec![Message::User(UserMessage {
            content: r.content("content", &["text"], &["image", "file"])?,
        })])),
        "assistant" => assistant_message(r),
        "tool" => {
            let mut units = Vec::new();
            for (path, value) in r.array("content")? {
                let part = Reader::new(value, &path)?;
                match part.kind()? {
                    "tool-result" => units.push(tool_result(&part)?),
                    other => return Err(part.unknown(other, "\"tool-result\"")),
                }
            }
            Ok(HostMessage::of_units(units))
        }
        other => Err(r.error(
            "role",
            &format!("unknown role \"{other}\" (expected system, user, assistant or tool)"),
        )),
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
    let mut results = Vec::new();
    for (path, value) in r.array("content")? {
        let part = Reader::new(value, &path)?;
        match part.kind()? {
            "text" => blocks.push(AssistantBlock::Text(part.required_str("text")?.to_owned())),
            "reasoning" => blocks.push(AssistantBlock::Thinking(
                part.required_str("text")?.to_owned(),
            )),
            "tool-call" => blocks.push(AssistantBlock::ToolCall(ToolCall {
                id: part.required_str("toolCallId")?.to_owned(),
                name: part.required_str("toolName")?.to_owned(),
                // `input` since AI SDK 5, `args` before.
                arguments: part
                    .get("input")
                    .or(part.get("args"))
                    .cloned()
                    .unwrap_or(Value::Null),
            })),
            // A provider-executed tool's result, in the assistant message with its call.
            "tool-result" => results.push(tool_result(&part)?),
            "file" => blocks.push(AssistantBlock::Opaque(
                part.str("mediaType")?.unwrap_or_default().to_owned(),
            )),
            other => {
                return Err(part.unknown(other, "text, reasoning, tool-call, tool-result or file"));
            }
        }
    }
    Ok(assistant_host(blocks, results))
}

fn tool_result(part: &Reader) -> Result<Message> {
    let (content, is_error) = match part.get("output") {
        Some(output) => output_content(&part.child(output, "output")?)?,
        // AI SDK 4: `result` and `isError`.
        None => (
            vec![ContentBlock::Text(json_text(
                part.get("result").unwrap_or(&Value::Null),
            ))],
            part.bool("isError")?,
        ),
    };
    Ok(Message::ToolResult(ToolResultMessage {
        tool_call_id: part.required_str("toolCallId")?.to_owned(),
        tool_name: part.str("toolName")?.map(str::to_owned),
        content,
        is_error,
    }))
}

fn output_content(output: &Reader) -> Result<(Vec<ContentBlock>, bool)> {
    let value = output.get("value").unwrap_or(&Value::Null);
    Ok(match output.kind()? {
        "text" => (vec![ContentBlock::Text(json_text(value))], false),
        "json" => (vec![ContentBlock::Text(value.to_string())], false),
        "error-text" => (vec![ContentBlock::Text(json_text(value))], true),
        "error-json" => (vec![ContentBlock::Text(value.to_string())], true),
        "content" => {
            let mut blocks = Vec::new();
            for (path, item) in output.array("value")? {
                let item = Reader::new(item, &path)?;
                match item.kind()? {
                    "text" => {
                        blocks.push(ContentBlock::Text(item.required_str("text")?.to_owned()))
                    }
                    "media" | "image-data" | "image-url" | "file-data" | "file-url" => {
                        blocks.push(ContentBlock::Image)
                    }
                    other => return Err(item.unknown(other, "text or media")),
                }
            }
            (blocks, false)
        }
        other => return Err(output.unknown(other, "text, json, error-text, error-json or content")),
    })
}

fn json_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
