//! Per-message facts: everything the planner needs about one message, computed once.
//!
//! Planning works on facts alone, so a caller that keeps them can re-plan a grown history by
//! computing facts for the new messages only.

use crate::error::{BoxError, Error, Result};
use crate::message::{AssistantBlock, ContentBlock, Message, ToolDefinition};
use crate::request::Request;
use crate::summary;
use crate::token::Estimator;

/// What a message is, as far as cuts and turns are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A tool result.
    ToolResult,
}

/// The facts of one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageFacts {
    /// Estimated tokens, framing included.
    pub tokens: u64,
    /// The message's role.
    pub role: Role,
    /// Whether a turn starts here (a user message).
    pub starts_turn: bool,
    /// Ids of the tool calls this message makes.
    pub tool_call_ids: Vec<String>,
    /// The id of the tool call this message answers.
    pub tool_result_id: Option<String>,
}

impl MessageFacts {
    /// Computes the facts of `message` with `estimator`.
    pub fn of(message: &Message, estimator: &dyn Estimator) -> Result<Self, BoxError> {
        let tokens = message_tokens(message, estimator)?;
        Ok(match message {
            Message::User(_) => MessageFacts {
                tokens,
                role: Role::User,
                starts_turn: true,
                tool_call_ids: Vec::new(),
                tool_result_id: None,
            },
            Message::Assistant(_) => MessageFacts {
                tokens,
                role: Role::Assistant,
                starts_turn: false,
                tool_call_ids: message.calls().map(|call| call.id.clone()).collect(),
                tool_result_id: None,
            },
            Message::ToolResult(result) => MessageFacts {
                tokens,
                role: Role::ToolResult,
                starts_turn: false,
                tool_call_ids: Vec::new(),
                tool_result_id: Some(result.tool_call_id.clone()),
            },
        })
    }
}

/// The facts of a whole request: the fixed parts and every message.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestFacts {
    /// Tokens of the system prompt.
    pub system_prompt: u64,
    /// Tokens of the projected summary message.
    pub summary: u64,
    /// Tokens of all tool definitions.
    pub tools: u64,
    /// Facts of each raw message, in order.
    pub messages: Vec<MessageFacts>,
}

impl RequestFacts {
    /// Computes the facts of every part of `request`.
    pub fn of(request: &Request) -> Result<Self> {
        let estimator = request.estimator;
        let mut facts = Self::fixed(
            request.system_prompt,
            request.summary,
            request.tools,
            estimator,
        )?;
        facts.messages = request
            .messages
            .iter()
            .enumerate()
            .map(|(i, message)| {
                MessageFacts::of(message, estimator)
                    .map_err(|e| estimator_failed(&format!("messages[{i}]"), e))
            })
            .collect::<Result<_>>()?;
        Ok(facts)
    }

    /// The facts of the parts that are never cut, with no messages yet (a caller that keeps
    /// message facts fills `messages` itself).
    pub fn fixed(
        system_prompt: &str,
        summary: &str,
        tools: &[ToolDefinition],
        estimator: &dyn Estimator,
    ) -> Result<Self> {
        Ok(RequestFacts {
            system_prompt: text_message_tokens(system_prompt, estimator)
                .map_err(|e| estimator_failed("systemPrompt", e))?,
            summary: summary_tokens(summary, estimator)
                .map_err(|e| estimator_failed("summary", e))?,
            tools: tools_tokens(tools, estimator).map_err(|e| estimator_failed("tools", e))?,
            messages: Vec::new(),
        })
    }

    /// The estimate of the whole request.
    pub fn total(&self) -> u64 {
        self.system_prompt + self.summary + self.tools + self.message_tokens(0)
    }

    /// The tokens of messages from `start` on.
    pub fn message_tokens(&self, start: usize) -> u64 {
        self.messages
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .map(|f| f.tokens)
            .sum()
    }
}

/// Tokens of the user message a summary projects to (0 for an empty summary).
pub fn summary_tokens(summary: &str, estimator: &dyn Estimator) -> Result<u64, BoxError> {
    match summary::project(summary) {
        None => Ok(0),
        Some(text) => text_message_tokens(&text, estimator),
    }
}

fn text_message_tokens(text: &str, estimator: &dyn Estimator) -> Result<u64, BoxError> {
    if text.is_empty() {
        return Ok(0);
    }
    Ok(estimator.count_tokens(text)? + estimator.framing_tokens())
}

fn message_tokens(message: &Message, estimator: &dyn Estimator) -> Result<u64, BoxError> {
    let mut tokens = estimator.framing_tokens();
    match message {
        Message::User(user) => tokens += content_tokens(&user.content, estimator)?,
        Message::ToolResult(result) => tokens += content_tokens(&result.content, estimator)?,
        Message::Assistant(assistant) => {
            for block in &assistant.content {
                tokens += match block {
                    AssistantBlock::Text(text) | AssistantBlock::Thinking(text) => {
                        estimator.count_tokens(text)?
                    }
                    AssistantBlock::ToolCall(call) => {
                        estimator.framing_tokens()
                            + estimator.count_tokens(&call.name)?
                            + estimator.count_tokens(&call.arguments.to_string())?
                    }
                };
            }
        }
    }
    Ok(tokens)
}

fn content_tokens(content: &[ContentBlock], estimator: &dyn Estimator) -> Result<u64, BoxError> {
    let mut tokens = 0;
    for block in content {
        tokens += match block {
            ContentBlock::Text(text) => estimator.count_tokens(text)?,
            ContentBlock::Image => estimator.image_tokens(),
        };
    }
    Ok(tokens)
}

fn tools_tokens(tools: &[ToolDefinition], estimator: &dyn Estimator) -> Result<u64, BoxError> {
    let mut tokens = 0;
    for tool in tools {
        tokens += estimator.framing_tokens()
            + estimator.count_tokens(&tool.name)?
            + estimator.count_tokens(&tool.description)?;
        if !tool.parameters.is_null() {
            tokens += estimator.count_tokens(&tool.parameters.to_string())?;
        }
    }
    Ok(tokens)
}

/// The `invalid_request` error for an estimator that failed on `place`.
pub fn estimator_failed(place: &str, source: BoxError) -> Error {
    Error::InvalidRequest {
        message: format!("{place}: the estimator failed: {source}"),
        source: Some(source),
    }
}
