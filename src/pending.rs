//! A pending draft committed, and what is left planned again. A draft made ahead of time (see
//! [`crate::manager::ContextManager::prepare_ahead`]) is committed by the maintenance that
//! passes the threshold; when the conversation grew past it meanwhile, what the commit left is
//! still over the threshold and maintenance compacts again in the same call. This module is
//! that rule, for maintenance (which carries it out on its state) and for a preview (which
//! shows it): the facts of what a commit left ([`left`]), whether maintenance goes on
//! ([`still_over`]), the plan of both steps in the terms of the request they started from
//! ([`plan`]), the record of both ([`merged`], or [`cleared_after`] when what was left
//! was cleared or trimmed), and where each message the state after both holds came from
//! ([`origins`], [`origins_through`]).
//!
//! What a commit left is worked out from the facts of the request it was made on, not read
//! again: its estimate is the one the commit's record gives, so that maintenance and a
//! preview that holds only those facts decide alike.

use crate::apply::{self, CommitInput};
use crate::compactor::Planned;
use crate::draft::Draft;
use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts, Step, Steps};
use crate::ids::Ids;
use crate::plan::Plan;
use crate::record::{Receipt, Record};

/// The plan a committed cut carried out over a request with `facts`: every message before
/// message `first` summarized but the pinned ones, and of message `first` the parts before
/// `part` (a draft does not say where a split turn started, so no turn prefix).
pub fn cut_plan(facts: &RequestFacts, first: usize, part: usize) -> Plan {
    let kept = apply::kept_parts(facts, first, part);
    Plan {
        first_kept_index: first,
        first_kept_part: part,
        messages_to_summarize: 0..first,
        turn_prefix_messages: first..first,
        split_turn: part > 0,
        estimate_before: facts.total(),
        estimate_after_without_summary: kept,
        message_tokens: crate::facts::tokens_each(&facts.messages),
    }
}

/// Where a commit cuts: the first kept message and part.
type Cut = (usize, usize);

const fn cut_of(record: &Record) -> Cut {
    (record.first_kept_index, record.first_kept_part)
}

/// Where a message a rewrite kept came from in the request (or state) it was made on: that
/// message, and the part of it the kept message starts at (0; for the message a cut fell
/// inside, the cut's part: the kept message holds its parts from there on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// The message's index in the request.
    pub index: usize,
    /// The part of that message the kept one starts at.
    pub part: usize,
}

/// Where each message a summary or a commit at `record`'s cut kept of a request with `facts`
/// came from, in the kept order (the pinned messages before the cut, then the messages from
/// the cut on, the one it cut inside from its cut part), as the rewrite keeps them.
pub fn origins(facts: &RequestFacts, record: &Record) -> Vec<Origin> {
    let (first, part) = cut_of(record);
    let mut origins = Vec::new();
    for index in kept_from(facts, (first, part)) {
        let part = if index == first { part } else { 0 };
        origins.push(Origin { index, part });
    }
    origins
}

/// The origins of `len` messages rewritten in place (a clearing, a trim): each is its own.
pub fn in_place(len: usize) -> Vec<Origin> {
    let mut origins = Vec::with_capacity(len);
    for index in 0..len {
        origins.push(Origin { index, part: 0 });
    }
    origins
}

/// `later`, where each message a second rewrite kept came from in what a first rewrite kept,
/// in the terms of the request the first was made on (`earlier`: where each message the first
/// kept came from there): the index through `earlier`, the parts counted from the start of
/// the request's message.
pub fn origins_through(earlier: &[Origin], later: &[Origin]) -> Vec<Origin> {
    let mut origins = Vec::with_capacity(later.len());
    for o in later {
        if let Some(e) = earlier.get(o.index) {
            let (index, part) = (e.index, e.part + o.part);
            origins.push(Origin { index, part });
        }
    }
    origins
}

fn kept_from(facts: &RequestFacts, (first, _): Cut) -> Vec<usize> {
    // A plain loop: the plan's `kept` iterator linked its own generic code here.
    let mut kept = Vec::new();
    for (i, f) in facts.messages.iter().enumerate() {
        if i >= first || f.is_pinned() {
            kept.push(i);
        }
    }
    kept
}

/// The facts of what committing a draft left of a request with `facts`, `record` the
/// commit's: the new summary (what the record's estimate holds beyond the kept parts), the
/// pinned messages before the cut, and the messages from the cut on, a message cut inside
/// from its cut on. Calibrated as `facts` were, but no longer anchored: the request the
/// provider counted is gone. Their total is the record's `estimate_after`.
pub fn left(facts: &RequestFacts, record: &Record) -> RequestFacts {
    left_at(facts, cut_of(record), record.estimate_after)
}

