//! Light-touch compaction: clearing old tool results, and trimming one oversized result,
//! without a model call.
//!
//! Like [`crate::Compactor::plan`], planning is pure and cheap enough for a preview: it says
//! which results it would clear, what stands in their place and how many tokens that frees.
//! It reads the messages once, through the format readers ([`Finder`] is their sink), and
//! works out the estimate after without rewriting anything. The rewrite comes after, of the
//! cleared messages alone, and is each format's own ([`crate::formats::Format::edit_json`]), so
//! a cleared result stays a valid message of its format and keeps its call id.

mod eligible;
mod find;
mod text;

use crate::error::Result;
use crate::facts::{RequestFacts, estimator_failed};
use crate::formats::{Edit, Edited, Format};
use crate::message::{AssistantBlock, ContentBlock, Message};
use crate::plan::Plan;
use crate::record::{Receipt, Record};
use crate::summary::FileTracking;
use crate::token::Estimator;

use eligible::{Calls, eligible, repeated};
pub use eligible::{Limits, clearable, read_indices, stored_clearable};
pub use find::{Finder, Found, FoundCall, FoundResult};
pub use text::{CLEARED_PREFIX, placeholder, trim_middle};

/// `protectRecentTokens` when none is configured, as a share of the input budget: the newest
/// tenth of the budget's worth of tool output stays as it is. A fixed amount would be a third of
/// a 128k window's budget, and the clearings that budget leaves room for free too little to
/// spare a summary (docs/clearing.md has the measurements).
pub const DEFAULT_PROTECT_RECENT_SHARE: f64 = 0.1;

/// The most tool output the default protects, and what it protects when the budget is unknown.
pub const DEFAULT_PROTECT_RECENT_TOKENS: u64 = 40_000;

/// With `clearArguments` not configured, the arguments of a cleared call are cleared when they
/// free at least this many tokens: the file contents of an `edit` or a `write`, not the path
/// or command that says what the call did.
pub const LARGE_ARGUMENTS_TOKENS: u64 = 200;

/// The least a clearing must free, as a share of the input budget, to be taken instead of a
/// summary: each clearing changes the request's prefix and so costs the provider's prompt
/// cache, and one that frees a few hundred tokens only puts the next clearing (or the summary)
/// a turn or two later. Replaying the session in `tests/fixtures/` at 128k, it left 6
/// clearings of 8 (the least freeing 6,322 tokens, not 235) and no summary more
/// (bench/README.md).
pub const MIN_FREED_SHARE: f64 = 0.02;

/// The smallest size, in estimated tokens, an oversized result is trimmed to.
pub const MIN_TRIMMED_TOKENS: u64 = 1_000;

/// Which tool results clearing may replace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClearingPolicy {
    /// Tokens of the newest tool output (results counted newest first) that are never cleared;
    /// `None`: a share of the input budget ([`ClearingPolicy::protected_tokens`]).
    pub protect_recent_tokens: Option<u64>,
    /// Tools whose results are never cleared.
    pub never_clear: Vec<String>,
    /// Whether to replace the arguments of the calls whose results are cleared with `{}`;
    /// `None`: only large ones ([`ClearingPolicy::clears_arguments`]).
    pub clear_arguments: Option<bool>,
    /// Which tools read files and where their path is (for the placeholder).
    pub file_tracking: FileTracking,
}

impl ClearingPolicy {
    /// The newest tool output never cleared, for a request with `input_token_budget`: the
    /// configured amount, or [`DEFAULT_PROTECT_RECENT_SHARE`] of the budget, at most
    /// [`DEFAULT_PROTECT_RECENT_TOKENS`] (that much when the budget is unknown).
    pub fn protected_tokens(&self, input_token_budget: Option<u64>) -> u64 {
        self.protect_recent_tokens.unwrap_or_else(|| {
            input_token_budget.map_or(DEFAULT_PROTECT_RECENT_TOKENS, |budget| {
                ((budget as f64 * DEFAULT_PROTECT_RECENT_SHARE) as u64)
                    .min(DEFAULT_PROTECT_RECENT_TOKENS)
            })
        })
    }

    /// Whether the arguments of a cleared call, whose clearing frees `freed` tokens, are
    /// cleared with its result: as configured, or when they are large
    /// ([`LARGE_ARGUMENTS_TOKENS`]).
    pub fn clears_arguments(&self, freed: u64) -> bool {
        self.clear_arguments
            .unwrap_or(freed >= LARGE_ARGUMENTS_TOKENS)
    }

