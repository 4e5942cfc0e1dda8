//! The built-in summarizer: summary requests sent through a host model call, with retries.

use std::time::Duration;

use crate::error::{Error, Result};
use crate::facts::{estimator_failed, message_tokens};
use crate::message::{Message, ToolDefinition};
use crate::prompt;
use crate::records;
use crate::retry::{FailureKind, GenerateError, RetryPolicy, Sleeper};
use crate::summarizer::{LocalFuture, SummarizeRequest, Summarizer, SummaryText, Usage};
use crate::summary::{self, TURN_CONTEXT_HEADING};
use crate::token::Estimator;

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

/// The largest split-turn prefix, in estimated tokens, the generator summarizer quotes instead
/// of summarizing by default.
pub const DEFAULT_QUOTE_TURN_PREFIX_TOKENS: u64 = 1_000;

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
    /// A split turn's prefix estimated at most this many tokens is quoted in the summary
    /// instead of summarized by a second call, when there is a history to summarize too (see
    /// [`GeneratorSummarizer::quotes_turn_prefix`]); 0 never quotes.
    pub quote_turn_prefix_tokens: u64,
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
            quote_turn_prefix_tokens: DEFAULT_QUOTE_TURN_PREFIX_TOKENS,
        }
    }

    /// Sets the waits between attempts (one retry per delay).
    pub fn with_retry_delays(mut self, delays: Vec<Duration>) -> Self {
        self.retry = RetryPolicy { delays };
        self
    }

    /// The system instruction of every summary request: the configured one when non-blank.
    pub fn system_instruction(&self) -> &str {
        match &self.system_prompt {
            Some(custom) if !custom.trim().is_empty() => custom,
            _ => prompt::DEFAULT_SYSTEM_PROMPT,
        }
    }

    /// The summary request for `purpose` with `prompt` as its user message.
    pub fn request(&self, purpose: Purpose, prompt: String) -> GenerateRequest {
        GenerateRequest {
            model: self.model.clone(),
            system_prompt: self.system_instruction().to_owned(),
            prompt,
            max_output_tokens: self.max_output_tokens,
            tools: Vec::new(),
            tool_choice: ToolChoice::None,
            purpose,
        }
    }

    /// Whether a turn prefix may be quoted at all: beside a history summary, with quoting on.
    pub fn may_quote_turn_prefix(&self, has_history: bool) -> bool {
        has_history && self.quote_turn_prefix_tokens > 0
    }

    /// Whether the turn prefix `prefix` (its units) is quoted rather than summarized: only
    /// beside a history summary (quoting then saves the second call; a prefix alone is all a
    /// compaction summarizes, so it is summarized), and only when its local estimate by
    /// `estimator` (framing included, as the facts count it, before any calibration) is at
    /// most `quote_turn_prefix_tokens`. Tool calls and results count whole, so a prefix holding
    /// a long tool result is not small, though its records would truncate it. Counting stops
    /// past the limit.
    pub fn quotes_turn_prefix(
        &self,
        has_history: bool,
        prefix: &[Message],
        estimator: &dyn Estimator,
    ) -> Result<bool> {
        let limit = self.quote_turn_prefix_tokens;
        if !self.may_quote_turn_prefix(has_history) || prefix.is_empty() {
            return Ok(false);
        }
        let mut tokens = 0;
        for unit in prefix {
            tokens += message_tokens(unit, estimator)
                .map_err(|e| estimator_failed("turnPrefixMessages", e))?;
            if tokens > limit {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The user prompts `summarize` would send (each with its purpose; the request is
    /// [`GeneratorSummarizer::request`]), from the records of the history and of the turn
    /// prefix (`None` for a part with no messages): a prefix that is quoted
    /// ([`GeneratorSummarizer::quotes_turn_prefix`] of its units, read only when it may be)
    /// sends none.
    pub fn prompts_of(
        &self,
        previous_summary: &str,
        history: Option<&str>,
        prefix: Option<&str>,
        prefix_units: impl FnOnce() -> Result<Vec<Message>>,
        estimator: &dyn Estimator,
    ) -> Result<Vec<(Purpose, String)>> {
        let mut prefix = prefix;
        if prefix.is_some() && self.may_quote_turn_prefix(history.is_some()) {
            let units = prefix_units()?;
            if self.quotes_turn_prefix(true, &units, estimator)? {
                prefix = None;
            }
        }
        Ok(prompts(previous_summary, history, prefix))
    }

    /// The user prompts `summarize` would send for `request`, in order (history, then prefix;
    /// none for a quoted prefix).
    pub fn prompts(&self, request: &SummarizeRequest) -> Result<Vec<(Purpose, String)>> {
        let (history, prefix) = self.records(request)?;
        Ok(prompts(
            request.previous_summary,
            history.as_deref(),
            prefix.asked(),
        ))
    }

    /// The records of the request's history (`None` when it has no messages) and turn prefix.
    fn records(&self, request: &SummarizeRequest) -> Result<(Option<String>, Prefix)> {
        let records =
            |messages: &[Message]| (!messages.is_empty()).then(|| records::serialize(messages));
        let history = records(request.messages);
        let units = request.turn_prefix_messages;
        let prefix = match records(units) {
            None => Prefix::None,
            Some(r) if self.quotes_turn_prefix(history.is_some(), units, request.estimator)? => {
                Prefix::Quoted(r)
            }
            Some(r) => Prefix::Summarized(r),
        };
        Ok((history, prefix))
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
        let (history_records, prefix_records) = self.records(&request)?;
        let asked = prompts(
            request.previous_summary,
            history_records.as_deref(),
            prefix_records.asked(),
        );
        let mut history = None;
        let mut prefix = None;
        for (purpose, prompt) in asked {
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
        if let Prefix::Quoted(records) = prefix_records {
            prefix = Some(SummaryText {
                text: summary::quoted_turn_prefix(&records),
                usage: None,
            });
        }
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

/// A split turn's prefix, as records: none, quoted in the summary, or summarized by a call.
enum Prefix {
    None,
    Quoted(String),
    Summarized(String),
}

impl Prefix {
    /// The records a turn-prefix call summarizes, if one is made.
    fn asked(&self) -> Option<&str> {
        match self {
            Prefix::Summarized(records) => Some(records),
            Prefix::None | Prefix::Quoted(_) => None,
        }
    }
}

/// The user prompts of a summary, in order: the history's when it has records, then the turn
/// prefix's (`None` for a part with no messages).
pub(crate) fn prompts(
    previous_summary: &str,
    history: Option<&str>,
    prefix: Option<&str>,
) -> Vec<(Purpose, String)> {
    let history = history.map(|r| (Purpose::History, prompt::history(r, previous_summary)));
    let prefix = prefix.map(|r| (Purpose::TurnPrefix, prompt::turn_prefix(r)));
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
