//! The built-in summarizer: summary requests sent through a host model call, with retries.

use std::time::Duration;

use crate::chunks::{self, Rooms, Window};
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
    /// Which of a part's chunks this call summarizes, when its records exceed the summary
    /// model's window (see [`GeneratorSummarizer::context_window_tokens`]); `None` for a part
    /// summarized by one call.
    pub chunk: Option<Chunk>,
}

/// One of the calls that summarize a part too large for one: the summary so far is updated
/// with each chunk, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// Its place, from 0.
    pub index: usize,
    /// How many chunks the part has (more than one).
    pub count: usize,
}

/// What a later chunk's prompt shows in place of the summary of the chunks before it, in a
/// preview of the prompts ([`GeneratorSummarizer::prompts`]): that summary is written then.
pub const SUMMARY_SO_FAR_PLACEHOLDER: &str = "[the summary of the chunks before this one]";

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
    /// The summary model's context window, in tokens of the compactor's estimator. When a
    /// part's records would not fit one call beside its instruction, the summary so far and
    /// the answer (`max_output_tokens`, else a quarter of the window), they are summarized in
    /// chunks, oldest first, each call updating the summary so far (see [`crate::chunks`]).
    /// `None`: one call per part, however large.
    pub context_window_tokens: Option<u64>,
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
            context_window_tokens: None,
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
            chunk: None,
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
    /// sends none. Each part is one call: with a window (`context_window_tokens`) the chunks
    /// are counted from units, by [`GeneratorSummarizer::prompts`].
    pub fn prompts_of(
        &self,
        previous_summary: &str,
        history: Option<&str>,
        prefix: Option<&str>,
        prefix_units: impl FnOnce() -> Result<Vec<Message>>,
        estimator: &dyn Estimator,
        focus: Option<&str>,
    ) -> Result<Vec<(Purpose, String)>> {
        let mut prefix = prefix;
        if prefix.is_some() && self.may_quote_turn_prefix(history.is_some()) {
            let units = prefix_units()?;
            if self.quotes_turn_prefix(true, &units, estimator)? {
                prefix = None;
            }
        }
        Ok(prompts(previous_summary, history, prefix, focus))
    }

    /// The user prompts `summarize` would send for `request`, in order (history, then prefix;
    /// none for a quoted prefix), a part too large for the window in chunks: a later chunk's
    /// prompt shows [`SUMMARY_SO_FAR_PLACEHOLDER`] where the summary so far will be.
    pub fn prompts(&self, request: &SummarizeRequest) -> Result<Vec<(Purpose, String)>> {
        let mut prompts = Vec::new();
        for (purpose, chunks, previous) in self.calls(request)?.0 {
            for (i, records) in chunks.iter().enumerate() {
                let so_far = if i == 0 {
                    previous
                } else {
                    SUMMARY_SO_FAR_PLACEHOLDER
                };
                prompts.push((purpose, prompt_of(purpose, records, so_far, request.focus)));
            }
        }
        Ok(prompts)
    }

    /// The parts a summary of `request` calls the model for, in order, each with its records in
    /// chunks (one unless they exceed the window) and the summary its first call updates; and
    /// the records of a turn prefix quoted instead.
    #[allow(clippy::type_complexity)]
    fn calls<'r>(
        &self,
        request: &SummarizeRequest<'r>,
    ) -> Result<(Vec<(Purpose, Vec<String>, &'r str)>, Option<String>)> {
        let (history, prefix) = self.records(request)?;
        let mut calls = Vec::new();
        if let Some(records) = history {
            let (messages, previous) = (request.messages, request.previous_summary);
            let chunks = self.chunks(Purpose::History, messages, records, previous, request)?;
            calls.push((Purpose::History, chunks, previous));
        }
        let quoted = match prefix {
            Prefix::Summarized(records) => {
                let messages = request.turn_prefix_messages;
                let chunks = self.chunks(Purpose::TurnPrefix, messages, records, "", request)?;
                calls.push((Purpose::TurnPrefix, chunks, ""));
                None
            }
            Prefix::Quoted(records) => Some(records),
            Prefix::None => None,
        };
        Ok((calls, quoted))
    }

    /// The records of one part (`messages`, written as `whole`) in the chunks its calls send:
    /// `whole` alone unless a window is set and one call beside `previous` cannot hold it.
    fn chunks(
        &self,
        purpose: Purpose,
        messages: &[Message],
        whole: String,
        previous: &str,
        request: &SummarizeRequest,
    ) -> Result<Vec<String>> {
        let Some(tokens) = self.context_window_tokens else {
            return Ok(vec![whole]);
        };
        let estimator = request.estimator;
        let count = |text: &str| chunks::count(estimator, text);
        // The instruction, the prompt's own text in its longer (updating) form, and the
        // framing of the two messages.
        let system = self.request(purpose, String::new()).system_prompt;
        let fixed = count(&system)?
            + count(&prompt_of(purpose, "", "-", request.focus))?
            + 2 * estimator.framing_tokens();
        let window = Window::new(tokens, self.max_output_tokens);
        let rooms = Rooms::new(window, fixed, count(previous)?)?;
        chunks::split(messages, whole, rooms, estimator)
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

    /// The summary of `request`: one call per chunk of each part, oldest first, each updating
    /// the summary so far (a part's first call updates its `previous`), with retries; the
    /// usages are added up. The calls are this one future's loop, not futures of their own
    /// (one state machine: the nested ones cost 0.55 KB gzip of the module).
    async fn summarize_parts(
        &self,
        request: SummarizeRequest<'_>,
        context: &G::Context,
    ) -> Result<SummaryText> {
        let (mut history, mut prefix) = (None, None);
        let (calls, quoted) = self.calls(&request)?;
        for (purpose, chunks, previous) in calls {
            let count = chunks.len();
            let mut so_far = SummaryText {
                text: previous.to_owned(),
                usage: None,
            };
            for (index, records) in chunks.iter().enumerate() {
                let prompt = prompt_of(purpose, records, &so_far.text, request.focus);
                let call = GenerateRequest {
                    chunk: (count > 1).then_some(Chunk { index, count }),
                    ..self.request(purpose, prompt)
                };
                // The generator's own (boxed) future is the attempt: no state machine around it.
                let attempt = || self.generator.generate(&call, context);
                let generated = self.retry.run(&self.sleeper, context, attempt).await;
                let generated = generated
                    .map_err(|(error, attempts)| summary_call_failed(purpose, error, attempts))?;
                so_far = answered(generated, so_far.usage)?;
            }
            match purpose {
                Purpose::History => history = Some(so_far),
                Purpose::TurnPrefix => prefix = Some(so_far),
            }
        }
        Ok(joined(request.previous_summary, history, prefix, quoted))
    }
}

/// A summary call's answer, cleaned (an empty one is an error), its usage added to `usage`
/// (that of the calls before it).
fn answered(generated: Generated, usage: Option<Usage>) -> Result<SummaryText> {
    let text = summary::clean(&generated.text);
    if text.is_empty() {
        return Err(Error::EmptySummary);
    }
    Ok(SummaryText {
        text,
        usage: Usage::combine(usage, generated.usage),
    })
}

/// The summary of a request whose history was summarized as `history` and turn prefix as
/// `prefix` (or quoted: its records `quoted`).
fn joined(
    previous_summary: &str,
    history: Option<SummaryText>,
    prefix: Option<SummaryText>,
    quoted: Option<String>,
) -> SummaryText {
    // No complete history: reuse the previous summary (apply re-adds its file lists) or a
    // placeholder; only the prefix was summarized.
    let history = history.unwrap_or_else(|| {
        let previous = summary::clean(previous_summary);
        SummaryText {
            text: if previous.is_empty() {
                prompt::NO_HISTORY_PLACEHOLDER.to_owned()
            } else {
                previous
            },
            usage: None,
        }
    });
    let prefix = match quoted {
        Some(records) => Some(SummaryText {
            text: summary::quoted_turn_prefix(&records),
            usage: None,
        }),
        None => prefix,
    };
    let Some(prefix) = prefix else {
        return history;
    };
    SummaryText {
        text: text!(
            history.text,
            "\n\n",
            TURN_CONTEXT_HEADING,
            "\n\n",
            prefix.text
        ),
        usage: Usage::combine(history.usage, prefix.usage),
    }
}

/// The user prompt of one call for `purpose`: `records` beside the summary so far (`""` for a
/// part's first call with no previous summary); a history call's says the host's `focus`.
fn prompt_of(purpose: Purpose, records: &str, so_far: &str, focus: Option<&str>) -> String {
    match purpose {
        Purpose::History => prompt::with_focus(prompt::history(records, so_far), focus),
        Purpose::TurnPrefix => prompt::turn_prefix(records, so_far),
    }
}

/// A split turn's prefix, as records: none, quoted in the summary, or summarized by a call.
enum Prefix {
    None,
    Quoted(String),
    Summarized(String),
}

/// The user prompts of a summary, in order: the history's when it has records, then the turn
/// prefix's (`None` for a part with no messages). Each part in one call: the JavaScript
/// preview writes records without units (a window's chunks are counted from units).
pub(crate) fn prompts(
    previous_summary: &str,
    history: Option<&str>,
    prefix: Option<&str>,
    focus: Option<&str>,
) -> Vec<(Purpose, String)> {
    let history = history.map(|r| {
        (
            Purpose::History,
            prompt_of(Purpose::History, r, previous_summary, focus),
        )
    });
    let prefix = prefix.map(|r| (Purpose::TurnPrefix, prompt::turn_prefix(r, "")));
    history.into_iter().chain(prefix).collect()
}

fn summary_call_failed(purpose: Purpose, error: GenerateError, attempts: usize) -> Error {
    let what = purpose.as_str();
    if error.kind == FailureKind::Cancelled {
        return Error::Cancelled {
            message: text!("the ", what, " summary call was cancelled"),
            source: Some(Box::new(error)),
        };
    }
    let tries = if attempts == 1 { "attempt" } else { "attempts" };
    Error::Summarization {
        message: text!(
            "the ",
            what,
            " summary call failed after ",
            attempts,
            " ",
            tries,
            ": ",
            error
        ),
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
        match self.context_window_tokens {
            Some(tokens) => Window::new(tokens, self.max_output_tokens).validate("summarizer"),
            None => Ok(()),
        }
    }
}