    /// Whether a clearing may clear any arguments (and so needs what clearing each frees).
    pub fn reads_arguments(&self) -> bool {
        self.clear_arguments != Some(false)
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clearing {
    /// The results replaced, oldest first.
    pub results: Vec<ClearedResult>,
    /// The indices of the messages whose calls' arguments are cleared.
    pub argument_messages: Vec<usize>,
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

    /// The record of this clearing of a request whose summary is `summary`: the summary
    /// unchanged, nothing summarized (`first_kept_index` 0), the estimates before and after.
    pub fn record(&self, summary: &str) -> Record {
        Record {
            summary: summary.to_owned(),
            first_kept_index: 0,
            first_kept_part: 0,
            estimate_before: self.estimate_before,
            estimate_after: self.estimate_after,
            usage: None,
            trimmed: false,
            receipt: Receipt {
                cleared: self.messages(),
                ..Receipt::NONE
            },
        }
    }

    /// The messages this clearing rewrites (a result, or a call's arguments), in order.
    pub fn messages(&self) -> Vec<usize> {
        let mut messages: Vec<usize> = self.results.iter().map(|r| r.index).collect();
        messages.extend(&self.argument_messages);
        messages.sort_unstable();
        messages.dedup();
        messages
    }

    /// This clearing as a summary plan that summarizes nothing (what a host that reads only
    /// summary plans sees; a `ContextManager` reports it so), for a request with `facts`.
    pub fn as_plan(&self, facts: &RequestFacts) -> Plan {
        nothing_summarized(facts, self.estimate_after)
    }
}

/// The plan of a rewrite of a request with `facts` that summarizes nothing (a clearing or a
/// trim) and leaves an estimate of `estimate_after`.
pub(crate) fn nothing_summarized(facts: &RequestFacts, estimate_after: u64) -> Plan {
    Plan {
        first_kept_index: 0,
        first_kept_part: 0,
        messages_to_summarize: 0..0,
        turn_prefix_messages: 0..0,
        split_turn: false,
        estimate_before: facts.total(),
        estimate_after_without_summary: estimate_after.saturating_sub(facts.summary),
        message_tokens: crate::facts::tokens_each(&facts.messages),
    }
}

impl Clearing {
    /// The messages it rewrites, in index order, with what changes in each; indices from
    /// `len` on (past the `len` messages) are left out.
    pub fn edits(&self, len: usize) -> Vec<MessageEdit<'_>> {
        // Marks rather than a sort: each sort instantiated costs the module kilobytes.
        let mut marked = vec![false; len];
        let indices = self.results.iter().map(|r| r.index);
        for i in indices.chain(self.argument_messages.iter().copied()) {
            if let Some(mark) = marked.get_mut(i) {
                *mark = true;
            }
        }
        let ids: Vec<&str> = self
            .results
            .iter()
            .map(|r| r.tool_call_id.as_str())
            .collect();
        (0..len)
            .filter(|&i| marked.get(i) == Some(&true))
            .map(|index| MessageEdit {
                index,
                results: self
                    .results
                    .iter()
                    .filter(|r| r.index == index)
                    .map(|r| (r.tool_call_id.as_str(), r.text.as_str()))
                    .collect(),
                arguments: match self.argument_messages.contains(&index) {
                    true => ids.clone(),
                    false => Vec::new(),
                },
            })
            .collect()
    }

    /// The clearing of `results` and the arguments in `argument_messages`, its estimate after
    /// from the tokens of the rewritten messages (`rewritten`: index, and tokens before and
    /// after, in the estimator's own units: the only messages that changed). Results and
    /// argument messages not rewritten are dropped.
    pub fn of_rewrite(
        facts: &RequestFacts,
        results: Vec<ClearedResult>,
        argument_messages: Vec<usize>,
        rewritten: &[(usize, u64, u64)],
    ) -> Clearing {
        let is_rewritten = |i: &usize| rewritten.iter().any(|(r, _, _)| r == i);
        // Old and new tokens summed apart: a placeholder may be larger than a small result
        // it replaces (cleared with its call's large arguments), and that growth counts.
        let (mut old_tokens, mut new_tokens) = (0u64, 0u64);
        for &(i, old, new) in rewritten {
            if i < facts.messages.len() {
                old_tokens += old;
                new_tokens += new;
            }
        }
        // Calibrated once, as a plan calibrates what it frees ([`freeing`]): the record of a
        // clearing applied says what its plan said.
        let results = results.into_iter().filter(|r| is_rewritten(&r.index));
        let arguments = argument_messages.into_iter().filter(is_rewritten);
        let freed = old_tokens.saturating_sub(new_tokens);
        freeing(facts, results.collect(), arguments.collect(), freed)
    }
}

/// What a clearing changes in one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageEdit<'c> {
    /// The message's index.
    pub index: usize,
    /// The results it rewrites: call id and new text.
    pub results: Vec<(&'c str, &'c str)>,
    /// The ids of the calls whose arguments it clears.
    pub arguments: Vec<&'c str>,
}

