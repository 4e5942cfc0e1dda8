//! Applying a plan: summarize, post-process, project, and write the record.

use std::borrow::Cow;

use crate::draft::{self, Digest, Draft};
use crate::error::{Error, Result};
use crate::facts::{RequestFacts, summary_tokens};
use crate::message::Message;
use crate::plan::Plan;
pub use crate::record::{Receipt, Record};
use crate::request::Request;
use crate::summarizer::{SummarizeRequest, Summarizer, catch_panics};
use crate::summary::{self, FileLists, FileTracking};
use crate::token::Estimator;

/// The outcome of apply: the new conversation state and, unless it was a no-op, its record.
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction<'a> {
    /// The summary to store (the previous one for a no-op).
    pub summary: String,
    /// The retained messages: a slice of the request's own messages, or after a clearing
    /// the request's messages with the cleared results rewritten.
    pub messages: Cow<'a, [Message]>,
    /// What happened; `None` for a no-op.
    pub record: Option<Record>,
    /// What a clearing cleared (then no summary was made); `None` otherwise.
    pub cleared: Option<crate::clearing::Clearing>,
}

/// What apply needs when the caller already holds the request's facts: the planner's facts,
/// the previous summary, and only the messages the plan summarizes.
#[derive(Clone, Copy)]
pub struct ApplyInput<'a> {
    /// Facts of the whole request (for the before and after estimates).
    pub facts: &'a RequestFacts,
    /// The summary being replaced.
    pub summary: &'a str,
    /// The messages of `plan.messages_to_summarize`.
    pub history: &'a [Message],
    /// The messages of `plan.turn_prefix_messages`.
    pub turn_prefix: &'a [Message],
    /// Require a strict estimate decrease.
    pub require_reduction: bool,
    /// Estimates the new summary, as the facts were estimated.
    pub estimator: &'a dyn Estimator,
    /// What the host asked this summary to focus on (`None`: nothing in particular).
    pub focus: Option<&'a str>,
}

impl<'a> ApplyInput<'a> {
    /// What committing a draft of this input needs.
    pub fn commit(&self) -> CommitInput<'a> {
        CommitInput {
            facts: self.facts,
            require_reduction: self.require_reduction,
            estimator: self.estimator,
        }
    }
}

/// What committing a draft needs: the facts of the request it is committed onto.
#[derive(Clone, Copy)]
pub struct CommitInput<'a> {
    /// Facts of the whole request (for the before and after estimates and the receipt).
    pub facts: &'a RequestFacts,
    /// Require a strict estimate decrease.
    pub require_reduction: bool,
    /// Estimates the summary, as the facts were estimated.
    pub estimator: &'a dyn Estimator,
}

/// The new state apply produced; the kept messages are `first_kept_index..` of the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The summary to store.
    pub summary: String,
    /// What happened.
    pub record: Record,
}

pub(crate) async fn apply<'a, S: Summarizer>(
    summarizer: &S,
    tracking: &FileTracking,
    request: &Request<'a>,
    plan: Option<&Plan>,
    context: &S::Context,
) -> Result<Compaction<'a>> {
    let Some(plan) = plan else {
        return Ok(Compaction {
            summary: request.summary.to_owned(),
            messages: Cow::Borrowed(request.messages),
            record: None,
            cleared: None,
        });
    };
    // apply_with_facts checks that the plan fits.
    let facts = RequestFacts::of(request)?;
    let (history, turn_prefix) = summarized(request.messages, plan);
    let input = ApplyInput {
        facts: &facts,
        summary: request.summary,
        history,
        turn_prefix,
        require_reduction: request.require_reduction,
        estimator: request.estimator,
        focus: request.focus,
    };
    let applied = apply_with_facts(summarizer, tracking, input, plan, context).await?;
    Ok(Compaction {
        summary: applied.summary,
        messages: Cow::Borrowed(slice(
            request.messages,
            plan.first_kept_index..request.messages.len(),
        )),
        record: Some(applied.record),
        cleared: None,
    })
}

pub(crate) async fn apply_with_facts<S: Summarizer>(
    summarizer: &S,
    tracking: &FileTracking,
    input: ApplyInput<'_>,
    plan: &Plan,
    context: &S::Context,
) -> Result<Applied> {
    let draft = draft_with_facts(summarizer, tracking, input, plan, context).await?;
    commit_with_facts(input.commit(), &draft)
}

