//! Estimates and plans: what planning returns (a summary plan, a clear plan, the results a
//! clearing may clear).

use super::{CLEAR, Sink, plan_slot};
use crate::clearing::{Clearing, Found};
use crate::facts::RequestFacts;
use crate::plan::Plan;

/// An estimate: `{ total, systemPrompt, summary, messages, tools }`, and when the provider's
/// counts were used, the `ratio` and the `anchor` (`{ messages, tokens }`).
pub fn estimate<W: Sink>(w: &mut W, facts: &RequestFacts) {
    w.open("", false);
    w.count("total", facts.total());
    w.count("systemPrompt", facts.system_prompt);
    w.count("summary", facts.summary);
    w.open("messages", true);
    for f in &facts.messages {
        w.count("", f.tokens);
    }
    w.close();
    w.count("tools", facts.tools);
    // Without the provider's counts the estimate is as it was.
    let calibration = &facts.calibration;
    if let Some(anchor) = calibration.anchor {
        w.number("ratio", calibration.ratio());
        w.open("anchor", false);
        w.count("messages", anchor.messages as u64);
        w.count("tokens", anchor.tokens);
        w.close();
    }
    w.close();
}

/// A summary plan, its slots those of [`plan_slot`]: where the kept suffix starts, the message
/// arrays (`with_messages`: none for a plan of a body), the turn prefix, the estimates,
/// `messageTokens`, `pinnedIndices` (the messages before the cut kept because the host
/// pinned them: `pinned`), then (a plan of a body) `messageSpans`.
pub fn plan<W: Sink>(w: &mut W, plan: &Plan, pinned: &[usize], with_messages: bool) {
    w.open("", false);
    w.count("firstKeptIndex", plan.first_kept_index as u64);
    w.count("firstKeptPart", plan.first_kept_part as u64);
    w.slot("firstKeptId", plan_slot::ID);
    // The preview module's plans leave the message arrays out (ChatPreview reads neither).
    if with_messages && cfg!(feature = "plan-api") {
        w.slot("messagesToSummarize", plan_slot::FIRST);
        w.slot("turnPrefixMessages", plan_slot::SECOND);
    }
    w.count("turnPrefixStart", plan.turn_prefix_messages.start as u64);
    w.bool("splitTurn", plan.split_turn);
    w.count("estimateBefore", plan.estimate_before);
    let after = plan.estimate_after_without_summary;
    w.count("estimateAfterWithoutSummary", after);
    w.slot("messageTokens", plan_slot::TOKENS);
    w.open("pinnedIndices", true);
    for &i in pinned {
        w.count("", i as u64);
    }
    w.close();
    if !with_messages {
        w.slot("messageSpans", plan_slot::FIRST);
    }
    w.close();
}

/// The plan of a clearing (of a request with `facts`): `{ kind: "clear", clearedResults,
/// argumentMessages, estimateBefore, estimateAfter, tokensFreed }` with the fields of a summary
/// plan that summarizes nothing, so that it is a plan too; `messageTokens` is slot 0, and
/// `with_messages` (not for a plan of a body) adds empty message arrays and `messages` (the
/// messages with the cleared ones rewritten), slot 1.
pub fn clear_plan<W: Sink>(
    w: &mut W,
    facts: &RequestFacts,
    clearing: &Clearing,
    with_messages: bool,
) {
    w.open("", false);
    w.text("kind", CLEAR);
    w.count("firstKeptIndex", 0);
    w.count("firstKeptPart", 0);
    w.null("firstKeptId");
    w.count("turnPrefixStart", 0);
    w.bool("splitTurn", false);
    let after = clearing.estimate_after.saturating_sub(facts.summary);
    w.count("estimateAfterWithoutSummary", after);
    w.slot("messageTokens", 0);
    // A clearing summarizes nothing: no message is kept for being pinned.
    w.open("pinnedIndices", true);
    w.close();
    w.open("clearedResults", true);
    for r in &clearing.results {
        w.open("", false);
        w.count("index", r.index as u64);
        w.text("toolCallId", &r.tool_call_id);
        match r.tool_name.as_deref() {
            Some(name) => w.text("toolName", name),
            None => w.null("toolName"),
        }
        w.count("tokens", r.tokens);
        w.text("text", &r.text);
        w.close();
    }
    w.close();
    w.open("argumentMessages", true);
    for &i in &clearing.argument_messages {
        w.count("", i as u64);
    }
    w.close();
    w.count("estimateBefore", clearing.estimate_before);
    w.count("estimateAfter", clearing.estimate_after);
    w.count("tokensFreed", clearing.tokens_freed());
    if with_messages {
        for key in ["messagesToSummarize", "turnPrefixMessages"] {
            w.open(key, true);
            w.close();
        }
        w.slot("messages", 1);
    }
    w.close();
}

/// The results of `found` at `listed` (`crate::clearing::stored_clearable`), as
/// `[{ index, toolCallId }]`.
pub fn clearable<W: Sink>(w: &mut W, found: &Found, listed: &[usize]) {
    w.open("", true);
    for r in listed.iter().filter_map(|&k| found.results.get(k)) {
        w.open("", false);
        w.count("index", r.index as u64);
        w.text("toolCallId", &r.id);
        w.close();
    }
    w.close();
}