/// The clearing of `results` and of the arguments in `argument_messages`, which free `freed`
/// tokens (each result its tokens less those of a result holding only its new text).
fn freeing(
    facts: &RequestFacts,
    results: Vec<ClearedResult>,
    argument_messages: Vec<usize>,
    freed: u64,
) -> Clearing {
    let estimate_before = facts.total();
    Clearing {
        results,
        argument_messages,
        estimate_before,
        estimate_after: estimate_before.saturating_sub(facts.calibration.scale(freed)),
    }
}

/// The tokens of a result holding only `text`.
fn result_tokens(text: &str, estimator: &dyn Estimator) -> Result<u64> {
    let tokens = estimator.count_tokens(text);
    let tokens = tokens.map_err(|e| estimator_failed("clearing placeholder", e))?;
    Ok(estimator.framing_tokens() + tokens)
}

/// Plans clearing old tool results of a conversation whose facts are `facts` and whose
/// results and calls are `found`, within `limits`: every result
/// [`clearable`] (outside the protected range, of a tool not in `never_clear`, that its format
/// can hold as text), not cleared already, and larger than its placeholder, or, with
/// `clear_arguments` not configured, whose call's large arguments go with it. `None` when there
/// is none.
pub fn plan(
    found: &Found,
    facts: &RequestFacts,
    policy: &ClearingPolicy,
    limits: Limits,
    estimator: &dyn Estimator,
) -> Result<Option<Clearing>> {
    let calls = Calls::of(found);
    let mut freed = 0u64;
    // What placeholders larger than the results they replace add (their framing may be).
    let mut grown = 0u64;
    let mut chosen = Vec::new();
    // Where each chosen result's call is and what clearing its arguments frees.
    let mut arguments = Vec::new();
    // The messages whose calls' arguments are cleared (marks rather than a sort).
    let mut marked = vec![false; facts.messages.len()];
    for (k, f, name) in eligible(found, facts, policy, limits, &calls) {
        // A result whose id its message holds twice may still be cleared by a route that
        // names it by its step (`clearable`), not by this plan's rewrite.
        if f.cleared || repeated(found, k) {
            continue;
        }
        let call = calls.answered(k);
        let text = placeholder(name, f.tokens, call.and_then(|c| c.path.as_deref()));
        let after = result_tokens(&text, estimator)?;
        let own = call.and_then(|c| Some((c.index, c.arguments_freed?)));
        let clears = own.filter(|&(_, tokens)| policy.clears_arguments(tokens));
        if after - estimator.framing_tokens() >= f.tokens {
            // A small result goes only with its call's large arguments, by default: an old
            // `edit` or `write` answers in a line and holds the file in its arguments.
            match clears {
                Some((_, tokens)) if policy.clear_arguments.is_none() => {
                    if f.tokens + tokens <= after {
                        continue;
                    }
                }
                _ => continue,
            }
        }
        freed += f.tokens.saturating_sub(after);
        grown += after.saturating_sub(f.tokens);
        if let Some((index, _)) = clears
            && let Some(mark) = marked.get_mut(index)
        {
            *mark = true;
        }
        arguments.extend(own);
        chosen.push(ClearedResult {
            index: f.index,
            tool_call_id: f.id.clone(),
            tool_name: name.map(str::to_owned),
            tokens: f.tokens,
            text,
        });
    }
    if chosen.is_empty() {
        return Ok(None);
    }
    // A message's arguments are cleared together ([`Clearing::edits`]): those of every cleared
    // call in a marked message go, small ones beside a large one too.
    for (index, tokens) in arguments {
        if marked.get(index) == Some(&true) {
            freed += tokens;
        }
    }
    let argument_messages = (0..marked.len())
        .filter(|&i| marked.get(i) == Some(&true))
        .collect();
    let freed = freed.saturating_sub(grown);
    Ok(Some(freeing(facts, chosen, argument_messages, freed)))
}

