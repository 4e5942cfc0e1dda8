//! A request around the host's messages: `{ format, tools, inputTokenBudget,
//! requireReduction, pinned, systemPrompt, summary, estimator, reportedUsage, focus,
//! providerCompaction }`, read in that order (the first problem met is reported). `pinned`
//! and `estimator` are the host's to read (a predicate is called, an estimator kept): each is
//! handed the value given.

use super::{Got, Host, flag, text, whole};
use crate::error::{Error, Result, whole_number};
use crate::facts::RequestFacts;
use crate::formats::{Format, MessageUsage, read_usage};
use crate::history::{Explicit, Parts};
use crate::message::ToolDefinition;
use crate::request::PlanOptions;
use crate::token::{DEFAULT_IMAGE_TOKENS, Estimator, Heuristic};
use crate::window::ProviderCompaction;

/// A request read from a host: its messages are the host's own (`A`), counted by `E`.
pub struct HostRequest<A, E> {
    /// `format` (default canonical).
    pub format: Format,
    /// `systemPrompt` (a string or text blocks; default empty).
    pub system_prompt: String,
    /// `summary` (default empty).
    pub summary: String,
    /// The host's messages.
    pub messages: A,
    /// `tools`, read through their JSON text.
    pub tools: Vec<ToolDefinition>,
    /// `inputTokenBudget`.
    pub input_token_budget: Option<u64>,
    /// `requireReduction`.
    pub require_reduction: bool,
    /// What the host read of `estimator`.
    pub estimator: E,
    /// `reportedUsage`.
    pub reported: Vec<Explicit>,
    /// `focus`: what a summary made for it should focus on.
    pub focus: Option<String>,
    /// `providerCompaction`.
    pub provider_compaction: ProviderCompaction,
    /// The indices its `pinned` option pins, sorted (checked against the messages; for a body,
    /// as given, checked once the body is read).
    pub pinned: Vec<u32>,
}

impl<A, E: Estimator> HostRequest<A, E> {
    /// What of it steers planning.
    pub fn options(&self) -> PlanOptions {
        PlanOptions {
            input_token_budget: self.input_token_budget,
            require_reduction: self.require_reduction,
        }
    }

    /// The facts of everything but the messages (system prompt, summary, tools), which the
    /// caller fills in from the cache, the walker or a body.
    pub fn fixed_facts(&self) -> Result<RequestFacts> {
        self.parts().fixed_facts()
    }

    /// Everything of the request but its messages, as the core reads it.
    pub fn parts(&self) -> Parts<'_> {
        // The preview module refuses `tools` and `reportedUsage` ([`tools`], [`reported`]):
        // both are empty there, and said so, the code that reads them is left out.
        let (tools, reported) = match cfg!(feature = "plan-api") {
            true => (&self.tools[..], &self.reported[..]),
            false => (&[][..], &[][..]),
        };
        Parts {
            system_prompt: &self.system_prompt,
            summary: &self.summary,
            tools,
            estimator: &self.estimator,
            reported,
            provider_compaction: self.provider_compaction,
            pinned: &self.pinned,
        }
    }
}

/// Reads a request around the host's `messages`; `pinned` (given the messages) and
/// `estimator` read theirs.
pub fn request<M, H: Host<M>, A, E>(
    value: &H,
    messages: A,
    pinned: impl FnOnce(&H, &A) -> Result<Vec<u32>>,
    estimator: impl FnOnce(&H) -> Result<E>,
) -> Result<HostRequest<A, E>> {
    if value.got() != Got::Object {
        return Err(Error::invalid_request("request: expected an object"));
    }
    let field = |key: &str| value.field(key, "request");
    let format = format(&field("format")?, "format")?;
    let tools = tools(&field("tools")?, "tools")?.unwrap_or_default();
    let options = plan_options(value, "request")?;
    let pinned = pinned(&field("pinned")?, &messages)?;
    Ok(HostRequest {
        format,
        system_prompt: system_prompt(&field("systemPrompt")?)?,
        summary: text(&field("summary")?, "summary")?.unwrap_or_default(),
        messages,
        tools,
        input_token_budget: options.input_token_budget,
        require_reduction: options.require_reduction,
        estimator: estimator(&field("estimator")?)?,
        reported: reported(&field("reportedUsage")?)?,
        focus: focus(&field("focus")?)?,
        provider_compaction: provider_compaction(&field("providerCompaction")?)?,
        pinned,
    })
}

/// A format's name (default canonical); `path` names it.
pub fn format<M, H: Host<M>>(value: &H, path: &str) -> Result<Format> {
    match text(value, path)? {
        None => Ok(Format::Canonical),
        Some(name) => Format::from_name(&name),
    }
}

/// `focus`: what a summary made for the request should focus on. ChatPreview makes no
/// summary: its module leaves it out.
fn focus<M, H: Host<M>>(value: &H) -> Result<Option<String>> {
    if !cfg!(feature = "plan-api") {
        return super::refused_if_given(value, "focus").map(|()| None);
    }
    text(value, "focus")
}

/// `providerCompaction`: `"window"` (the default) or `"ignore"`. ChatPreview never gives it:
/// its module plans with the default.
pub fn provider_compaction<M, H: Host<M>>(value: &H) -> Result<ProviderCompaction> {
    if !cfg!(feature = "plan-api") {
        return super::refused_if_given(value, "providerCompaction").map(|()| Default::default());
    }
    match text(value, "providerCompaction")? {
        None => Ok(Default::default()),
        Some(name) => ProviderCompaction::from_name(&name, "providerCompaction"),
    }
}

