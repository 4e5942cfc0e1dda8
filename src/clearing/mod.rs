//! Light-touch compaction: clearing old tool results, and trimming one oversized result,
//! without a model call.
//!
//! Like [`crate::Compactor::plan`], planning is pure and cheap enough for a preview: it says
//! which results it would clear, what stands in their place and how many tokens that frees,
//! and carries the rewritten messages (new values; every other message stays the caller's).
//! The rewrite itself is each format's own (`Format::edit`), so a cleared result stays a valid
//! message of its format and keeps its call id.

mod text;

use std::collections::HashMap;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::facts::{MessageFacts, RequestFacts, estimator_failed};
use crate::formats::{Edit, Format, HostMessage};
use crate::message::{ContentBlock, Message, ToolResultMessage};
use crate::plan::{in_flight_start, keep_boundary};
use crate::summary::FileTracking;
use crate::token::Estimator;

pub use text::{CLEARED_PREFIX, placeholder, trim_middle};

/// `protectRecentTokens` when none is configured: the newest tool output that stays as it is.
pub const DEFAULT_PROTECT_RECENT_TOKENS: u64 = 40_000;

/// The smallest size, in estimated tokens, an oversized result is trimmed to.
pub const MIN_TRIMMED_TOKENS: u64 = 1_000;

/// Which tool results clearing may replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearingPolicy {
    /// Tokens of the newest tool output (results counted newest first) that are never cleared.
    pub protect_recent_tokens: u64,
    /// Tools whose results are never cleared.
    pub never_clear: Vec<String>,
    /// Also replace the arguments of the calls whose results are cleared with `{}`.
    pub clear_arguments: bool,
    /// Which tools read files and where their path is (for the placeholder).
    pub file_tracking: FileTracking,
}

impl Default for ClearingPolicy {
    fn default() -> Self {
        ClearingPolicy {
            protect_recent_tokens: DEFAULT_PROTECT_RECENT_TOKENS,
            never_clear: Vec::new(),
            clear_arguments: false,
            file_tracking: FileTracking::default(),
        }
    }
}

/// One tool result a clearing (or trimming) replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearedResult {
    /// The index of the message that holds it.
    pub index: usize,
    /// The id of the call it answers.
    pub tool_call_id: String,
    /// The tool's name, from the result or its call.
    pub tool_name: Option<String>,
    /// Its estimated tokens before.
    pub tokens: u64,
    /// The text that replaces its content.
    pub text: String,
}

/// A planned clearing or trimming: what changes and what it frees.
#[derive(Debug, Clone, PartialEq)]
pub struct Clearing {
    /// The results replaced, oldest first.
    pub results: Vec<ClearedResult>,
    /// The indices of the messages whose calls' arguments are cleared.
    pub argument_messages: Vec<usize>,
    /// The rewritten messages, by index, in order; all others stay as they are.
    pub messages: Vec<(usize, Value)>,
    /// The request's estimate before.
    pub estimate_before: u64,
    /// The estimate with the rewritten messages, by the same estimator.
    pub estimate_after: u64,
}

impl Clearing {
    /// The estimated tokens the rewrite frees.
    pub fn tokens_freed(&self) -> u64 {
        self.estimate_before.saturating_sub(self.estimate_after)
    }
}

/// A tool result and where it is.
struct Found<'m> {
    index: usize,
    result: &'m ToolResultMessage,
    tokens: u64,
}

/// The conversation as clearing reads it: host messages, their units and the calls by id.
struct Read<'v> {
    format: Format,
    values: &'v [Value],
    hosts: Vec<HostMessage>,
    estimator: &'v dyn Estimator,
}

impl<'v> Read<'v> {
    fn new(format: Format, values: &'v [Value], estimator: &'v dyn Estimator) -> Result<Self> {
        let hosts = values
            .iter()
            .enumerate()
            .map(|(i, value)| format.read(value, &format!("messages[{i}]")))
            .collect::<Result<_>>()?;
        Ok(Read {
            format,
            values,
            hosts,
            estimator,
        })
    }

