//! Planning: the threshold check and the choice of a tool-safe cut.
//!
//! Pure and cheap: it works on [`RequestFacts`] alone and never calls the summarizer.

use crate::hash::HashMap;
use std::ops::Range;

use crate::error::{Error, Result};
use crate::facts::{MessageFacts, RequestFacts};
use crate::message::Role;
use crate::request::PlanOptions;
use crate::steps::Positions;

/// A decision to compact: which messages to summarize and where the kept suffix starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Where the retained suffix starts; may equal the number of messages (keep nothing).
    pub first_kept_index: usize,
    /// The part of message `first_kept_index` the retained suffix starts at: 0 for the whole
    /// message, else the start of one of its later steps (an AI SDK UIMessage), in which case
    /// the parts before it end the turn prefix.
    pub first_kept_part: usize,
    /// The history before the cut, or before the split turn's start.
    pub messages_to_summarize: Range<usize>,
    /// The beginning of a split turn (empty unless `split_turn`), whole messages: with a
    /// `first_kept_part`, the parts of message `first_kept_index` before it follow them.
    pub turn_prefix_messages: Range<usize>,
    /// Whether the cut falls inside a turn.
    pub split_turn: bool,
    /// The estimate of the whole request before compaction.
    pub estimate_before: u64,
    /// The estimate after compaction leaving the summary out (system prompt, tools, kept
    /// messages): what the new summary adds to.
    pub estimate_after_without_summary: u64,
    /// The estimate of each message, framing included.
    pub message_tokens: Vec<u64>,
}

impl Plan {
    /// Whether what this plan keeps (with the system prompt, tools and pinned messages) is
    /// within `budget` by itself: otherwise no summary can make the request fit
    /// ([`Plan::too_large`] says why).
    pub fn fits(&self, budget: u64) -> bool {
        self.estimate_after_without_summary <= budget
    }

    /// [`Error::TooLarge`] when what this plan keeps (with the system prompt, tools and pinned
    /// messages) is above `budget` by itself: no summary, however short, brings the request
    /// under it, so none is worth a model call. The error names the largest kept message of
    /// `messages` (the request's facts), its tokens, the estimate after and the budget.
    pub fn too_large(&self, messages: &[MessageFacts], budget: u64) -> Option<Error> {
        if self.fits(budget) {
            return None;
        }
        let after = self.estimate_after_without_summary;
        // The pinned messages before the cut are kept too.
        let kept = self.kept(messages, messages.len());
        let kept = kept.filter_map(|(i, _)| Some((i, messages.get(i)?)));
        let largest = kept.max_by_key(|(_, facts)| facts.tokens);
        let what = match largest {
            Some((i, facts)) => text!("messages[", i, "] is ", facts.tokens, " tokens, and"),
            None => "the system prompt and tools are".to_owned(),
        };
        Some(Error::TooLarge(text!(
            what,
            " what a compaction keeps comes to ",
            after,
            " tokens before any summary, above the input budget of ",
            budget,
            " tokens: no summary can make the request fit"
        )))
    }

    /// This plan, made over `positions`, as a plan over the messages `messages`.
    pub(crate) fn over_messages(self, positions: &Positions, messages: &[MessageFacts]) -> Plan {
        let start = |position| positions.start(position, messages.len());
        let (kept, part) = start(self.first_kept_index);
        // The history ends where a turn starts: at a user message, a whole one (or at 0).
        let history = start(self.messages_to_summarize.end).0.min(kept);
        Plan {
            first_kept_index: kept,
            first_kept_part: part,
            messages_to_summarize: 0..history,
            turn_prefix_messages: history..kept,
            ..self
        }
    }

    /// This plan with the estimate of each of `messages` (the messages it was made over).
    pub(crate) fn with_tokens(self, messages: &[MessageFacts]) -> Plan {
        Plan {
            message_tokens: crate::facts::tokens_each(messages),
            ..self
        }
    }

