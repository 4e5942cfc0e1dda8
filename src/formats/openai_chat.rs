//! OpenAI Chat Completions messages: `system`/`developer`, `user`, `assistant` (content,
//! `tool_calls`, `refusal`, legacy `function_call`), `tool` and legacy `function`.

use super::read::Reader;
use super::{HostMessage, arguments_from_text, assistant, join_texts};
use crate::error::Result;
use crate::message::{
    AssistantBlock, ContentBlock, Message, ToolCall, ToolResultMessage, UserMessage,
};

const ATTACHMENTS: [&str; 3] = ["image_url", "input_audio", "file"];

pub(super) fn read(r: &Reader) -> Result<HostMessage> {
    match r.required_str("role")? {
        "system" | "developer" => Ok(HostMessage::system(join_texts(&r.content("content", &["text"], &[])?))),
        "user" => Ok(HostMessage::of_units(vec![Message::User(UserMessage {
            content: r.content("content", &["text"], &ATTACHMENTS)?,
        })])),
        "assistant" => assistant_message(r),
        "tool" => Ok(result(r.required_str("tool_call_id")?.to_owned(), None, r.content("content", &["text"], &[])?)),
        "function" => {
            let name = r.required_str("name")?;
            Ok(result(legacy_id(name), Some(name.to_owned()), r.content("content", &["text"], &[])?))
        }
        other => Err(r.error(
            "role",
            &format!("unknown role \"{other}\" (expected system, developer, user, assistant, tool or function)"),
        )),
    }
}

fn assistant_message(r: &Reader) -> Result<HostMessage> {
    let mut blocks: Vec<AssistantBlock> = r
        .content("content", &["text", "refusal"], &[])?
        .into_iter()
        .filter_map(|b| match b {
            ContentBlock::Text(text) => Some(AssistantBlock::Text(text)),
            ContentBlock::Image => None,
        })
        .collect();
    if let Some(refusal) = r.str("refusal")? {
        blocks.push(AssistantBlock::Text(refusal.to_owned()));
    }
    for (path, value) in r.array("tool_calls")? {
        let call = Reader::new(value, &path)?;
        let function = call.child(
            call.get("function")
                .ok_or_else(|| call.error("function", "missing"))?,
            "function",
        )?;
        blocks.push(AssistantBlock::ToolCall(ToolCall {
            id: call.required_str("id")?.to_owned(),
            name: function.required_str("name")?.to_owned(),
            arguments: arguments_from_text(function.str("arguments")?.unwrap_or("")),
        }));
    }
    if let Some(value) = r.get("function_call") {
        let function = r.child(value, "function_call")?;
        let name = function.required_str("name")?;
        blocks.push(AssistantBlock::ToolCall(ToolCall {
            id: legacy_id(name),
            name: name.to_owned(),
            arguments: arguments_from_text(function.str("arguments")?.unwrap_or("")),
        }));
    }
    Ok(HostMessage::of_units(vec![assistant(blocks)]))
}

fn result(
    tool_call_id: String,
    tool_name: Option<String>,
    content: Vec<ContentBlock>,
) -> HostMessage {
    HostMessage::of_units(vec![Message::ToolResult(ToolResultMessage {
        tool_call_id,
        tool_name,
        content,
        is_error: false,
    })])
}

/// Legacy function calls have no id: a call and its `function` result pair by name.
fn legacy_id(name: &str) -> String {
    format!("function_call:{name}")
}