/// [`left`] of a commit at `cut` whose estimate after is `estimate_after`.
fn left_at(facts: &RequestFacts, (first, part): Cut, estimate_after: u64) -> RequestFacts {
    let kept_parts = apply::kept_parts(facts, first, part);
    // The messages [`kept_from`] names, in one pass over the facts.
    let mut messages = Vec::new();
    for (i, f) in facts.messages.iter().enumerate() {
        if i == first && part > 0 {
            messages.push(from_part(f, part));
        } else if i >= first || f.is_pinned() {
            messages.push(f.clone());
        }
    }
    let mut calibration = facts.calibration;
    calibration.adjustment = 0;
    calibration.anchor = None;
    RequestFacts {
        system_prompt: facts.system_prompt,
        summary: estimate_after.saturating_sub(kept_parts),
        tools: facts.tools,
        messages,
        calibration,
        provider_compaction: facts.provider_compaction,
    }
}

/// The facts of message `f` from part `part` on (the start of one of its later steps): that
/// step first, the later ones after it, their parts counted from it, and the ids of their
/// calls and results (a step's ids are a run of the message's, in order).
fn from_part(f: &MessageFacts, part: usize) -> MessageFacts {
    // One plain loop: iterator chains here linked generic code of their own.
    let (mut calls, mut results, mut steps) = (0, 0, Steps::default());
    for s in f.steps.iter().filter(|s| s.part >= part) {
        calls += s.calls;
        results += s.results;
        if s.part > part {
            steps.push(Step {
                part: s.part - part,
                ..*s
            });
        }
    }
    let tail = |ids: &Ids, count: usize| ids.slice(ids.len().saturating_sub(count), count);
    MessageFacts {
        tokens: f.tokens_from(part),
        role: f.role,
        flags: f.flags,
        tool_call_ids: tail(&f.tool_call_ids, calls),
        tool_result_ids: tail(&f.tool_result_ids, results),
        steps,
    }
}

/// The record of committing `draft` onto a request with `input.facts` (which it covers: the
/// caller checked), as maintenance's commit makes it.
pub fn committed(input: CommitInput<'_>, draft: &Draft) -> Result<Record> {
    Ok(apply::commit_with_facts(input, draft)?.record)
}

/// Whether maintenance goes on after a commit (`record`) over a request with `facts`: the
/// facts of what is left ([`left`]) when they are still over `threshold`, `None` when the
/// commit was enough.
pub fn still_over(facts: &RequestFacts, record: &Record, threshold: f64) -> Option<RequestFacts> {
    over(left(facts, record), threshold)
}

fn over(left: RequestFacts, threshold: f64) -> Option<RequestFacts> {
    (left.total() as f64 > threshold).then_some(left)
}

/// Whether maintenance looks at a pending draft for a request of `total` tokens: over the
/// threshold (`budget` times `trigger_ratio`).
pub fn due(total: u64, budget: u64, trigger_ratio: f64) -> bool {
    total as f64 > budget as f64 * trigger_ratio
}

/// The plan maintenance carries out over a request (`input.facts`) when pending draft `draft`
/// covers it (the caller checked), `None` below the threshold (`budget` times
/// `trigger_ratio`: the draft is not looked at): the draft committed, then, when what is left
/// is still over the threshold ([`still_over`]), the summary `decide` plans over it, as
/// maintenance decides (`None`, or a clearing, leave the draft's cut alone; so do left facts
/// whose irreducible part is over the threshold, and a plan whose kept messages do not fit
/// `budget` by themselves). The plan is in the terms of `input.facts`: where the kept messages
/// start in that request, its estimate before, and the estimate after both steps.
pub fn plan(
    input: CommitInput<'_>,
    draft: &Draft,
    budget: u64,
    trigger_ratio: f64,
    decide: impl FnOnce(&RequestFacts) -> Result<Option<Planned>>,
) -> Result<Option<Plan>> {
    let facts = input.facts;
    if !due(facts.total(), budget, trigger_ratio) {
        return Ok(None);
    }
    let threshold = budget as f64 * trigger_ratio;
    // The commit's estimate alone (its record's `estimate_after`): what is left follows.
    let cut = (draft.first_kept_index, draft.first_kept_part);
    let estimate_after = apply::commit_estimate(&input, draft)?;
    let committed = cut_plan(facts, cut.0, cut.1);
    let Some(left) = over(left_at(facts, cut, estimate_after), threshold) else {
        return Ok(Some(committed));
    };
    if left.irreducible_tokens() as f64 > threshold {
        return Ok(Some(committed));
    }
    Ok(Some(match decide(&left)? {
        Some(Planned::Summarize(further)) if further.fits(budget) => {
            through(facts, cut, &further, committed.message_tokens)
        }
        _ => committed,
    }))
}

