//! OpenAI Responses API input items: messages (`input_text`, `output_text`, `input_image`,
//! `input_file`, refusals), `function_call` / `function_call_output`, other `*_call` items and
//! their `*_output`, `reasoning` (summary and encrypted size), and unknown items carried as
//! opaque content that still counts.

use serde_json::Value;

use super::read::Reader;
use super::{HostMessage, arguments_from_text, assistant, join_texts};
use crate::error::Result;
use crate::message::{
    AssistantBlock, ContentBlock, Message, ToolCall, ToolResultMessage, UserMessage,
};

const TEXTS: [&str; 3] = ["input_text", "output_text", "refusal"];
const ATTACHMENTS: [&str; 3] = ["input_image", "input_file", "input_audio"];

pub(super) fn read(r: &Reader) -> Result<HostMessage> {
    let kind = match r.str("type")? {
        Some(kind) => kind,
        // An "easy" input message: `{ role, content }` without a type.
        None if r.get("role").is_some() => "message",
        None => return Err(r.error("type", "missing (expected a string)")),
    };
    match kind {
        "message" => message(r),
        "function_call" => Ok(call(
            r,
            r.required_str("name")?,
            arguments_from_text(r.str("arguments")?.unwrap_or("")),
        )?),
        "reasoning" => reasoning(r),
        kind if kind.ends_with("_output") && r.get("call_id").is_some() => output(r, kind),
        kind if kind.ends_with("_call") && r.get("call_id").is_some() => {
            let name = r.str("name")?.unwrap_or(kind.trim_end_matches("_call"));
            let arguments = r
                .get("input")
                .or(r.get("action"))
                .or(r.get("arguments"))
                .cloned()
                .unwrap_or(Value::Null);
            call(r, name, arguments)
        }
        _ => Ok(HostMessage::of_units(vec![assistant(vec![
            AssistantBlock::Opaque(Value::Object(r.object.clone()).to_string()),
        ])])),
    }
}

fn message(r: &Reader) -> Result<HostMessage> {
    let content = r.content("content", &TEXTS, &ATTACHMENTS)?;
    match r.required_str("role")? {
        "system" | "developer" => Ok(HostMessage::system(join_texts(&content))),
        "user" => Ok(HostMessage::of_units(vec![Message::User(UserMessage {
            content,
        })])),
        "assistant" => Ok(HostMessage::of_units(vec![assistant(
            content
                .into_iter()
                .filter_map(|b| match b {
                    ContentBlock::Text(text) => Some(AssistantBlock::Text(text)),
                    ContentBlock::Image => None,
                })
                .collect(),
        )])),
        other => Err(r.error(
            "role",
            &format!("unknown role \"{other}\" (expected user, assistant, system or developer)"),
        )),
    }
}

fn call(r: &Reader, name: &str, arguments: Value) -> Result<HostMessage> {
    Ok(HostMessage::of_units(vec![assistant(vec![
        AssistantBlock::ToolCall(ToolCall {
            id: r.required_str("call_id")?.to_owned(),
            name: name.to_owned(),
            arguments,
        }),
    ])]))
}

fn output(r: &Reader, kind: &str) -> Result<HostMessage> {
    let content = match r.get("output") {
        Some(Value::String(text)) => vec![ContentBlock::Text(text.clone())],
        Some(Value::Array(_)) => r.content("output", &TEXTS, &ATTACHMENTS)?,
        Some(other) => vec![ContentBlock::Text(other.to_string())],
        None => Vec::new(),
    };
    let name = kind.trim_end_matches("_output").trim_end_matches("_call");
    Ok(HostMessage::of_units(vec![Message::ToolResult(
        ToolResultMessage {
            tool_call_id: r.required_str("call_id")?.to_owned(),
            tool_name: (name != "function").then(|| name.to_owned()),
            content,
            is_error: false,
        },
    )]))
}

fn reasoning(r: &Reader) -> Result<HostMessage> {
    let mut summary = Vec::new();
    for (path, value) in r.array("summary")? {
        summary.push(Reader::new(value, &path)?.required_str("text")?.to_owned());
    }
    let mut blocks = Vec::new();
    if !summary.is_empty() {
        blocks.push(AssistantBlock::Thinking(summary.join("\n")));
    }
    if let Some(encrypted) = r.str("encrypted_content")? {
        blocks.push(AssistantBlock::Opaque(encrypted.to_owned()));
    }
    Ok(HostMessage::of_units(vec![assistant(blocks)]))
}