    /// A trusted plan must still describe this request: ranges in bounds and partitioning
    /// `0..first_kept_index`, and at least one message removed.
    pub fn check_fits(&self, len: usize) -> Result<()> {
        let kept = self.first_kept_index;
        let history = &self.messages_to_summarize;
        let prefix = &self.turn_prefix_messages;
        if kept > len || (kept == len && self.first_kept_part > 0) {
            return Err(Error::invalid_request(text!(
                "plan.firstKeptIndex: ",
                kept,
                " is out of range for ",
                len,
                " messages"
            )));
        }
        if kept == 0 && self.first_kept_part == 0 {
            return Err(Error::invalid_request(
                "plan.firstKeptIndex: 0 removes no message",
            ));
        }
        if history.start != 0 || history.end != prefix.start || prefix.end != kept {
            return Err(Error::invalid_request(text!(
                "plan: messagesToSummarize ",
                history.start,
                "..",
                history.end,
                " and turnPrefixMessages ",
                prefix.start,
                "..",
                prefix.end,
                " do not cover 0..",
                kept
            )));
        }
        if self.split_turn == (prefix.is_empty() && self.first_kept_part == 0) {
            return Err(Error::invalid_request(
                "plan.splitTurn: a split turn needs a non-empty turn prefix, and only a split turn has one",
            ));
        }
        Ok(())
    }

    /// Checks a plan an apply runs against messages whose facts are `facts`: it fits them
    /// ([`Plan::check_fits`]), their pins part no call from its result, and it cuts at a step.
    pub fn check_apply(&self, facts: &[MessageFacts]) -> Result<()> {
        self.check_fits(facts.len())?;
        crate::pinned::check_pairs(facts)?;
        self.check_part(facts)
    }

    /// A plan whose kept suffix starts inside a message must start it at one of that
    /// message's steps.
    pub fn check_part(&self, facts: &[MessageFacts]) -> Result<()> {
        let (kept, part) = (self.first_kept_index, self.first_kept_part);
        if part == 0 {
            return Ok(());
        }
        let steps = facts.get(kept).map_or(&[][..], |f| &f.steps[..]);
        if steps.iter().any(|s| s.part == part) {
            return Ok(());
        }
        Err(self.part_error())
    }

    /// The error for a `first_kept_part` that starts no step of its message.
    pub(crate) fn part_error(&self) -> Error {
        let (kept, part) = (self.first_kept_index, self.first_kept_part);
        Error::invalid_request(text!(
            "plan.firstKeptPart: ",
            part,
            " is not where a step of messages[",
            kept,
            "] starts"
        ))
    }
}

/// What planning reads about the raw messages: their facts, which cuts would separate a tool
/// call from its result, and running totals. Built per call from [`RequestFacts`], or kept up
/// to date by a [`crate::Ledger`] as the history grows.
pub(crate) struct History<'a> {
    pub facts: &'a [MessageFacts],
    /// The largest cut in `1..=limit` that separates no tool call from its result.
    pub valid_cut: &'a dyn Fn(usize) -> Option<usize>,
    pub message_tokens: u64,
    pub pinned_tokens: u64,
    /// The first cut that may be made: past the newest provider summary, whose messages before
    /// it count nothing ([`crate::window`]); 1 without one.
    pub first_cut: usize,
}

/// Plans a compaction from facts; see [`crate::Compactor::plan`].
pub(crate) fn plan(
    facts: &RequestFacts,
    options: PlanOptions,
    keep_recent_tokens: u64,
    trigger_ratio: f64,
) -> Result<Option<Plan>> {
    let plan = plan_without_tokens(facts, options, keep_recent_tokens, trigger_ratio)?;
    Ok(plan.map(|plan| plan.with_tokens(&facts.messages)))
}

/// [`plan`] whose `message_tokens` is left empty: a caller that has the facts takes the
/// estimates from them (at 100k messages, the vector was 0.8 MB of wasm memory at the peak of a
/// cold plan, for a copy of what the facts hold).
pub(crate) fn plan_without_tokens(
    facts: &RequestFacts,
    options: PlanOptions,
    keep_recent_tokens: u64,
    trigger_ratio: f64,
) -> Result<Option<Plan>> {
    crate::pinned::check_pairs(&facts.messages)?;
    // With steps inside messages, the plan is made over positions and turned back.
    let positions = Positions::of(&facts.messages);
    let planned = positions.as_ref().map_or(&facts.messages, |p| &p.facts);
    let history = History {
        facts: planned,
        valid_cut: &|limit| largest_valid_cut(planned, limit),
        message_tokens: facts.message_tokens(0),
        pinned_tokens: facts.pinned_tokens(facts.messages.len()),
        first_cut: crate::window::window_start(planned, facts.provider_compaction) + 1,
    };
    let plan = plan_history(facts, &history, options, keep_recent_tokens, trigger_ratio)?;
    Ok(match positions {
        Some(positions) => plan.map(|plan| plan.over_messages(&positions, &facts.messages)),
        None => plan,
    })
}

