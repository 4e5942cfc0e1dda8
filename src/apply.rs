//! Applying a plan: summarize, post-process, project, and write the record.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::facts::{RequestFacts, summary_tokens};
use crate::message::Message;
use crate::plan::Plan;
pub use crate::record::Record;
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
    let input = ApplyInput {
        facts: &facts,
        summary: request.summary,
        history: slice(request.messages, plan.messages_to_summarize.clone()),
        turn_prefix: slice(request.messages, plan.turn_prefix_messages.clone()),
        require_reduction: request.require_reduction,
        estimator: request.estimator,
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
    plan.check_fits(input.facts.messages.len())?;
    plan.check_part(&input.facts.messages)?;
    let asked = SummarizeRequest {
        previous_summary: input.summary,
        messages: input.history,
        turn_prefix_messages: input.turn_prefix,
        estimator: input.estimator,
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

    let facts = input.facts;
    let estimate_before = facts.total();
    let estimate_after = facts.system_prompt
        + facts.tools
        // Calibrated as every other part was, so that before and after stay comparable.
        + facts.calibration.scale(summary_tokens(&text, input.estimator).map_err(|source| {
            Error::InvalidRequest {
                message: format!("summary: the estimator failed: {source}"),
                source: Some(source),
            }
        })?)
        + facts.pinned_tokens(plan.first_kept_index)
        + facts.kept_tokens(plan.first_kept_index, plan.first_kept_part);
    if input.require_reduction && estimate_after >= estimate_before {
        return Err(Error::NoReduction(format!(
            "the compacted estimate {estimate_after} is not below {estimate_before}"
        )));
    }
    Ok(Applied {
        summary: text.clone(),
        record: Record {
            summary: text,
            first_kept_index: plan.first_kept_index,
            estimate_before,
            estimate_after,
            usage: answer.usage,
            trimmed: false,
        },
    })
}

fn slice(messages: &[Message], range: std::ops::Range<usize>) -> &[Message] {
    messages.get(range).unwrap_or(&[])
}
