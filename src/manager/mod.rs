//! Automatic compaction for hosts that own their model loop: proactive
//! maintenance when the threshold is crossed, and recovery when the provider rejects a
//! request as larger than the context window. Each rewrite is reported by one start event and
//! one matching end event.
//!
//! The manager works on any [`StateCompactor`]: [`Local`] for Rust callers, and the wasm layer's
//! own for JavaScript state objects.

mod ahead;
mod learned;
mod local;
mod outcome;
mod state;
mod trim;

use trim::{finish, trim_oversized};

use crate::apply::Record;
use crate::clearing::Clearing;
use crate::compactor::Planned;
use crate::draft::Draft;
use crate::error::{Error, Result};
use crate::facts::RequestFacts;
use crate::plan::Plan;
use crate::request::PlanOptions;

pub use ahead::{Ahead, AheadOutcome, DEFAULT_AHEAD_RATIO, PendingUse};
pub use learned::{Learned, Lessons, Sent, compacted_anchor, rewritten_anchor};
pub use local::{Local, OwnedState};
pub use outcome::{Maintained, Outcome, Ran, RunError, RunFailure};
pub use state::StateCompactor;

/// `reserveTokens` when none is configured.
pub const DEFAULT_RESERVE_TOKENS: u64 = 16_384;
/// How many overflow recoveries one run may make; the next rejection ends the run.
pub const MAX_OVERFLOW_RECOVERIES: usize = 2;

/// Why a rewrite happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The estimate was above the maintenance threshold.
    Threshold,
    /// The provider rejected the request as too large.
    Overflow,
    /// The estimate was above the maintenance threshold and a pending draft made ahead of
    /// time ([`ContextManager::prepare_ahead`]) was committed: no summary was waited for.
    Pending,
}

impl Reason {
    /// `"threshold"`, `"overflow"` or `"pending"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Threshold => "threshold",
            Reason::Overflow => "overflow",
            Reason::Pending => "pending",
        }
    }
}

/// What the manager reports around a rewrite.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A confirmed plan is about to be applied.
    Start {
        /// Why.
        reason: Reason,
        /// The estimate before the rewrite.
        estimate: u64,
        /// What will be summarized.
        plan: &'a Plan,
    },
    /// The rewrite finished: a record on success, the error otherwise.
    End {
        /// Why it started.
        reason: Reason,
        /// What happened, on success.
        record: Option<&'a Record>,
        /// What went wrong, on failure.
        error: Option<&'a Error>,
    },
}

/// How a [`ContextManager`] is configured.
#[derive(Debug, Clone, Copy)]
pub struct ManagerConfig {
    /// The model's documented context size; 0 (the default) disables maintenance.
    pub context_window_tokens: u64,
    /// Tokens kept free for the answer (default 16,384); a larger per-run max output wins.
    pub reserve_tokens: u64,
    /// The ahead mark as a fraction of the threshold (default [`DEFAULT_AHEAD_RATIO`]): above
    /// it, [`ContextManager::prepare_ahead`] makes the summary the next compaction would make.
    pub ahead_ratio: f64,
}

impl Default for ManagerConfig {
    fn default() -> Self {
        ManagerConfig {
            context_window_tokens: 0,
            reserve_tokens: DEFAULT_RESERVE_TOKENS,
            ahead_ratio: DEFAULT_AHEAD_RATIO,
        }
    }
}

impl ManagerConfig {
    /// A configured context window (at `path`) as [`ManagerConfig::context_window_tokens`]: a
    /// whole number turns maintenance on; missing, 0 or below leaves it off; NaN is an error.
    pub fn context_window(window: Option<f64>, path: &str) -> std::result::Result<u64, String> {
        match window {
            Some(n) if n.is_nan() => Err(text!(path, " must be a number")),
            Some(n) if n > 0.0 => crate::error::whole_number(n, path),
            _ => Ok(0),
        }
    }
}

/// Per-call maintenance inputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MaintainOptions<'a> {
    /// The run's output limit, reserved when larger than `reserve_tokens`.
    pub max_output_tokens: u64,
    /// Estimated tokens of skill invocations, withheld from the budget first.
    pub skill_tokens: u64,
    /// What the host asks a summary made by this call to focus on (`None`: nothing).
    pub focus: Option<&'a str>,
    /// A draft made ahead of time ([`ContextManager::prepare_ahead`]): over the threshold,
    /// [`ContextManager::maintain`] commits it instead of waiting for a summary when it still
    /// covers the state, and discards it otherwise.
    pub pending: Option<&'a Draft>,
}