/// Summarizes what `plan` summarizes and post-processes it (cleaned, the file lists
/// appended), then asks the host's review: the summary apply would store, not applied.
pub(crate) async fn draft_with_facts<S: Summarizer>(
    summarizer: &S,
    tracking: &FileTracking,
    input: ApplyInput<'_>,
    plan: &Plan,
    context: &S::Context,
) -> Result<Draft> {
    plan.check_fits(input.facts.messages.len())?;
    plan.check_part(&input.facts.messages)?;
    let asked = SummarizeRequest {
        previous_summary: input.summary,
        messages: input.history,
        turn_prefix_messages: input.turn_prefix,
        estimator: input.estimator,
        focus: input.focus,
    };
    let answer = catch_panics(summarizer.summarize(asked, context)).await?;

    let mut text = summary::clean(&answer.text);
    if text.is_empty() {
        return Err(Error::EmptySummary);
    }
    let mut files = FileLists::default();
    files.add_from_summary(input.summary);
    files.add_from_messages(input.history, tracking);
    files.add_from_messages(input.turn_prefix, tracking);
    files.append_to(&mut text);
    let draft = Draft {
        summary: text,
        first_kept_index: plan.first_kept_index,
        first_kept_part: plan.first_kept_part,
        digest: Digest::of_summarized(&[input.history, input.turn_prefix]),
        previous: Digest::of_text(input.summary),
        usage: answer.usage,
    };
    let verdict = catch_panics(summarizer.review(&draft, context)).await?;
    draft::judged(draft, verdict)
}

/// Commits `draft` onto a request with `input.facts` (already checked to be covered by it):
/// its summary replaces the request's, the messages before its cut go (but the pinned ones),
/// and the record says so. Exactly what apply stores for a summarizer that answered
/// `draft.summary`.
pub(crate) fn commit_with_facts(input: CommitInput<'_>, draft: &Draft) -> Result<Applied> {
    let facts = input.facts;
    let (first, part) = (draft.first_kept_index, draft.first_kept_part);
    // A draft read back from a host may have been edited: stored trimmed, as a summary is.
    let text = draft.summary.trim().to_owned();
    let estimate_before = facts.total();
    let estimate_after = commit_estimate(&input, draft)?;
    if input.require_reduction && estimate_after >= estimate_before {
        return Err(Error::NoReduction(text!(
            "the compacted estimate ",
            estimate_after,
            " is not below ",
            estimate_before
        )));
    }
    Ok(Applied {
        summary: text.clone(),
        record: Record {
            summary: text,
            first_kept_index: first,
            first_kept_part: part,
            estimate_before,
            estimate_after,
            usage: draft.usage,
            trimmed: false,
            receipt: receipt(facts, draft),
        },
    })
}

/// The estimate of a request with `input.facts` once `draft` is committed (the record's
/// `estimate_after`): the system prompt, tools, the draft's summary (trimmed, as commit
/// stores it), the pinned messages before its cut and what it keeps. An error when its cut is
/// past the request's messages, or the estimator fails on the summary.
pub(crate) fn commit_estimate(input: &CommitInput<'_>, draft: &Draft) -> Result<u64> {
    let facts = input.facts;
    let (first, part) = (draft.first_kept_index, draft.first_kept_part);
    if first > facts.messages.len() {
        return Err(Error::invalid_request(text!(
            "the draft keeps messages from messages[",
            first,
            "], beyond the request's ",
            facts.messages.len(),
            " messages"
        )));
    }
    let summary = summary_tokens(draft.summary.trim(), input.estimator).map_err(|source| {
        Error::InvalidRequest {
            message: text!("summary: the estimator failed: ", source),
            source: Some(source),
        }
    })?;
    // Calibrated as every other part was, so that before and after stay comparable.
    Ok(kept_parts(facts, first, part) + facts.calibration.scale(summary))
}

/// What a cut at part `part` of message `first` leaves of a request with `facts` besides a
/// summary: the system prompt, tools, the pinned messages before the cut and what it keeps.
pub(crate) fn kept_parts(facts: &RequestFacts, first: usize, part: usize) -> u64 {
    facts.system_prompt + facts.tools + facts.pinned_tokens(first) + facts.kept_tokens(first, part)
}

/// What a summary committed at `draft`'s cut covers, in a request with `facts`.
fn receipt(facts: &RequestFacts, draft: &Draft) -> Receipt {
    let (first, part) = (draft.first_kept_index, draft.first_kept_part);
    let before = facts.messages.get(..first).unwrap_or(&facts.messages);
    let pinned: Vec<usize> = (0..before.len())
        .filter(|&i| before[i].is_pinned())
        .collect();
    let unpinned = before.iter().filter(|f| !f.is_pinned());
    let mut summarized_messages = unpinned.clone().count();
    let mut summarized_tokens: u64 = unpinned.map(|f| f.tokens).sum();
    // A cut inside a message covers its steps before the cut.
    if let Some(cut) = facts.messages.get(first).filter(|_| part > 0) {
        summarized_messages += 1;
        summarized_tokens += cut.tokens.saturating_sub(cut.tokens_from(part));
    }
    Receipt {
        summarized_messages,
        summarized_tokens,
        digest: Some(draft.digest),
        pinned,
        cleared: Vec::new(),
    }
}

/// The messages `plan` summarizes: the history, and the beginning of a split turn.
pub(crate) fn summarized<'m>(
    messages: &'m [Message],
    plan: &Plan,
) -> (&'m [Message], &'m [Message]) {
    let history = slice(messages, plan.messages_to_summarize.clone());
    (history, slice(messages, plan.turn_prefix_messages.clone()))
}

fn slice(messages: &[Message], range: std::ops::Range<usize>) -> &[Message] {
    messages.get(range).unwrap_or(&[])
}
