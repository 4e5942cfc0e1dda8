//! The built-in summarizer: summary requests sent through a host model call, with retries.

use std::time::Duration;

use crate::error::{Error, Result};
use crate::message::{Message, ToolDefinition};
use crate::prompt;
use crate::records;
use crate::retry::{FailureKind, GenerateError, RetryPolicy, Sleeper};
use crate::summarizer::{LocalFuture, SummarizeRequest, Summarizer, SummaryText, Usage};
use crate::summary::{self, TURN_CONTEXT_HEADING};

/// Which summary a generate call is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The complete history before the cut, merged with the previous summary.
    History,
    /// The beginning of a split turn.
    TurnPrefix,
}

impl Purpose {
    /// The name the JavaScript contract uses: `"history"` or `"turnPrefix"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::History => "history",
            Purpose::TurnPrefix => "turnPrefix",
        }
    }
}

/// How the model may use tools in a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model must not call tools; summary requests always say this.
    None,
}

/// One model call for one summary.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateRequest {
    /// The configured summary model.
    pub model: String,
    /// The system instruction.
    pub system_prompt: String,
    /// The one user message of the request: the records and what to do with them.
    pub prompt: String,
    /// The output limit, when configured.
    pub max_output_tokens: Option<u64>,
    /// Always empty: summary requests offer no tools.
    pub tools: Vec<ToolDefinition>,
    /// Always [`ToolChoice::None`].
    pub tool_choice: ToolChoice,
    /// Which summary this is.
    pub purpose: Purpose,
}

/// A model call's answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Generated {
    /// The generated text.
    pub text: String,
    /// Token usage, when the provider reports it.
    pub usage: Option<Usage>,
}

/// The host's model call.
pub trait Generator {
    /// The per-call context (the wasm layer's `AbortSignal`).
    type Context: ?Sized;

    /// Generates text for `request`.
    fn generate<'a>(
        &'a self,
        request: &'a GenerateRequest,
        context: &'a Self::Context,
    ) -> LocalFuture<'a, Result<Generated, GenerateError>>;
}

/// The built-in summarizer: serializes messages into records, asks the model for a
/// structured summary, retries transient failures.
#[derive(Debug, Clone)]
pub struct GeneratorSummarizer<G, S> {
    /// The model call.
    pub generator: G,
    /// The wait between attempts.
    pub sleeper: S,
    /// The summary model; must be non-blank.
    pub model: String,
    /// Replaces the default system instruction when non-blank.
    pub system_prompt: Option<String>,
    /// The output limit of each summary call.
    pub max_output_tokens: Option<u64>,
    /// Attempts and waits per summary call.
    pub retry: RetryPolicy,
}