/// Plans over `history`; `fixed` gives the system prompt, tools and summary (its messages are
/// not read). Costs O(kept messages); the plan's `message_tokens` is left to the caller
/// ([`Plan::with_tokens`]).
pub(crate) fn plan_history(
    fixed: &RequestFacts,
    history: &History,
    options: PlanOptions,
    keep_recent_tokens: u64,
    trigger_ratio: f64,
) -> Result<Option<Plan>> {
    // Anchored to what the provider reported, when it was (`crate::anchor`).
    let estimate_before =
        (fixed.system_prompt + fixed.summary + fixed.tools + history.message_tokens)
            .saturating_add_signed(fixed.calibration.adjustment);
    if !over_trigger(estimate_before, options, trigger_ratio) {
        return Ok(None);
    }
    // Only when the pinned messages alone are over, and the host pinned some: a budget below
    // the system prompt, tools or system messages (0) is how a caller asks for the most
    // compaction there is. The scan runs only in that rare case.
    if let Some(budget) = options.input_token_budget
        && history.pinned_tokens > budget
        && history.facts.iter().any(|f| f.pinned())
    {
        return Err(pinned_too_large(
            history.facts,
            history.pinned_tokens,
            budget,
        ));
    }
    let Some(cut) = choose_cut(history, keep_recent_tokens) else {
        if options.require_reduction {
            return Err(Error::NoReduction(
                "no raw message prefix can be removed".to_owned(),
            ));
        }
        return Ok(None);
    };
    let turn_start = split_turn_start(history.facts, cut);
    let history_end = turn_start.unwrap_or(cut);
    let kept = history.facts.get(cut..).unwrap_or(&[]);
    let kept_tokens: u64 = kept.iter().map(|f| f.tokens).sum();
    let kept_pinned: u64 = kept
        .iter()
        .filter(|f| f.is_pinned())
        .map(|f| f.tokens)
        .sum();
    Ok(Some(Plan {
        first_kept_index: cut,
        first_kept_part: 0,
        messages_to_summarize: 0..history_end,
        turn_prefix_messages: history_end..cut,
        split_turn: turn_start.is_some(),
        estimate_before,
        // Pinned messages before the cut (system ones and those the host pinned) stay, in
        // front of the kept ones.
        estimate_after_without_summary: fixed.system_prompt
            + fixed.tools
            + (history.pinned_tokens - kept_pinned)
            + kept_tokens,
        message_tokens: Vec::new(),
    }))
}

/// The error of a history whose pinned messages (system ones included, `pinned` tokens) are
/// above `budget` by themselves: no cut and no summary can make it fit. It names the largest.
fn pinned_too_large(facts: &[MessageFacts], pinned: u64, budget: u64) -> Error {
    let all = facts.iter().enumerate().filter(|(_, f)| f.is_pinned());
    let largest = match all.max_by_key(|(_, f)| f.tokens) {
        Some((i, f)) => text!(
            " (the largest, messages[",
            i,
            "], is ",
            f.tokens,
            " tokens)"
        ),
        None => String::new(),
    };
    Error::TooLarge(text!(
        "the pinned and system messages come to ",
        pinned,
        " tokens",
        largest,
        ", above the input budget of ",
        budget,
        " tokens: they are never compacted, so no compaction can make the request fit"
    ))
}

/// Whether a request estimated at `estimate` is to be compacted: a reduction is required, or
/// the estimate is strictly above the budget times the trigger ratio (equal does not plan).
pub(crate) fn over_trigger(estimate: u64, options: PlanOptions, trigger_ratio: f64) -> bool {
    match options.input_token_budget {
        _ if options.require_reduction => true,
        None => false,
        Some(budget) => estimate as f64 > budget as f64 * trigger_ratio,
    }
}

/// The largest valid cut at or before the keep boundary and the in-flight tail, if it removes
/// at least one message that counts (past the provider's window).
fn choose_cut(history: &History, keep_recent_tokens: u64) -> Option<usize> {
    let limit =
        keep_boundary(history.facts, keep_recent_tokens).min(in_flight_start(history.facts));
    // A cut before the provider's window would summarize what counts nothing already.
    (history.valid_cut)(limit).filter(|&cut| cut >= history.first_cut)
}

