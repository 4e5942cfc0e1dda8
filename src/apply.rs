//! Applying a plan: summarize, post-process, project, and write the record.

use crate::error::{Error, Result};
use crate::facts::{RequestFacts, summary_tokens};
use crate::message::Message;
use crate::plan::Plan;
use crate::request::Request;
use crate::summarizer::{SummarizeRequest, Summarizer, Usage, catch_panics};
use crate::summary::{self, FileLists};

/// The outcome of apply: the new conversation state and, unless it was a no-op, its record.
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction<'a> {
    /// The summary to store (the previous one for a no-op).
    pub summary: String,
    /// The retained messages: a slice of the request's own messages.
    pub messages: &'a [Message],
    /// What happened; `None` for a no-op.
    pub record: Option<Record>,
}

/// What a successful compaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The new summary.
    pub summary: String,
    /// Where the retained suffix starts in the request's messages.
    pub first_kept_index: usize,
    /// The request's estimate before compaction.
    pub estimate_before: u64,
    /// The estimate of the compacted state, by the same estimator.
    pub estimate_after: u64,
    /// The summarizer's usage (both calls of a split turn added up).
    pub usage: Option<Usage>,
}

pub(crate) async fn apply<'a, S: Summarizer>(
    summarizer: &S,
    request: &Request<'a>,
    plan: Option<&Plan>,
    context: &S::Context,
) -> Result<Compaction<'a>> {
    let Some(plan) = plan else {
        return Ok(Compaction {
            summary: request.summary.to_owned(),
            messages: request.messages,
            record: None,
        });
    };
    check_fits(plan, request.messages.len())?;
    let facts = RequestFacts::of(request)?;
    let history = slice(request.messages, plan.messages_to_summarize.clone());
    let prefix = slice(request.messages, plan.turn_prefix_messages.clone());
    let asked = SummarizeRequest {
        previous_summary: request.summary,
        messages: history,
        turn_prefix_messages: prefix,
    };
    let answer = catch_panics(summarizer.summarize(asked, context)).await?;

    let mut text = summary::clean(&answer.text);
    if text.is_empty() {
        return Err(Error::EmptySummary);
    }
    let mut files = FileLists::default();
    files.add_from_summary(request.summary);
    files.add_from_messages(history);
    files.add_from_messages(prefix);
    files.append_to(&mut text);

    let estimate_before = facts.total();
    let estimate_after = facts.system_prompt
        + facts.tools
        + summary_tokens(&text, request.estimator).map_err(|source| Error::InvalidRequest {
            message: format!("summary: the estimator failed: {source}"),
            source: Some(source),
        })?
        + facts.message_tokens(plan.first_kept_index);
    if request.require_reduction && estimate_after >= estimate_before {
        return Err(Error::NoReduction(format!(
            "the compacted estimate {estimate_after} is not below {estimate_before}"
        )));
    }
    Ok(Compaction {
        summary: text.clone(),
        messages: slice(
            request.messages,
            plan.first_kept_index..request.messages.len(),
        ),
        record: Some(Record {
            summary: text,
            first_kept_index: plan.first_kept_index,
            estimate_before,
            estimate_after,
            usage: answer.usage,
        }),
    })
}

/// A trusted plan must still describe this request: ranges in bounds and partitioning
/// `0..first_kept_index`, and at least one message removed.
fn check_fits(plan: &Plan, len: usize) -> Result<()> {
    let kept = plan.first_kept_index;
    let history = &plan.messages_to_summarize;
    let prefix = &plan.turn_prefix_messages;
    if kept > len {
        return Err(Error::invalid_request(format!(
            "plan.firstKeptIndex: {kept} is out of range for {len} messages"
        )));
    }
    if kept == 0 {
        return Err(Error::invalid_request(
            "plan.firstKeptIndex: 0 removes no message",
        ));
    }
    if history.start != 0 || history.end != prefix.start || prefix.end != kept {
        return Err(Error::invalid_request(format!(
            "plan: messagesToSummarize {history:?} and turnPrefixMessages {prefix:?} do not cover 0..{kept}"
        )));
    }
    if plan.split_turn == prefix.is_empty() {
        return Err(Error::invalid_request(
            "plan.splitTurn: a split turn needs a non-empty turn prefix, and only a split turn has one",
        ));
    }
    Ok(())
}

fn slice(messages: &[Message], range: std::ops::Range<usize>) -> &[Message] {
    messages.get(range).unwrap_or(&[])
}