/// Maintains a conversation around the host's model loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContextManager {
    context_window_tokens: u64,
    reserve_tokens: u64,
    ahead_ratio: f64,
}

impl ContextManager {
    /// A manager with `config`.
    pub fn new(config: ManagerConfig) -> Self {
        ContextManager {
            context_window_tokens: config.context_window_tokens,
            reserve_tokens: config.reserve_tokens,
            ahead_ratio: config.ahead_ratio,
        }
    }

    /// `max(0, window − max(reserve, max output)) − skill tokens`, or `None` when maintenance
    /// is disabled.
    pub fn input_budget(&self, options: MaintainOptions<'_>) -> Option<u64> {
        if self.context_window_tokens == 0 {
            return None;
        }
        let reserved = self.reserve_tokens.max(options.max_output_tokens);
        Some(
            self.context_window_tokens
                .saturating_sub(reserved)
                .saturating_sub(options.skill_tokens),
        )
    }

    /// Proactive maintenance, before a prompt is sent or after a tool loop: over the
    /// threshold, the pending draft when one is given and still covers the state
    /// ([`MaintainOptions::pending`]), then what the compactor decides
    /// ([`StateCompactor::decide`]: clearing old tool results first when its policy is on, else
    /// a summary). Fails only when the rewrite started and was cancelled; any other failure
    /// leaves the state unchanged and is reported on the result.
    pub async fn maintain<C: StateCompactor>(
        &self,
        compactor: &C,
        state: C::State,
        options: MaintainOptions<'_>,
        context: &C::Context,
    ) -> Result<Maintained<C::State>> {
        let Some(budget) = self.input_budget(options) else {
            return Ok(Maintained::skipped(state, Outcome::Disabled, None));
        };
        let facts = match compactor.facts(&state) {
            Ok(facts) => facts,
            Err(error) => {
                return Ok(Maintained::skipped(
                    state,
                    Outcome::EstimateFailed,
                    Some(error),
                ));
            }
        };
        let threshold = budget as f64 * compactor.trigger_ratio();
        if facts.total() as f64 <= threshold {
            return Ok(Maintained::skipped(state, Outcome::BelowThreshold, None));
        }
        let anchored = facts.calibration.anchor.is_some();
        // A pending draft first: committed (no summary waited for) when it covers the state.
        let (state, facts, pending) = match options.pending {
            None => (state, facts, ahead::Committed::None),
            Some(draft) => match ahead::commit_pending(compactor, state, facts, draft, threshold) {
                ahead::Pending::Done(done) => return Ok(reanchored(compactor, anchored, done)),
                ahead::Pending::Further(state, facts, pending) => (state, facts, pending),
            },
        };
        let options = MaintainOptions {
            pending: None,
            ..options
        };
        let done = self
            .decided(compactor, state, &facts, budget, options, context)
            .await?;
        Ok(reanchored(compactor, anchored, pending.merged(done)))
    }

    /// Maintenance of `state` (facts `facts`) over its threshold: what the compactor decides.
    async fn decided<C: StateCompactor>(
        &self,
        compactor: &C,
        state: C::State,
        facts: &RequestFacts,
        budget: u64,
        options: MaintainOptions<'_>,
        context: &C::Context,
    ) -> Result<Maintained<C::State>> {
        let skip = |state, outcome, error| Ok(Maintained::skipped(state, outcome, error));
        let threshold = budget as f64 * compactor.trigger_ratio();
        if facts.irreducible_tokens() as f64 > threshold {
            return skip(state, Outcome::Irreducible, None);
        }
        let plan_options = PlanOptions {
            input_token_budget: Some(budget),
            require_reduction: false,
        };
        let (done, outcome, cleared) = match compactor.decide(&state, facts, plan_options) {
            Ok(Some(Planned::Summarize(plan))) => {
                // A summary that cannot make the request fit is not worth its model call; a
                // trimmed message may make it fit.
                if let Some(error) = plan.too_large(&facts.messages, budget) {
                    let trimmed = trim_oversized(compactor, &state, facts, Some(&plan), budget);
                    match trimmed {
                        Some(done) => return finish((state, facts), done, Outcome::Trimmed, None),
                        None => return skip(state, Outcome::Irreducible, Some(error)),
                    }
                }
                let reason = Reason::Threshold;
                let how = (reason, options.focus);
                let done = rewrite(compactor, &state, facts, &plan, how, context).await;
                (done, Outcome::Compacted, None)
            }
            Ok(Some(Planned::Clear(clearing))) => {
                let done = clear(compactor, &state, facts, &clearing);
                (done, Outcome::Cleared, Some(clearing))
            }
            Ok(None) => match trim_oversized(compactor, &state, facts, None, budget) {
                Some(done) => (done, Outcome::Trimmed, None),
                None => return skip(state, Outcome::NothingToRemove, None),
            },
            Err(error) => return skip(state, Outcome::PlanFailed, Some(error)),
        };
        finish((state, facts), done, outcome, cleared)
    }