/// The start of the shortest suffix whose estimate reaches `keep` (0 when none does).
pub(crate) fn keep_boundary(facts: &[MessageFacts], keep: u64) -> usize {
    let mut kept = 0;
    let mut start = facts.len();
    while kept < keep {
        let Some(previous) = start.checked_sub(1) else {
            return 0;
        };
        start = previous;
        kept += facts.get(start).map_or(0, |f| f.tokens);
    }
    start
}

impl RequestFacts {
    /// What no compaction can remove: system prompt (and system messages), tools, summary and
    /// the in-flight tail.
    pub fn irreducible_tokens(&self) -> u64 {
        let tail = in_flight_start(&self.messages);
        self.system_prompt
            + self.tools
            + self.summary
            + self.pinned_tokens(tail)
            + self.message_tokens(tail)
    }
}

/// Where the in-flight tail starts: the run of assistant messages that ends at the last one
/// (several host messages in formats where each tool call is an item of its own) is searched
/// for calls without a result after them; the first such message and everything after it stay.
/// Without one, the number of messages.
pub(crate) fn in_flight_start(messages: &[MessageFacts]) -> usize {
    let Some(last) = messages.iter().rposition(|f| f.role == Role::Assistant) else {
        return messages.len();
    };
    let run = messages
        .get(..last)
        .unwrap_or(&[])
        .iter()
        .rposition(|f| f.role != Role::Assistant)
        .map_or(0, |i| i + 1);
    (run..=last)
        .find(|&k| {
            // A result in the same message answers it too (a server tool's, or a step's).
            let after = messages.get(k..).unwrap_or(&[]);
            let answered = |id: &str| after.iter().any(|f| f.tool_result_ids.contains(id));
            messages
                .get(k)
                .is_some_and(|f| f.tool_call_ids.iter().any(|id| !answered(id)))
        })
        .unwrap_or(messages.len())
}

/// The largest cut in `1..=limit` that separates no tool call at `i < cut` from its result at
/// `j >= cut`. A result matches the call with its id in its own message, else the latest
/// earlier call with its id; results whose call is unknown constrain nothing. Scans back from the end holding only the ids of the results whose
/// call is not found yet (a map of every call's id was about 1 MB of wasm memory at 100k
/// messages, for a cut that is usually near the end): O(messages after the cut) when every
/// result there finds its call soon, at most one pass over the history.
pub(crate) fn largest_valid_cut(messages: &[MessageFacts], limit: usize) -> Option<usize> {
    let n = messages.len();
    // No result is at `n` or after: keeping nothing separates nothing.
    if limit >= n {
        return (n >= 1).then_some(n);
    }
    // The results whose call is not found yet: id → the latest position holding one. A call
    // found for one answers all of them (none between them had the id).
    let mut waiting: HashMap<&str, usize> = HashMap::default();
    // The largest cut at or before `limit` that no pair found so far separates.
    let mut candidate: Option<usize> = None;
    for (p, f) in messages.iter().enumerate().rev() {
        // Calls first: a result in the same message is not answered by them.
        if !waiting.is_empty() {
            for id in &f.tool_call_ids {
                // The call at `p` and its results up to `j`: cuts `p + 1..=j` separate them.
                if let Some(j) = waiting.remove(id)
                    && candidate.is_some_and(|cut| cut <= j)
                {
                    candidate = None;
                }
            }
        }
        // A result whose call is in the same message (a UIMessage's tool part, a server
        // tool's result) is answered there, whatever earlier call has its id: servers that
        // number their calls per response reuse `call_0` in every message.
        for id in f
            .tool_result_ids
            .iter()
            .filter(|id| !f.tool_call_ids.contains(id))
        {
            waiting.entry(id).or_insert(p);
        }
        if candidate.is_none() && (1..=limit).contains(&p) {
            candidate = Some(p);
        }
        // Every result after the candidate found its call: no earlier call can separate.
        if candidate.is_some() && waiting.is_empty() {
            return candidate;
        }
    }
    // The results still waiting have no call: they constrain nothing.
    candidate
}

