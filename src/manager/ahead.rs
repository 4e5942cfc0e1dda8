//! Ahead-of-time compaction: the summary the next compaction would make, made after a turn
//! and off the request path once the estimate passes the ahead mark (a fraction of the
//! threshold), kept by the host as a pending [`Draft`], and committed at once by the
//! maintenance that passes the threshold, when the state still extends what it covers.

use super::{ContextManager, MaintainOptions, Maintained, Outcome, Reason, StateCompactor};
use crate::apply::Record;
use crate::draft::Draft;
use crate::error::{Error, Result};
use crate::facts::RequestFacts;
use crate::pending;
use crate::request::PlanOptions;

/// The ahead mark when none is configured, as a fraction of the threshold: a conversation at
/// 70% of its trigger has a third of the way left to grow before the compaction is due, so
/// the summary (seconds) is ready long before, and what it keeps then (the recent tokens and
/// the growth since) still leaves room under the threshold.
pub const DEFAULT_AHEAD_RATIO: f64 = 0.7;

/// What [`ContextManager::prepare_ahead`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AheadOutcome {
    /// It made a new draft.
    Drafted,
    /// The pending draft it was given still covers the state: kept, no summary made.
    Kept,
    /// No positive context window is configured.
    Disabled,
    /// The estimate is not strictly above the ahead mark: no draft is wanted yet.
    BelowMark,
    /// What no compaction removes is over the threshold, or what the next compaction would
    /// keep is over the budget by itself: a summary would not help.
    Irreducible,
    /// No raw prefix can be summarized.
    NothingToSummarize,
}

impl AheadOutcome {
    /// The name the JavaScript side uses.
    pub fn as_str(self) -> &'static str {
        match self {
            AheadOutcome::Drafted => "drafted",
            AheadOutcome::Kept => "kept",
            AheadOutcome::Disabled => "disabled",
            AheadOutcome::BelowMark => "belowMark",
            AheadOutcome::Irreducible => "irreducible",
            AheadOutcome::NothingToSummarize => "nothingToSummarize",
        }
    }
}

/// The result of [`ContextManager::prepare_ahead`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ahead {
    /// What happened.
    pub outcome: AheadOutcome,
    /// The pending draft the host keeps for the next maintenance (a new one, or the one it
    /// gave when still valid); `None`: keep none.
    pub draft: Option<Draft>,
}

/// What [`ContextManager::maintain`] did with the pending draft it was given.
#[derive(Debug, Default)]
pub enum PendingUse {
    /// None was given, or the estimate was not over the threshold (it was not looked at).
    #[default]
    None,
    /// It was committed.
    Committed,
    /// It did not cover the state (or could not be committed): dropped, and the ordinary
    /// path ran. The reason, usually [`Error::Stale`].
    Discarded(Error),
}

impl PendingUse {
    /// `"committed"` or `"discarded"`; `None` when no pending draft was used.
    pub fn as_str(&self) -> Option<&'static str> {
        match self {
            PendingUse::None => None,
            PendingUse::Committed => Some("committed"),
            PendingUse::Discarded(_) => Some("discarded"),
        }
    }
}

impl ContextManager {
    /// Checks a configured ahead ratio (at `path`): missing is [`DEFAULT_AHEAD_RATIO`], else
    /// a number above 0 and at most 1.
    pub fn ahead_ratio(value: Option<f64>, path: &str) -> std::result::Result<f64, String> {
        match value {
            None => Ok(DEFAULT_AHEAD_RATIO),
            Some(ratio) if ratio > 0.0 && ratio <= 1.0 => Ok(ratio),
            Some(_) => Err(text!(path, " must be a number above 0 and at most 1")),
        }
    }

    /// Ahead-of-time compaction, after a turn and off the request path: when the estimate of
    /// `state` is strictly above the ahead mark (the threshold times the ahead ratio) and the
    /// pending draft given (`options.pending`) does not cover the state, summarizes what the
    /// next compaction would summarize now (planned as maintenance plans, whatever the
    /// threshold) and hands the draft back, applied to nothing. Never clears: a clearing
    /// needs no model call, and maintenance makes it when due. A failure (the summary, a
    /// cancellation) is an error and changes nothing.
    pub async fn prepare_ahead<C: StateCompactor>(
        &self,
        compactor: &C,
        state: &C::State,
        options: MaintainOptions<'_>,
        context: &C::Context,
    ) -> Result<Ahead> {
        let skip = |outcome| {
            Ok(Ahead {
                outcome,
                draft: None,
            })
        };
        let Some(budget) = self.input_budget(options) else {
            return skip(AheadOutcome::Disabled);
        };
        let facts = compactor.facts(state)?;
        let threshold = budget as f64 * compactor.trigger_ratio();
        if facts.total() as f64 <= threshold * self.ahead_ratio {
            return skip(AheadOutcome::BelowMark);
        }
        if let Some(pending) = options.pending
            && compactor.covers(state, pending).is_ok()
        {
            let draft = Some(pending.clone());
            let outcome = AheadOutcome::Kept;
            return Ok(Ahead { outcome, draft });
        }
        if facts.irreducible_tokens() as f64 > threshold {
            return skip(AheadOutcome::Irreducible);
        }
        // The plan maintenance would make, the threshold bypassed.
        let plan_options = PlanOptions {
            input_token_budget: Some(budget),
            require_reduction: true,
        };
        let plan = match compactor.plan(&facts, plan_options) {
            Ok(Some(plan)) => plan,
            Ok(None) | Err(Error::NoReduction(_)) => {
                return skip(AheadOutcome::NothingToSummarize);
            }
            Err(Error::TooLarge(_)) => return skip(AheadOutcome::Irreducible),
            Err(error) => return Err(error),
        };
        if plan.too_large(&facts.messages, budget).is_some() {
            return skip(AheadOutcome::Irreducible);
        }
        let focus = options.focus;
        let draft = compactor
            .draft(state, &facts, &plan, focus, context)
            .await?;
        let outcome = AheadOutcome::Drafted;
        Ok(Ahead {
            outcome,
            draft: Some(draft),
        })
    }
}