    /// Sends `state`; on a context-window rejection compacts with required reduction and sends
    /// again, at most [`MAX_OVERFLOW_RECOVERIES`] times.
    pub async fn run<C, R, E>(
        &self,
        compactor: &C,
        state: C::State,
        context: &C::Context,
        send: impl AsyncFnMut(&C::State) -> Result<R, E>,
        is_overflow: impl Fn(&E) -> bool,
    ) -> Result<Ran<C::State, R, E>, RunError<C::State, E>>
    where
        C: StateCompactor,
    {
        let focused = self.run_focused(compactor, state, None, context, send, is_overflow);
        focused.await
    }

    /// [`ContextManager::run`] whose recoveries' summaries focus on `focus`.
    pub async fn run_focused<C, R, E>(
        &self,
        compactor: &C,
        mut state: C::State,
        focus: Option<&str>,
        context: &C::Context,
        mut send: impl AsyncFnMut(&C::State) -> Result<R, E>,
        is_overflow: impl Fn(&E) -> bool,
    ) -> Result<Ran<C::State, R, E>, RunError<C::State, E>>
    where
        C: StateCompactor,
    {
        let mut compactions = Vec::new();
        let mut failed_attempts = Vec::new();
        loop {
            let error = match send(&state).await {
                Ok(response) => {
                    return Ok(Ran {
                        response,
                        state,
                        compactions,
                        failed_attempts,
                    });
                }
                Err(error) => error,
            };
            if !is_overflow(&error) || failed_attempts.len() == MAX_OVERFLOW_RECOVERIES {
                return Err(RunError {
                    failure: RunFailure::Provider(error),
                    state,
                    compactions,
                    failed_attempts,
                });
            }
            failed_attempts.push(error);
            let window = self.input_budget(MaintainOptions::default());
            match recover(compactor, &state, (focus, context), window).await {
                Ok((next, record)) => {
                    state = next;
                    compactions.push(record);
                }
                Err(error) => {
                    return Err(RunError {
                        failure: RunFailure::Compaction(error),
                        state,
                        compactions,
                        failed_attempts,
                    });
                }
            }
        }
    }
}

/// `done`, after the compactor kept the count a compaction leaves
/// ([`StateCompactor::anchor_compacted`]) when the estimate it started from was `anchored` to
/// what the provider counted: the usage on the answers it kept would anchor the next estimate
/// to a request that held what was summarized. A clearing or a trim lowers the anchor itself.
fn reanchored<C: StateCompactor>(
    compactor: &C,
    anchored: bool,
    done: Maintained<C::State>,
) -> Maintained<C::State> {
    if let (true, Outcome::Compacted, Some(record)) = (anchored, done.outcome, &done.record) {
        compactor.anchor_compacted(&done.state, record);
    }
    done
}