/// The start of the turn a cut at `cut` splits, or `None` when the cut is at a turn start
/// (a user message, past any system messages, which stay anyway) or past the end. A history
/// with no user message before the cut is one turn starting at 0.
fn split_turn_start(facts: &[MessageFacts], cut: usize) -> Option<usize> {
    let kept = facts.get(cut..)?;
    let at_cut = kept.iter().find(|f| f.role != Role::System)?;
    if at_cut.starts_turn() {
        return None;
    }
    let before = facts.get(..cut).unwrap_or(&[]);
    Some(before.iter().rposition(|f| f.starts_turn()).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The pairing as it was done before [`largest_valid_cut`]: every cut's state from a map
    /// of every call, read from the start (a result beside its call answered there).
    fn reference(messages: &[MessageFacts], limit: usize) -> Option<usize> {
        let n = messages.len();
        let mut delta = vec![0i64; n + 2];
        let mut calls: HashMap<&str, usize> = HashMap::default();
        for (j, f) in messages.iter().enumerate() {
            let elsewhere = f
                .tool_result_ids
                .iter()
                .filter(|id| !f.tool_call_ids.contains(id));
            for &i in elsewhere.filter_map(|id| calls.get(id)) {
                delta[i + 1] += 1;
                delta[j + 1] -= 1;
            }
            for id in &f.tool_call_ids {
                calls.insert(id, j);
            }
        }
        let mut open = 0;
        let blocked: Vec<bool> = delta
            .iter()
            .take(n + 1)
            .map(|d| {
                open += d;
                open > 0
            })
            .collect();
        (1..=limit.min(n)).rev().find(|&cut| !blocked[cut])
    }

    fn message(calls: &[u8], results: &[u8]) -> MessageFacts {
        MessageFacts {
            tool_call_ids: calls.iter().map(|c| format!("c{c}")).collect(),
            tool_result_ids: results.iter().map(|c| format!("c{c}")).collect(),
            ..MessageFacts::default()
        }
    }

    #[test]
    fn a_cut_never_separates_a_call_from_its_results() {
        // A pair at 1–2; two calls at 3 answered at 4; a call at 5 answered in its own message
        // and again at 7; an orphan result at 6.
        let history = [
            message(&[], &[]),
            message(&[1], &[]),
            message(&[], &[1]),
            message(&[2, 3], &[]),
            message(&[], &[2, 3]),
            message(&[3], &[3]),
            message(&[], &[9]),
            message(&[], &[3]),
        ];
        let cuts: Vec<_> = (0..=9)
            .map(|limit| largest_valid_cut(&history, limit))
            .collect();
        let (one, three, five, eight) = (Some(1), Some(3), Some(5), Some(8));
        assert_eq!(
            cuts,
            [None, one, one, three, three, five, five, five, eight, eight]
        );
        for (limit, cut) in cuts.iter().enumerate() {
            assert_eq!(*cut, reference(&history, limit));
        }
    }

    #[test]
    fn a_result_beside_its_call_is_answered_there_whatever_earlier_call_has_its_id() {
        // UIMessages of a model that numbers its calls per response: every answer holds
        // `call_0` and its result. Each pair is whole; no cut between answers separates one.
        let answer = || message(&[0], &[0]);
        let history = [
            message(&[], &[]),
            answer(),
            message(&[], &[]),
            answer(),
            message(&[], &[]),
            answer(),
        ];
        let cuts: Vec<_> = (0..=6)
            .map(|limit| largest_valid_cut(&history, limit))
            .collect();
        assert_eq!(
            cuts,
            [None, Some(1), Some(2), Some(3), Some(4), Some(5), Some(6)]
        );
        for (limit, cut) in cuts.iter().enumerate() {
            assert_eq!(*cut, reference(&history, limit));
        }
        // A result alone still pairs with the latest earlier call of its id.
        let split = [message(&[0], &[0]), message(&[0], &[]), message(&[], &[0])];
        assert_eq!(largest_valid_cut(&split, 2), Some(1));
    }

    proptest! {
        #[test]
        fn the_cut_is_the_one_a_map_of_every_call_gives(
            history in prop::collection::vec(
                (prop::collection::vec(0u8..6, 0..3), prop::collection::vec(0u8..6, 0..3)),
                0..40,
            ),
            limit in 0usize..45,
        ) {
            let facts: Vec<_> = history.iter().map(|(c, r)| message(c, r)).collect();
            prop_assert_eq!(largest_valid_cut(&facts, limit), reference(&facts, limit));
        }
    }
}