/// `{ inputTokenBudget, requireReduction }` of a request (or of a conversation's plan
/// options), read the same way everywhere.
pub fn plan_options<M, H: Host<M>>(value: &H, path: &str) -> Result<PlanOptions> {
    Ok(PlanOptions {
        input_token_budget: whole(value, "inputTokenBudget", path)?,
        require_reduction: flag(value, "requireReduction", path)?.unwrap_or(false),
    })
}

/// Tool definitions read through their JSON text (so `toJSON`, `undefined` and `NaN` behave
/// as they do in JavaScript); nothing when not given.
pub fn tools<M, H: Host<M>>(value: &H, path: &str) -> Result<Option<Vec<ToolDefinition>>> {
    if matches!(value.got(), Got::Absent) {
        return Ok(None);
    }
    if !cfg!(feature = "plan-api") {
        return Err(super::not_in_build(path));
    }
    crate::parse::tools_at(&value.json(path)?, path).map(Some)
}

/// A system prompt: a string, or (as Anthropic's `system`) an array of text blocks.
pub fn system_prompt<M, H: Host<M>>(value: &H) -> Result<String> {
    let Some(blocks) = value.list("systemPrompt")? else {
        return Ok(text(value, "systemPrompt")?.unwrap_or_default());
    };
    // ChatPreview's `system` is a string: its module leaves out reading text blocks.
    if !cfg!(feature = "plan-api") {
        return Err(super::not_in_build("systemPrompt"));
    }
    crate::formats::joined_text(&blocks.json("systemPrompt")?, "systemPrompt")
}

/// `reportedUsage`: one `{ messages, inputTokens | usage, systemPrompt?, summary?, tools? }`
/// or an array of them (missing: none).
pub fn reported<M, H: Host<M>>(value: &H) -> Result<Vec<Explicit>> {
    let path = "reportedUsage";
    if matches!(value.got(), Got::Absent) {
        return Ok(Vec::new());
    }
    if !cfg!(feature = "plan-api") {
        return Err(super::not_in_build(path));
    }
    match value.items(path)? {
        Some(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| one_reported(item, &text!(path, "[", i, "]")))
            .collect(),
        None => Ok(vec![one_reported(value, path)?]),
    }
}

fn one_reported<M, H: Host<M>>(item: &H, path: &str) -> Result<Explicit> {
    let invalid = |what: &str| Error::invalid_request(text!(path, what));
    if item.got() != Got::Object {
        return Err(invalid(": expected { messages, inputTokens }"));
    }
    let messages = whole(item, "messages", path)?.ok_or_else(|| invalid(".messages: missing"))?;
    let tokens = match whole(item, "inputTokens", path)? {
        Some(tokens) => tokens,
        None => {
            let usage = item.field("usage", path)?;
            if matches!(usage.got(), Got::Absent) {
                return Err(invalid(".inputTokens: missing"));
            }
            usage_of(&usage.json(&text!(path, ".usage"))?)
                .ok_or_else(|| invalid(".usage: not a usage object of a known shape"))?
                .input
        }
    };
    let tools_given = item.field("tools", path)?;
    let prompt = item.field("systemPrompt", path)?;
    Ok(Explicit {
        messages: messages as usize,
        tokens,
        system_prompt: match prompt.got() {
            Got::Absent => None,
            _ => Some(system_prompt(&prompt)?),
        },
        summary: text(&item.field("summary", path)?, &text!(path, ".summary"))?,
        tools: tools(&tools_given, &text!(path, ".tools"))?,
    })
}

/// A usage object given as JSON text, in any shape a format's usage has.
pub fn usage_of(text: &str) -> Option<MessageUsage> {
    let mut nodes = Vec::new();
    let end = context_compaction_scan::value(text.as_bytes(), 0, &mut nodes).ok()?;
    (end == text.len())
        .then(|| read_usage(context_compaction_scan::Tape::new(text, &nodes).root()))?
}

/// The property that marks the package's own heuristic estimator (its image tokens), so it is
/// counted natively instead of calling its `countTokens` once per text.
pub const NATIVE_MARKER: &str = "__contextCompactionHeuristicImageTokens";

/// A request's `estimator`: the heuristic (absent, or the package's own) or a host's
/// `{ countTokens(text), imageTokens? }`.
pub enum EstimatorOptions<H> {
    /// Counted natively.
    Native(Heuristic),
    /// Counted by the host.
    Host {
        /// The estimator object.
        object: H,
        /// Its `countTokens`.
        count: H,
        /// Its `imageTokens` (default [`DEFAULT_IMAGE_TOKENS`]).
        image_tokens: u64,
    },
}

/// Reads an `estimator`: absent is the default heuristic.
pub fn estimator<M, H: Host<M>>(value: &H) -> Result<EstimatorOptions<H>> {
    match value.got() {
        Got::Absent => return Ok(EstimatorOptions::Native(Heuristic::new())),
        Got::Object => {}
        _ => {
            return Err(Error::invalid_request(
                "estimator: expected an object with countTokens(text)",
            ));
        }
    }
    if let Got::Number(image_tokens) = value.field(NATIVE_MARKER, "estimator")?.got() {
        let image_tokens =
            whole_number(image_tokens, "estimator.imageTokens").map_err(Error::invalid_request)?;
        return Ok(EstimatorOptions::Native(Heuristic { image_tokens }));
    }
    let count = value.field("countTokens", "estimator")?;
    if count.got() != Got::Function {
        return Err(Error::invalid_request(
            "estimator.countTokens: expected a function",
        ));
    }
    let image_tokens = whole(value, "imageTokens", "estimator")?.unwrap_or(DEFAULT_IMAGE_TOKENS);
    Ok(EstimatorOptions::Host {
        object: value.clone(),
        count,
        image_tokens,
    })
}