impl<G, S> GeneratorSummarizer<G, S>
where
    G: Generator,
    S: Sleeper<Context = G::Context>,
{
    /// A summarizer for `model` with the default prompt, no output limit and the default retries.
    pub fn new(generator: G, sleeper: S, model: impl Into<String>) -> Self {
        GeneratorSummarizer {
            generator,
            sleeper,
            model: model.into(),
            system_prompt: None,
            max_output_tokens: None,
            retry: RetryPolicy::default(),
        }
    }

    /// Sets the waits between attempts (one retry per delay).
    pub fn with_retry_delays(mut self, delays: Vec<Duration>) -> Self {
        self.retry = RetryPolicy { delays };
        self
    }

    /// The summary request for `purpose` with `prompt` as its user message.
    pub fn request(&self, purpose: Purpose, prompt: String) -> GenerateRequest {
        let system_prompt = match &self.system_prompt {
            Some(custom) if !custom.trim().is_empty() => custom.clone(),
            _ => prompt::DEFAULT_SYSTEM_PROMPT.to_owned(),
        };
        GenerateRequest {
            model: self.model.clone(),
            system_prompt,
            prompt,
            max_output_tokens: self.max_output_tokens,
            tools: Vec::new(),
            tool_choice: ToolChoice::None,
            purpose,
        }
    }

    /// The user prompts `summarize` would send for `request`, in order (history, then prefix).
    pub fn prompts(&self, request: &SummarizeRequest) -> Vec<(Purpose, String)> {
        let records =
            |messages: &[Message]| (!messages.is_empty()).then(|| records::serialize(messages));
        prompts(
            request.previous_summary,
            records(request.messages),
            records(request.turn_prefix_messages),
        )
    }

    async fn call(
        &self,
        purpose: Purpose,
        prompt: String,
        context: &G::Context,
    ) -> Result<SummaryText> {
        let request = self.request(purpose, prompt);
        let generated = self
            .retry
            .run(&self.sleeper, context, async || {
                self.generator.generate(&request, context).await
            })
            .await
            .map_err(|(error, attempts)| summary_call_failed(purpose, error, attempts))?;
        let text = summary::clean(&generated.text);
        if text.is_empty() {
            return Err(Error::EmptySummary);
        }
        Ok(SummaryText {
            text,
            usage: generated.usage,
        })
    }

    async fn summarize_parts(
        &self,
        request: SummarizeRequest<'_>,
        context: &G::Context,
    ) -> Result<SummaryText> {
        let mut history = None;
        let mut prefix = None;
        for (purpose, prompt) in self.prompts(&request) {
            let text = self.call(purpose, prompt, context).await?;
            match purpose {
                Purpose::History => history = Some(text),
                Purpose::TurnPrefix => prefix = Some(text),
            }
        }
        // No complete history: reuse the previous summary (apply re-adds its file lists) or a
        // placeholder; only the prefix was summarized.
        let history = history.unwrap_or_else(|| {
            let previous = summary::clean(request.previous_summary);
            SummaryText {
                text: if previous.is_empty() {
                    prompt::NO_HISTORY_PLACEHOLDER.to_owned()
                } else {
                    previous
                },
                usage: None,
            }
        });
        let Some(prefix) = prefix else {
            return Ok(history);
        };
        Ok(SummaryText {
            text: format!(
                "{}\n\n{TURN_CONTEXT_HEADING}\n\n{}",
                history.text, prefix.text
            ),
            usage: Usage::combine(history.usage, prefix.usage),
        })
    }
}

/// The user prompts of a summary, in order: the history's when it has records, then the turn
/// prefix's (`None` for a part with no messages).
pub(crate) fn prompts(
    previous_summary: &str,
    history: Option<String>,
    prefix: Option<String>,
) -> Vec<(Purpose, String)> {
    let history = history.map(|r| (Purpose::History, prompt::history(&r, previous_summary)));
    let prefix = prefix.map(|r| (Purpose::TurnPrefix, prompt::turn_prefix(&r)));
    history.into_iter().chain(prefix).collect()
}

fn summary_call_failed(purpose: Purpose, error: GenerateError, attempts: usize) -> Error {
    let what = purpose.as_str();
    if error.kind == FailureKind::Cancelled {
        return Error::Cancelled {
            message: format!("the {what} summary call was cancelled"),
            source: Some(Box::new(error)),
        };
    }
    let tries = if attempts == 1 { "attempt" } else { "attempts" };
    Error::Summarization {
        message: format!("the {what} summary call failed after {attempts} {tries}: {error}"),
        source: Some(Box::new(error)),
    }
}

impl<G, S> Summarizer for GeneratorSummarizer<G, S>
where
    G: Generator,
    S: Sleeper<Context = G::Context>,
{
    type Context = G::Context;

    fn summarize<'a>(
        &'a self,
        request: SummarizeRequest<'a>,
        context: &'a Self::Context,
    ) -> LocalFuture<'a, Result<SummaryText>> {
        Box::pin(self.summarize_parts(request, context))
    }

    fn validate(&self) -> std::result::Result<(), String> {
        if self.model.trim().is_empty() {
            return Err("summarizer.model must be a non-blank string".to_owned());
        }
        Ok(())
    }
}