/// Maps an index of what a commit kept to the request's (`origins` from [`origins`]); past
/// the kept messages, past the request's (`len` messages).
fn back(origins: &[usize], k: usize, len: usize) -> usize {
    origins.get(k).copied().unwrap_or(len)
}

/// [`back`] of each index of `kept`. One function for the receipts' lists, so that each
/// does not inline its own copy of the loop and the allocation (bench/README.md, Package size).
#[inline(never)]
fn all_back(origins: &[usize], kept: &[usize], len: usize) -> Vec<usize> {
    kept.iter().map(|&k| back(origins, k, len)).collect()
}

/// A cut `(k, part)` of what a commit at `cut` kept, in the request's terms: the message the
/// commit cut inside starts at its cut.
fn cut_back(origins: &[usize], cut: Cut, (k, part): Cut, len: usize) -> Cut {
    let first = back(origins, k, len);
    let inside = cut.1 > 0 && first == cut.0;
    (first, if inside { part + cut.1 } else { part })
}

/// `further` (a plan of what a commit at `cut` left of a request with `facts`) in the
/// request's terms: its cut, its turn prefix and the estimate after it; everything before
/// the cut is summarized (by the draft or by the further summary) but the pinned messages.
/// `message_tokens` are the request's (the committed cut's plan made them).
fn through(facts: &RequestFacts, cut: Cut, further: &Plan, message_tokens: Vec<u64>) -> Plan {
    let origins = kept_from(facts, cut);
    let len = facts.messages.len();
    let further_cut = (further.first_kept_index, further.first_kept_part);
    let (first, part) = cut_back(&origins, cut, further_cut, len);
    let prefix = &further.turn_prefix_messages;
    let turn_prefix_messages = match prefix.is_empty() {
        true => first..first,
        false => back(&origins, prefix.start, len)..first,
    };
    Plan {
        first_kept_index: first,
        first_kept_part: part,
        messages_to_summarize: 0..turn_prefix_messages.start,
        turn_prefix_messages,
        split_turn: further.split_turn,
        estimate_before: facts.total(),
        estimate_after_without_summary: further.estimate_after_without_summary,
        message_tokens,
    }
}

/// The record of a maintenance that committed a draft (`committed`, over a request with
/// `facts`) and then compacted what was left (`further`, whose indices are those of the kept
/// messages): one record in the terms of the request it started from. The further summary
/// covers the draft's, so the receipt covers what both summarized; its cut, its pinned
/// messages (and cleared ones) are named by their index in the request, its estimates run
/// from the request's to the end.
pub fn merged(facts: &RequestFacts, committed: &Record, further: Record) -> Record {
    let cut = cut_of(committed);
    let origins = kept_from(facts, cut);
    let len = facts.messages.len();
    let (first, part) = cut_back(&origins, cut, cut_of(&further), len);
    let receipt = &further.receipt;
    // A message the draft cut inside whose rest the further summary covers too is one message.
    let inside = origins.iter().position(|&i| i == cut.0);
    let covers_rest = inside.is_some_and(|k| {
        further.first_kept_index > k
            || (further.first_kept_index == k && further.first_kept_part > 0)
    });
    let twice = usize::from(cut.1 > 0 && covers_rest);
    let summarized_messages =
        (committed.receipt.summarized_messages + receipt.summarized_messages).saturating_sub(twice);
    Record {
        first_kept_index: first,
        first_kept_part: part,
        estimate_before: committed.estimate_before,
        receipt: Receipt {
            summarized_messages,
            summarized_tokens: committed.receipt.summarized_tokens + receipt.summarized_tokens,
            digest: receipt.digest,
            pinned: all_back(&origins, &receipt.pinned, len),
            cleared: all_back(&origins, &receipt.cleared, len),
        },
        ..further
    }
}

/// The record of a maintenance that committed a draft (`committed`, over a request with
/// `facts`) and then rewrote messages of what was left in place (`rewrite`, the record of a
/// clearing of tool results or of a trim of an oversized message, whose indices are those of
/// the kept messages): a compaction, the commit's (its summary, cut, usage and what it
/// summarized), with the estimate after both and the messages the rewrite changed in its
/// receipt's `cleared`, named by their index in the request.
pub fn cleared_after(facts: &RequestFacts, committed: Record, rewrite: &Record) -> Record {
    let origins = kept_from(facts, cut_of(&committed));
    let len = facts.messages.len();
    let mut record = committed;
    record.estimate_after = rewrite.estimate_after;
    record.receipt.cleared = all_back(&origins, &rewrite.receipt.cleared, len);
    record
}
