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
use crate::summarizer::LocalFuture;

pub use ahead::{Ahead, AheadOutcome, DEFAULT_AHEAD_RATIO, PendingUse};
pub use learned::{Learned, Lessons, Sent, rewritten_anchor};
pub use local::{Local, OwnedState};

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

/// A compactor bound to one kind of host state: what the manager needs to estimate, plan and
/// rewrite that state.
pub trait StateCompactor {
    /// The host's conversation state.
    type State;
    /// The per-call context (the wasm layer's `AbortSignal`).
    type Context: ?Sized;

    /// The facts of `state` (the estimate's inputs).
    fn facts(&self, state: &Self::State) -> Result<RequestFacts>;
    /// Plans with the compactor's policy.
    fn plan(&self, facts: &RequestFacts, options: PlanOptions) -> Result<Option<Plan>>;
    /// What maintenance does with `state` over its threshold: with the compactor's clearing
    /// policy on, clearing old tool results when that is enough, else the summary plan
    /// ([`crate::Compactor::decide_with`]). The default only summarizes ([`Self::plan`]).
    fn decide(
        &self,
        _state: &Self::State,
        facts: &RequestFacts,
        options: PlanOptions,
    ) -> Result<Option<Planned>> {
        Ok(self.plan(facts, options)?.map(Planned::Summarize))
    }
    /// Rewrites `state` with a `clearing` [`Self::decide`] gave: the new state (its summary
    /// unchanged) and the record ([`Clearing::record`]). The default clears nothing: a
    /// compactor whose `decide` never clears is never asked to.
    fn clear(
        &self,
        _state: &Self::State,
        _facts: &RequestFacts,
        clearing: &Clearing,
    ) -> Result<(Self::State, Record)> {
        let _ = clearing;
        Err(Error::invalid_request("this state cannot be cleared"))
    }
    /// Reports an event of a `clearing` of `state` (its start's `plan` is the clearing as a
    /// plan that summarizes nothing, [`Clearing::as_plan`]); the default as any other event.
    fn emit_clearing(&self, state: &Self::State, event: Event<'_>, clearing: &Clearing) {
        let _ = clearing;
        self.emit(state, event);
    }
    /// The compactor's trigger ratio.
    fn trigger_ratio(&self) -> f64;
    /// Applies `plan` to `state`, returning the new state and its record; `focus` is what the
    /// host asked the summary to focus on.
    fn apply<'a>(
        &'a self,
        state: &'a Self::State,
        facts: &'a RequestFacts,
        plan: &'a Plan,
        require_reduction: bool,
        focus: Option<&'a str>,
        context: &'a Self::Context,
    ) -> LocalFuture<'a, Result<(Self::State, Record)>>;
    /// The summary [`Self::apply`] would store for `plan`, not applied (a [`Draft`]). The
    /// default makes none: a compactor without it never prepares ahead of time.
    fn draft<'a>(
        &'a self,
        _state: &'a Self::State,
        _facts: &'a RequestFacts,
        _plan: &'a Plan,
        _focus: Option<&'a str>,
        _context: &'a Self::Context,
    ) -> LocalFuture<'a, Result<Draft>> {
        Box::pin(std::future::ready(Err(Error::invalid_request(
            "this state cannot be summarized ahead of time",
        ))))
    }
    /// Whether `draft` still covers `state`: [`Error::Stale`] unless the summary it replaces is
    /// the state's and the messages it summarizes are there, unchanged
    /// ([`Draft::check_covers`]).
    fn covers(&self, _state: &Self::State, _draft: &Draft) -> Result<()> {
        Err(Error::invalid_request("this state cannot commit a draft"))
    }
    /// Commits `draft` onto `state` (whose facts are `facts`): [`Error::Stale`] unless the
    /// draft still covers it ([`Draft::check_covers`]), else the new state and its record, as
    /// [`Self::apply`] would give them had the summarizer answered `draft.summary`.
    fn commit(
        &self,
        _state: &Self::State,
        _facts: &RequestFacts,
        _draft: &Draft,
    ) -> Result<(Self::State, Record)> {
        Err(Error::invalid_request("this state cannot commit a draft"))
    }
    /// Reports an event about `state` (the state being rewritten); must not fail.
    fn emit(&self, state: &Self::State, event: Event<'_>);
    /// Overflow recovery when no prefix can be removed: `state` with the middle of its newest
    /// tool result trimmed so that its estimate comes down to `budget`, and the record (the
    /// summary unchanged, `first_kept_index` 0, `trimmed`). The default trims nothing.
    fn trim(
        &self,
        _state: &Self::State,
        _facts: &RequestFacts,
        _budget: u64,
    ) -> Result<Option<(Self::State, Record)>> {
        Ok(None)
    }
    /// Whether an oversized user message may be trimmed (`trimOversized`). Off by default.
    fn trims_messages(&self) -> bool {
        false
    }
    /// `state` with the user message `over` names trimmed ([`crate::oversized`]), and the
    /// record (the summary unchanged, `first_kept_index` 0, `trimmed`). The default trims
    /// nothing.
    fn trim_message(
        &self,
        _state: &Self::State,
        _facts: &RequestFacts,
        _over: &crate::oversized::Oversized,
    ) -> Result<Option<(Self::State, Record)>> {
        Ok(None)
    }
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
            Some(n) if n.is_nan() => Err(format!("{path} must be a number")),
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
    /// What was cleared, when `outcome` is `Cleared`.
    pub cleared: Option<Clearing>,
    /// What became of the pending draft the call was given.
    pub pending: PendingUse,
}

impl<S> Maintained<S> {
    /// `state` unchanged, with why and the failure behind it (no pending draft used).
    fn skipped(state: S, outcome: Outcome, error: Option<Error>) -> Self {
        Maintained {
            state,
            outcome,
            record: None,
            error,
            cleared: None,
            pending: PendingUse::None,
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
        // A pending draft first: committed (no summary waited for) when it covers the state.
        let (state, facts, pending) = match options.pending {
            None => (state, facts, ahead::Committed::None),
            Some(draft) => match ahead::commit_pending(compactor, state, facts, draft, threshold) {
                ahead::Pending::Done(done) => return Ok(done),
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
        Ok(pending.merged(done))
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
                        Some(done) => return finish(state, done, Outcome::Trimmed, None),
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
        finish(state, done, outcome, cleared)
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
                rewrite(compactor, state, &facts, &plan, how, context).await
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
    let estimate = facts.total();
    compactor.emit(
        state,
        Event::Start {
            reason,
            estimate,
            plan: &plan,
        },
    );
    compactor.emit(
        state,
        Event::End {
            reason,
            record: Some(&record),
            error: None,
        },
    );
    (next, record)
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
