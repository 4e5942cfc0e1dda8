//! What canonical messages, a summary and tool definitions count, framing included: the
//! token sums the facts are made of.

use crate::error::{BoxError, Error};
use crate::message::{AssistantBlock, ContentBlock, Message, ToolDefinition};
use crate::summary;
use crate::token::Estimator;

/// Tokens of the user message a summary projects to (0 for an empty summary).
pub(crate) fn summary_tokens(summary: &str, estimator: &dyn Estimator) -> Result<u64, BoxError> {
    match summary::project(summary) {
        None => Ok(0),
        Some(text) => text_message_tokens(&text, estimator),
    }
}

pub(super) fn text_message_tokens(text: &str, estimator: &dyn Estimator) -> Result<u64, BoxError> {
    if text.is_empty() {
        return Ok(0);
    }
    Ok(estimator.count_tokens(text)? + estimator.framing_tokens())
}

/// Tokens of one canonical unit, framing included: what it adds to its host message's facts.
pub(crate) fn message_tokens(
    message: &Message,
    estimator: &dyn Estimator,
) -> Result<u64, BoxError> {
    let mut tokens = estimator.framing_tokens();
    match message {
        Message::User(user) => tokens += content_tokens(&user.content, estimator)?,
        Message::ToolResult(result) => tokens += content_tokens(&result.content, estimator)?,
        Message::Assistant(assistant) => {
            for block in &assistant.content {
                tokens += match block {
                    AssistantBlock::Text(text)
                    | AssistantBlock::Thinking(text)
                    | AssistantBlock::Opaque(text) => estimator.count_tokens(text)?,
                    AssistantBlock::Sealed { chars } => crate::message::sealed_tokens(*chars),
                    AssistantBlock::ToolCall(call) => {
                        estimator.framing_tokens()
                            + estimator.count_tokens(&call.name)?
                            + estimator.count_tokens(call.arguments.as_str())?
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
            ContentBlock::Text(text) | ContentBlock::Opaque(text) => {
                estimator.count_tokens(text)?
            }
            ContentBlock::Image => estimator.image_tokens(),
        };
    }
    Ok(tokens)
}

pub(super) fn tools_tokens(
    tools: &[ToolDefinition],
    estimator: &dyn Estimator,
) -> Result<u64, BoxError> {
    let mut tokens = 0;
    for tool in tools {
        tokens += estimator.framing_tokens()
            + estimator.count_tokens(&tool.name)?
            + estimator.count_tokens(&tool.description)?;
        if !tool.parameters.is_null() {
            tokens += estimator.count_tokens(tool.parameters.as_str())?;
        }
    }
    Ok(tokens)
}

/// The `invalid_request` error for an estimator that failed on `place`.
pub(crate) fn estimator_failed(place: &str, source: BoxError) -> Error {
    Error::InvalidRequest {
        message: text!(place, ": the estimator failed: ", source),
        source: Some(source),
    }
}
