//! What maintenance and a run report: why a rewrite did or did not happen, the state after
//! it, and what a failed run leaves.

use super::PendingUse;
use crate::apply::Record;
use crate::clearing::Clearing;
use crate::error::Error;
use crate::pending::Origin;

/// Why maintenance did or did not rewrite the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It compacted.
    Compacted,
    /// It cleared old tool results (no summary).
    Cleared,
    /// No positive context window is configured.
    Disabled,
    /// The estimate is not strictly above the threshold.
    BelowThreshold,
    /// System prompt, tools, summary and in-flight tail alone exceed the threshold: compacting
    /// cannot get below it, so maintenance does not try on every call. Also when what a
    /// compaction would keep exceeds the budget by itself (a pasted document larger than the
    /// window): then the result carries [`Error::TooLarge`], naming the message, and no model
    /// call is made.
    Irreducible,
    /// No raw prefix can be removed.
    NothingToRemove,
    /// An oversized user message was trimmed (`trimOversized`, [`crate::oversized`]): no
    /// summary was made.
    Trimmed,
    /// Estimating failed (no events).
    EstimateFailed,
    /// Planning failed (no events).
    PlanFailed,
    /// The rewrite started and failed; the state is unchanged.
    RewriteFailed,
}

impl Outcome {
    /// The name the JavaScript result uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Compacted => "compacted",
            Outcome::Cleared => "cleared",
            Outcome::Disabled => "disabled",
            Outcome::BelowThreshold => "belowThreshold",
            Outcome::Irreducible => "irreducible",
            Outcome::NothingToRemove => "nothingToRemove",
            Outcome::Trimmed => "trimmed",
            Outcome::EstimateFailed => "estimateFailed",
            Outcome::PlanFailed => "planFailed",
            Outcome::RewriteFailed => "rewriteFailed",
        }
    }
}

/// The result of [`ContextManager::maintain`].
#[derive(Debug)]
pub struct Maintained<S> {
    /// The state to continue with (unchanged unless `outcome` is `Compacted`).
    pub state: S,
    /// What happened.
    pub outcome: Outcome,
    /// The record of the rewrite.
    pub record: Option<Record>,
    /// The failure behind `EstimateFailed`, `PlanFailed` or `RewriteFailed`.
    pub error: Option<Error>,
    /// What was cleared, when `outcome` is `Cleared`; also when a committed pending draft left
    /// the state still over the threshold and clearing old tool results was enough (then
    /// `outcome` is `Compacted`, `record` the commit's, and these indices the new state's).
    pub cleared: Option<Clearing>,
    /// What became of the pending draft the call was given.
    pub pending: PendingUse,
    /// When `state` is a rewrite (`record` is set): where each of its messages came from in the
    /// state maintenance was given (the message and the part it starts at), whatever steps
    /// made it (a commit, a summary, a clearing, a trim); empty otherwise.
    pub origins: Vec<Origin>,
}

impl<S> Maintained<S> {
    /// `state` unchanged, with why and the failure behind it (no pending draft used).
    pub(super) fn skipped(state: S, outcome: Outcome, error: Option<Error>) -> Self {
        Maintained {
            state,
            outcome,
            record: None,
            error,
            cleared: None,
            pending: PendingUse::None,
            origins: Vec::new(),
        }
    }
}

/// A run that got an answer.
#[derive(Debug)]
pub struct Ran<S, R, E> {
    /// The provider's answer.
    pub response: R,
    /// The state that was sent last (compacted by every recovery).
    pub state: S,
    /// One record per successful rewrite.
    pub compactions: Vec<Record>,
    /// The overflow rejections that were recovered from.
    pub failed_attempts: Vec<E>,
}

/// What ended a run without an answer.
#[derive(Debug)]
pub enum RunFailure<E> {
    /// The provider's error: not an overflow, or the third overflow.
    Provider(E),
    /// Recovery could not compact (planning, summarizing, no reduction, cancellation).
    Compaction(Error),
}

/// A run that ended without an answer; `state` keeps every rewrite committed before it.
#[derive(Debug)]
pub struct RunError<S, E> {
    /// Why it ended.
    pub failure: RunFailure<E>,
    /// The state with all committed rewrites.
    pub state: S,
    /// One record per successful rewrite.
    pub compactions: Vec<Record>,
    /// The overflow rejections that were recovered from.
    pub failed_attempts: Vec<E>,
}
