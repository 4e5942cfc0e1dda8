//! Message formats other than the canonical one (DESIGN.md §3): each adapter reads one host
//! message into canonical *units*, so that planning, estimates and records work the same in
//! every format while indices and returned messages keep referring to the host's own array.
//!
//! One host message may hold several units (an Anthropic user message with three
//! `tool_result` blocks is three tool results), and a cut never falls inside one.

mod ai_sdk;
mod anthropic;
mod openai_chat;
mod openai_responses;
mod read;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::facts::Role;
use crate::message::{AssistantBlock, ContentBlock, Message};

pub(crate) use read::Reader;

/// How the host's messages are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// DESIGN.md §3: `user`, `assistant`, `toolResult`.
    #[default]
    Canonical,
    /// OpenAI Chat Completions messages.
    OpenAIChat,
    /// OpenAI Responses API input items.
    OpenAIResponses,
    /// Anthropic Messages API messages.
    Anthropic,
    /// Vercel AI SDK `ModelMessage`s.
    AiSdk,
}

impl Format {
    /// Reads a format name: `canonical`, `openai-chat`, `openai-responses`, `anthropic`, `ai-sdk`.
    pub fn from_name(name: &str) -> Result<Format> {
        Ok(match name {
            "canonical" => Format::Canonical,
            "openai-chat" => Format::OpenAIChat,
            "openai-responses" => Format::OpenAIResponses,
            "anthropic" => Format::Anthropic,
            "ai-sdk" => Format::AiSdk,
            other => {
                return Err(Error::invalid_request(format!(
                    "format: unknown format \"{other}\" (expected \"canonical\", \"openai-chat\", \"openai-responses\", \"anthropic\" or \"ai-sdk\")"
                )));
            }
        })
    }

    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Canonical => "canonical",
            Format::OpenAIChat => "openai-chat",
            Format::OpenAIResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::AiSdk => "ai-sdk",
        }
    }

    /// Reads one host message; `path` names it in errors (`messages[3]`).
    pub fn read(self, value: &Value, path: &str) -> Result<HostMessage> {
        let reader = Reader::new(value, path)?;
        let message = match self {
            Format::Canonical => HostMessage::of(crate::parse::message(value, path)?),
            Format::OpenAIChat => openai_chat::read(&reader)?,
            Format::OpenAIResponses => openai_responses::read(&reader)?,
            Format::Anthropic => anthropic::read(&reader)?,
            Format::AiSdk => ai_sdk::read(&reader)?,
        };
        self.check_content(value, path)?;
        Ok(message)
    }

    /// A message without `content` (a UI message with `parts`, say) is an error rather than
    /// an empty message: it would be estimated at a few tokens and never compacted. Only an
    /// OpenAI Chat assistant message with tool calls or a refusal, and Responses items other
    /// than messages, may leave it out. (`null` is allowed: it is content that says nothing.)
    fn check_content(self, value: &Value, path: &str) -> Result<()> {
        let Some(object) = value.as_object() else {
            return Ok(());
        };
        if object.contains_key("content") {
            return Ok(());
        }
        let has = |key: &str| object.get(key).is_some_and(|v| !v.is_null());
        let needed = match self {
            Format::Canonical | Format::Anthropic | Format::AiSdk => true,
            Format::OpenAIChat => {
                object.get("role").and_then(Value::as_str) != Some("assistant")
                    || !(has("tool_calls") || has("function_call") || has("refusal"))
            }
            Format::OpenAIResponses => match object.get("type").and_then(Value::as_str) {
                Some(kind) => kind == "message",
                None => has("role"),
            },
        };
        if !needed {
            return Ok(());
        }
        let hint = if has("parts") {
            " (the message has `parts`: a UI message? pass model messages, e.g. the AI SDK's convertToModelMessages)"
        } else {
            ""
        };
        Err(Error::invalid_request(format!(
            "{path}.content: missing{hint}"
        )))
    }

    /// The message a summary projects to, in this format; `None` for an empty summary.
    pub fn project_summary(self, summary: &str) -> Option<Value> {
        let text = crate::summary::project(summary)?;
        Some(match self {
            Format::OpenAIResponses => serde_json::json!({
                "type": "message",
                "role": "user",
                "content": [{ "type": "input_text", "text": text }],
            }),
            _ => serde_json::json!({ "role": "user", "content": text }),
        })
    }
}

/// One host message as the planner and the summarizer see it.
#[derive(Debug, Clone, PartialEq)]
pub struct HostMessage {
    /// What it is for cuts: `System` messages are never cut (they count as system prompt).
    pub role: Role,
    /// Whether a turn starts here: a user message with more than tool results.
    pub starts_turn: bool,
    /// Its canonical units, in order (none for a system message).
    pub units: Vec<Message>,
    /// The text of a system or developer message.
    pub system: Option<String>,
}

impl HostMessage {
    /// A canonical message as a host message of one unit.
    pub fn of(message: Message) -> HostMessage {
        let (role, starts_turn) = match &message {
            Message::User(_) => (Role::User, true),
            Message::Assistant(_) => (Role::Assistant, false),
            Message::ToolResult(_) => (Role::ToolResult, false),
        };
        HostMessage {
            role,
            starts_turn,
            units: vec![message],
            system: None,
        }
    }

    /// A system or developer message.
    pub fn system(text: String) -> HostMessage {
        HostMessage {
            role: Role::System,
            starts_turn: false,
            units: Vec::new(),
            system: Some(text),
        }
    }

    /// Units read from one host message: a user message of only tool results does not start
    /// a turn; one with assistant content is an assistant message.
    pub fn of_units(units: Vec<Message>) -> HostMessage {
        let assistant = units.iter().any(|u| matches!(u, Message::Assistant(_)));
        let user = units.iter().any(|u| matches!(u, Message::User(_)));
        let role = if assistant {
            Role::Assistant
        } else if user || units.is_empty() {
            Role::User
        } else {
            Role::ToolResult
        };
        HostMessage {
            role,
            starts_turn: user && !assistant,
            units,
            system: None,
        }
    }
}

/// Text blocks joined, for system prompts given as blocks.
pub fn join_texts(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.as_str()),
            ContentBlock::Image => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A tool call's arguments from a JSON string (as OpenAI sends them): parsed when it is JSON,
/// kept as a string otherwise, so records and estimates match the other formats.
pub(crate) fn arguments_from_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// An assistant host message: its blocks, then the results of provider-executed tools that
/// arrive in the same message as their calls.
pub(crate) fn assistant_host(blocks: Vec<AssistantBlock>, results: Vec<Message>) -> HostMessage {
    let mut units = vec![assistant(blocks)];
    units.extend(results);
    HostMessage::of_units(units)
}

/// An assistant unit from blocks.
pub(crate) fn assistant(content: Vec<AssistantBlock>) -> Message {
    Message::Assistant(crate::message::AssistantMessage {
        content,
        stop_reason: None,
    })
}