/// What committing a pending draft left to maintenance.
pub(super) enum Pending<S> {
    /// Maintenance is done: the draft was committed and the state is under the threshold.
    Done(Maintained<S>),
    /// The ordinary path runs on this state and its facts: the draft did not cover the state
    /// (discarded), or the conversation outran it (committed, still over the threshold).
    Further(S, RequestFacts, Committed),
}

/// What became of a pending draft before the ordinary path ran.
pub(super) enum Committed {
    /// None was given.
    None,
    /// It did not cover the state: why.
    Discarded(Error),
    /// It was committed onto a state with facts `facts`: its record.
    Record(Record, Box<RequestFacts>),
}

impl Committed {
    /// The result of the ordinary path `done`, after this: a committed draft is a compaction
    /// even when the ordinary path made none, or cleared or trimmed what it left (the commit's
    /// record with the estimate after both and what was rewritten,
    /// [`crate::pending::cleared_after`]; a clearing's own in `cleared`); a further summary's
    /// record names what both covered in the state maintenance was given
    /// ([`crate::pending::merged`]). The origins of the messages are in that state's terms too
    /// ([`crate::pending::origins_through`]).
    pub(super) fn merged<S>(self, done: Maintained<S>) -> Maintained<S> {
        let (record, facts) = match self {
            Committed::None => return done,
            Committed::Discarded(error) => {
                return Maintained {
                    pending: PendingUse::Discarded(error),
                    ..done
                };
            }
            Committed::Record(record, facts) => (record, facts),
        };
        // Where the messages the commit kept came from, and those the ordinary path returned.
        let kept = pending::origins(&facts, &record);
        let after = pending::origins_through(&kept, &done.origins);
        let (record, cleared, origins) = match (done.outcome, done.record) {
            (Outcome::Compacted, Some(further)) => {
                let merged = pending::merged(&facts, &record, further);
                (merged, done.cleared, after)
            }
            // A compaction happened: the commit's record (its summary, cut and receipt), with
            // what the clearing or the trim then rewrote and the estimate after both.
            (Outcome::Cleared | Outcome::Trimmed, Some(rewrite)) => {
                let both = pending::cleared_after(&facts, record, &rewrite);
                (both, done.cleared, after)
            }
            _ => (record, None, kept),
        };
        Maintained {
            outcome: Outcome::Compacted,
            record: Some(record),
            cleared,
            pending: PendingUse::Committed,
            origins,
            ..done
        }
    }
}

/// Maintenance over `threshold` with a pending `draft`: committed when it covers `state`
/// (events with reason [`Reason::Pending`]); when the conversation outran it (what the commit
/// left still over the threshold, [`pending::still_over`]), the ordinary path continues from
/// the committed state with those facts. A draft that does not cover `state` is discarded and
/// the ordinary path runs on `state`.
pub(super) fn commit_pending<C: StateCompactor>(
    compactor: &C,
    state: C::State,
    facts: RequestFacts,
    draft: &Draft,
    threshold: f64,
) -> Pending<C::State> {
    // Committing runs no host code and has no effect until its state is returned: the events
    // around it are reported once it is known to hold.
    let (next, record) = match compactor.commit(&state, &facts, draft) {
        Ok(committed) => committed,
        Err(error) => return Pending::Further(state, facts, Committed::Discarded(error)),
    };
    report(compactor, &state, &facts, draft, &record);
    match pending::still_over(&facts, &record, threshold) {
        Some(left) => Pending::Further(next, left, Committed::Record(record, Box::new(facts))),
        None => Pending::Done(Maintained {
            state: next,
            outcome: Outcome::Compacted,
            origins: pending::origins(&facts, &record),
            record: Some(record),
            error: None,
            cleared: None,
            pending: PendingUse::Committed,
        }),
    }
}

/// The start and end events of a committed pending draft (its plan: every message before
/// its cut summarized, [`pending::cut_plan`]).
fn report<C: StateCompactor>(
    compactor: &C,
    state: &C::State,
    facts: &RequestFacts,
    draft: &Draft,
    record: &Record,
) {
    let plan = pending::cut_plan(facts, draft.first_kept_index, draft.first_kept_part);
    super::report_done(compactor, state, facts, &plan, record, Reason::Pending);
}