    /// Every tool result, oldest first, with its estimated tokens.
    fn results(&self) -> Result<Vec<Found<'_>>> {
        let mut found = Vec::new();
        for (index, host) in self.hosts.iter().enumerate() {
            for unit in &host.units {
                if let Message::ToolResult(result) = unit {
                    let tokens = MessageFacts::of(unit, self.estimator)
                        .map_err(|e| estimator_failed(&format!("messages[{index}]"), e))?
                        .tokens;
                    found.push(Found {
                        index,
                        result,
                        tokens,
                    });
                }
            }
        }
        Ok(found)
    }

    /// The latest call with each id: its message index, name and arguments.
    fn calls(&self) -> HashMap<&str, (usize, &str, &Value)> {
        let mut calls = HashMap::new();
        for (index, host) in self.hosts.iter().enumerate() {
            for call in host.units.iter().flat_map(Message::calls) {
                calls.insert(
                    call.id.as_str(),
                    (index, call.name.as_str(), &call.arguments),
                );
            }
        }
        calls
    }

    /// The calls (message index, call id) of `results` whose messages are in `messages` (any
    /// message when `None`).
    fn argument_calls(
        &self,
        results: &[ClearedResult],
        messages: Option<&[usize]>,
    ) -> Vec<(usize, String)> {
        let calls = self.calls();
        results
            .iter()
            .filter_map(|r| {
                let (index, ..) = calls.get(r.tool_call_id.as_str())?;
                messages
                    .is_none_or(|m| m.contains(index))
                    .then(|| (*index, r.tool_call_id.clone()))
            })
            .collect()
    }

    /// Rewrites the messages `results` and `arguments` (message index, call id) name and
    /// estimates the change. (Plain vectors rather than maps: each map type adds to the wasm.)
    fn rewrite(
        &self,
        facts: &RequestFacts,
        results: Vec<ClearedResult>,
        arguments: Vec<(usize, String)>,
    ) -> Result<Clearing> {
        let mut indices: Vec<usize> = results
            .iter()
            .map(|r| r.index)
            .chain(arguments.iter().map(|(i, _)| *i))
            .collect();
        indices.sort_unstable();
        indices.dedup();
        let (mut messages, mut freed) = (Vec::new(), 0u64);
        for index in indices {
            let (Some(value), Some(old)) = (self.values.get(index), facts.messages.get(index))
            else {
                continue;
            };
            let edit = Edit {
                result: &|id| {
                    let result = results
                        .iter()
                        .find(|r| r.index == index && r.tool_call_id == id);
                    result.map(|r| r.text.clone())
                },
                arguments: &|id| arguments.iter().any(|(i, call)| *i == index && call == id),
            };
            let Some(new) = self.format.edit(value, &edit) else {
                continue;
            };
            let path = format!("messages[{index}]");
            let tokens = self
                .format
                .facts_json(&new.to_string(), &path, self.estimator)?
                .tokens;
            freed += old.tokens.saturating_sub(tokens);
            messages.push((index, new));
        }
        // `messages` is in index order.
        let rewritten = |i: &usize| messages.binary_search_by_key(i, |(m, _)| *m).is_ok();
        let mut argument_messages: Vec<usize> = arguments
            .iter()
            .map(|(i, _)| *i)
            .filter(rewritten)
            .collect();
        argument_messages.dedup();
        let estimate_before = facts.total();
        Ok(Clearing {
            results: results
                .into_iter()
                .filter(|r| rewritten(&r.index))
                .collect(),
            argument_messages,
            messages,
            estimate_before,
            estimate_after: estimate_before.saturating_sub(facts.calibration.scale(freed)),
        })
    }
}

/// Plans clearing old tool results of `messages` (host messages of `format`, whose facts are
/// `facts`): every result older than both the kept suffix (`keep_recent_tokens`, as the summary
/// plan keeps it) and the in-flight calls, outside the newest `protect_recent_tokens` of tool
/// output, of a tool not in `never_clear`, not cleared already, and larger than its
/// placeholder. `None` when there is none.
pub fn plan(
    format: Format,
    messages: &[Value],
    facts: &RequestFacts,
    policy: &ClearingPolicy,
    keep_recent_tokens: u64,
    estimator: &dyn Estimator,
) -> Result<Option<Clearing>> {
    check_length(messages, facts)?;
    let read = Read::new(format, messages, estimator)?;
    let protected_from =
        keep_boundary(&facts.messages, keep_recent_tokens).min(in_flight_start(&facts.messages));
    let calls = read.calls();
    let found = read.results()?;
    let mut newer_output = 0u64;
    let mut chosen = Vec::new();
    for f in found.iter().rev() {
        let protected = newer_output < policy.protect_recent_tokens;
        newer_output += f.tokens;
        if protected || f.index >= protected_from || cleared_already(f.result) {
            continue;
        }
        let call = calls.get(f.result.tool_call_id.as_str());
        let name = f.result.tool_name.as_deref().or(call.map(|c| c.1));
        if name.is_some_and(|n| policy.never_clear.iter().any(|never| never == n)) {
            continue;
        }
        let path = call.and_then(|(_, name, arguments)| read_path(policy, name, arguments));
        let text = placeholder(name, f.tokens, path);
        let placeholder_tokens = estimator
            .count_tokens(&text)
            .map_err(|e| estimator_failed("clearing placeholder", e))?;
        if placeholder_tokens >= f.tokens {
            continue;
        }
        chosen.push(ClearedResult {
            index: f.index,
            tool_call_id: f.result.tool_call_id.clone(),
            tool_name: name.map(str::to_owned),
            tokens: f.tokens,
            text,
        });
    }
    if chosen.is_empty() {
        return Ok(None);
    }
    chosen.reverse();
    let arguments = if policy.clear_arguments {
        read.argument_calls(&chosen, None)
    } else {
        Vec::new()
    };
    let clearing = read.rewrite(facts, chosen, arguments)?;
    Ok((!clearing.messages.is_empty()).then_some(clearing))
}