/// Plans trimming the middle of the newest tool result (`found` kept its text: see
/// [`Finder::new`]) so that the request's estimate comes down to `budget`: `None` when it is
/// not above it, there is no tool result, or trimming that one result to
/// [`MIN_TRIMMED_TOKENS`] would not be enough.
pub fn trim(
    found: &Found,
    facts: &RequestFacts,
    budget: u64,
    estimator: &dyn Estimator,
) -> Result<Option<Clearing>> {
    let excess = facts.total().saturating_sub(budget);
    let last = found.results.len().saturating_sub(1);
    let newest = found.results.last();
    let pinned = |r: &&FoundResult| facts.messages.get(r.index).is_some_and(|m| m.pinned());
    let trimmable = |r: &&FoundResult| r.editable && !pinned(r) && !repeated(found, last);
    let Some(newest) = newest.filter(|r| excess > 0 && trimmable(r)) else {
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
    let text = newest.text.as_deref().unwrap_or("");
    let chars = text.chars().count();
    let keep = (chars as f64 * target as f64 / newest.tokens.max(1) as f64) as usize;
    let Some(trimmed) = trim_middle(text, keep, newest.tokens - target, "tool result") else {
        return Ok(None);
    };
    let result = ClearedResult {
        index: newest.index,
        tool_call_id: newest.id.clone(),
        tool_name: newest.name.clone(),
        tokens: newest.tokens,
        text: trimmed,
    };
    let freed = result
        .tokens
        .saturating_sub(result_tokens(&result.text, estimator)?);
    let clearing = freeing(facts, vec![result], Vec::new(), freed);
    Ok((clearing.estimate_after <= budget).then_some(clearing))
}

/// Canonical `messages` with `clearing` applied: the cleared results hold their new text and
/// the cleared calls `{}`; every other message is a copy of the caller's.
pub fn clear_messages(messages: &[Message], clearing: &Clearing) -> Vec<Message> {
    let mut out = messages.to_vec();
    for edit in clearing.edits(messages.len()) {
        match out.get_mut(edit.index) {
            Some(Message::ToolResult(result)) => {
                let new = edit
                    .results
                    .iter()
                    .find(|(id, _)| *id == result.tool_call_id);
                if let Some((_, text)) = new {
                    result.content = vec![ContentBlock::Text((*text).to_owned())];
                }
            }
            Some(Message::Assistant(assistant)) => {
                for block in &mut assistant.content {
                    match block {
                        AssistantBlock::ToolCall(call)
                            if edit.arguments.contains(&call.id.as_str()) =>
                        {
                            call.arguments = crate::json::Json::empty_object();
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The host messages of `format` that `clearing` rewrites, rewritten (`len` messages, whose
/// JSON text `text` gives for an index and the path that names it): index and new message, in
/// index order. A message in which nothing changes is left out.
pub fn rewrite_json(
    format: Format,
    clearing: &Clearing,
    len: usize,
    mut text: impl FnMut(usize, &str) -> Result<String>,
) -> Result<Vec<(usize, Edited)>> {
    let mut out = Vec::new();
    for edit in clearing.edits(len) {
        let path = text!("messages[", edit.index, "]");
        let edits = Edit {
            results: &edit.results,
            arguments: &edit.arguments,
        };
        if let Some(edited) = format.edit_json(&text(edit.index, &path)?, &path, &edits)? {
            out.push((edit.index, edited));
        }
    }
    Ok(out)
}

/// What `planned` did once applied to the messages of a request with `facts` (host messages
/// of `format`, whose JSON text `text` gives as [`rewrite_json`] reads it, `rewritten` by
/// it): the results and argument messages it names that were rewritten (a plan is trusted;
/// what no longer matches a message is left out), and the estimate after from the messages
/// before and after the rewrite, counted by `estimator` ([`Clearing::of_rewrite`]).
pub fn done_json(
    planned: Clearing,
    format: Format,
    facts: &RequestFacts,
    rewritten: &[(usize, Edited)],
    mut text: impl FnMut(usize, &str) -> Result<String>,
    estimator: &dyn Estimator,
) -> Result<Clearing> {
    let done = |index: usize, done: &dyn Fn(&Edited) -> bool| {
        rewritten.iter().any(|(i, m)| *i == index && done(m))
    };
    let results = planned.results.into_iter();
    let results = results.filter(|r| done(r.index, &|m| m.results.contains(&r.tool_call_id)));
    let arguments = planned.argument_messages.into_iter();
    let arguments = arguments.filter(|&i| done(i, &|m| m.arguments));
    let mut tokens = Vec::with_capacity(rewritten.len());
    for (index, edited) in rewritten {
        let path = text!("messages[", index, "]");
        let before = format.facts_json(&text(*index, &path)?, &path, estimator)?;
        let after = format.facts_json(&edited.text, &path, estimator)?;
        tokens.push((*index, before.tokens, after.tokens));
    }
    Ok(Clearing::of_rewrite(
        facts,
        results.collect(),
        arguments.collect(),
        &tokens,
    ))
}

/// Whether a clearing is taken instead of a summary: it alone brings the estimate to the
/// trigger (`budget × trigger_ratio`) or below, and frees at least [`MIN_FREED_SHARE`] of the
/// budget.
pub fn is_enough(clearing: &Clearing, budget: u64, trigger_ratio: f64) -> bool {
    clearing.estimate_after as f64 <= budget as f64 * trigger_ratio
        && clearing.tokens_freed() as f64 >= budget as f64 * MIN_FREED_SHARE
}