/// The required compaction of overflow recovery (no events unless a plan is confirmed); when
/// no prefix can be removed, trimming the newest tool result to `window` (or, when the estimate
/// is not above it, to 90% of the estimate), if the conversation trims.
async fn recover<C: StateCompactor>(
    compactor: &C,
    state: &C::State,
    (focus, context): (Option<&str>, &C::Context),
    window: Option<u64>,
) -> Result<(C::State, Record)> {
    let facts = compactor.facts(state)?;
    let options = PlanOptions {
        input_token_budget: None,
        require_reduction: true,
    };
    let summarized = match compactor.plan(&facts, options) {
        // A summary that cannot bring the request under the window is not worth its model
        // call: the trim below may still.
        Ok(Some(plan)) => match window.and_then(|w| plan.too_large(&facts.messages, w)) {
            Some(error) => Err(error),
            None => {
                let how = (Reason::Overflow, focus);
                let done = rewrite(compactor, state, &facts, &plan, how, context).await;
                // As after maintenance (`reanchored`): the kept answers' usage describes the
                // request that overflowed, for the next recovery and for whatever comes after
                // the run.
                if let Ok((next, record)) = &done
                    && facts.calibration.anchor.is_some()
                {
                    compactor.anchor_compacted(next, record);
                }
                done
            }
        },
        Ok(None) => Err(Error::NoReduction(
            "no raw message prefix can be removed".to_owned(),
        )),
        Err(error) => Err(error),
    };
    let failure = match summarized {
        Err(failure @ (Error::NoReduction(_) | Error::TooLarge(_))) => failure,
        other => return other,
    };
    let Some(window) = window else {
        return Err(failure);
    };
    let budget = window.min(facts.total() / 10 * 9);
    if let Some(trimmed) = compactor.trim(state, &facts, budget)? {
        return Ok(trimmed_with_events(compactor, state, &facts, trimmed));
    }
    // The window itself is the line here: the provider refused the request.
    if compactor.trims_messages()
        && let Some(over) = crate::oversized::oversized(&facts, None, budget, 1.0)
        && let Some(trimmed) = compactor.trim_message(state, &facts, &over)?
    {
        return Ok(trimmed_with_events(compactor, state, &facts, trimmed));
    }
    Err(failure)
}

/// Reports a trim as a rewrite that summarizes nothing (`first_kept_index` 0).
fn trimmed_with_events<C: StateCompactor>(
    compactor: &C,
    state: &C::State,
    facts: &RequestFacts,
    done: (C::State, Record),
) -> (C::State, Record) {
    with_events(compactor, state, facts, done, Reason::Overflow)
}

/// Reports a rewrite that summarizes nothing (a trim) for `reason`.
pub(super) fn with_events<C: StateCompactor>(
    compactor: &C,
    state: &C::State,
    facts: &RequestFacts,
    (next, record): (C::State, Record),
    reason: Reason,
) -> (C::State, Record) {
    let plan = crate::clearing::nothing_summarized(facts, record.estimate_after);
    report_done(compactor, state, facts, &plan, &record, reason);
    (next, record)
}

/// The start and end events of a rewrite already done: `plan` carried out, `record` its
/// outcome.
pub(super) fn report_done<C: StateCompactor>(
    compactor: &C,
    state: &C::State,
    facts: &RequestFacts,
    plan: &Plan,
    record: &Record,
    reason: Reason,
) {
    let estimate = facts.total();
    compactor.emit(
        state,
        Event::Start {
            reason,
            estimate,
            plan,
        },
    );
    compactor.emit(
        state,
        Event::End {
            reason,
            record: Some(record),
            error: None,
        },
    );
}

/// A clearing between its start and end events (reason `Threshold`).
fn clear<C: StateCompactor>(
    compactor: &C,
    state: &C::State,
    facts: &RequestFacts,
    clearing: &Clearing,
) -> Result<(C::State, Record)> {
    let reason = Reason::Threshold;
    let plan = clearing.as_plan(facts);
    let estimate = facts.total();
    let start = Event::Start {
        reason,
        estimate,
        plan: &plan,
    };
    compactor.emit_clearing(state, start, clearing);
    let outcome = compactor.clear(state, facts, clearing);
    let (record, error) = match &outcome {
        Ok((_, record)) => (Some(record), None),
        Err(error) => (None, Some(error)),
    };
    let end = Event::End {
        reason,
        record,
        error,
    };
    compactor.emit_clearing(state, end, clearing);
    outcome
}

/// One rewrite between its start and end events, for `reason` and with the host's `focus`.
async fn rewrite<C: StateCompactor>(
    compactor: &C,
    state: &C::State,
    facts: &RequestFacts,
    plan: &Plan,
    (reason, focus): (Reason, Option<&str>),
    context: &C::Context,
) -> Result<(C::State, Record)> {
    compactor.emit(
        state,
        Event::Start {
            reason,
            estimate: facts.total(),
            plan,
        },
    );
    let require_reduction = reason == Reason::Overflow;
    let outcome = compactor
        .apply(state, facts, plan, require_reduction, focus, context)
        .await;
    match &outcome {
        Ok((_, record)) => compactor.emit(
            state,
            Event::End {
                reason,
                record: Some(record),
                error: None,
            },
        ),
        Err(error) => compactor.emit(
            state,
            Event::End {
                reason,
                record: None,
                error: Some(error),
            },
        ),
    }
    outcome
}