/// Plans trimming the middle of the newest tool result so that the request's estimate comes
/// down to `budget`: `None` when it is not above it, there is no tool result, or trimming that
/// one result to [`MIN_TRIMMED_TOKENS`] would not be enough.
pub fn trim(
    format: Format,
    messages: &[Value],
    facts: &RequestFacts,
    budget: u64,
    estimator: &dyn Estimator,
) -> Result<Option<Clearing>> {
    check_length(messages, facts)?;
    let excess = facts.total().saturating_sub(budget);
    if excess == 0 {
        return Ok(None);
    }
    let read = Read::new(format, messages, estimator)?;
    let found = read.results()?;
    let Some(newest) = found.last() else {
        return Ok(None);
    };
    // The excess in the estimator's own units (the facts are calibrated).
    let ratio = facts.calibration.ratio().max(f64::MIN_POSITIVE);
    let excess_raw = (excess as f64 / ratio).ceil() as u64;
    // Room for the marker and the estimate's rounding.
    let target = newest.tokens.saturating_sub(excess_raw + 64);
    if target < MIN_TRIMMED_TOKENS {
        return Ok(None);
    }
    let text = result_text(newest.result);
    let chars = text.chars().count();
    let keep = (chars as f64 * target as f64 / newest.tokens.max(1) as f64) as usize;
    let Some(trimmed) = trim_middle(&text, keep, newest.tokens - target) else {
        return Ok(None);
    };
    let result = ClearedResult {
        index: newest.index,
        tool_call_id: newest.result.tool_call_id.clone(),
        tool_name: newest.result.tool_name.clone(),
        tokens: newest.tokens,
        text: trimmed,
    };
    let clearing = read.rewrite(facts, vec![result], Vec::new())?;
    Ok((clearing.estimate_after <= budget && !clearing.messages.is_empty()).then_some(clearing))
}

fn check_length(messages: &[Value], facts: &RequestFacts) -> Result<()> {
    if messages.len() != facts.messages.len() {
        return Err(Error::invalid_request(format!(
            "clearing: {} messages but facts for {}",
            messages.len(),
            facts.messages.len()
        )));
    }
    Ok(())
}

fn cleared_already(result: &ToolResultMessage) -> bool {
    matches!(result.content.first(), Some(ContentBlock::Text(t)) if t.starts_with(CLEARED_PREFIX))
}

/// The text of a result's content (images are dropped by a trim).
fn result_text(result: &ToolResultMessage) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.as_str()),
            ContentBlock::Image | ContentBlock::Opaque(_) => None,
        })
        .collect();
    texts.join("\n")
}

/// The path of a file-reading call, for its placeholder.
fn read_path<'a>(policy: &ClearingPolicy, name: &str, arguments: &'a Value) -> Option<&'a str> {
    let tracking = &policy.file_tracking;
    if !tracking.read_tools.iter().any(|tool| tool == name) {
        return None;
    }
    tracking
        .path_keys
        .iter()
        .find_map(|key| arguments.get(key).and_then(Value::as_str))
}

/// Rebuilds a planned clearing (or trimming) from what its plan says: the results with their
/// new texts, and the messages whose calls lose their arguments. The plan is trusted; results
/// no longer in the messages are skipped.
pub fn replay(
    format: Format,
    messages: &[Value],
    facts: &RequestFacts,
    results: Vec<ClearedResult>,
    argument_messages: &[usize],
    estimator: &dyn Estimator,
) -> Result<Clearing> {
    check_length(messages, facts)?;
    let read = Read::new(format, messages, estimator)?;
    let arguments = read.argument_calls(&results, Some(argument_messages));
    read.rewrite(facts, results, arguments)
}

/// Whether a clearing alone brings the estimate to the trigger (`budget × trigger_ratio`) or
/// below, so that no summary is needed.
pub fn is_enough(clearing: &Clearing, budget: u64, trigger_ratio: f64) -> bool {
    clearing.estimate_after as f64 <= budget as f64 * trigger_ratio
}
