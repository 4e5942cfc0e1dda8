//! The [`Compactor`]: configuration, and the plan / apply / compact entry points.

use std::borrow::Cow;

use crate::apply::{self, Applied, ApplyInput, CommitInput, Compaction};
use crate::clearing::{self, Clearing, ClearingPolicy, Found};
use crate::draft::{Digest, Draft};
use crate::error::{Error, Result};
use crate::facts::RequestFacts;
use crate::history::History;
use crate::ledger::Ledger;
use crate::plan::{self, Plan};
use crate::reported;
use crate::request::{PlanOptions, Request};
use crate::summarizer::Summarizer;
use crate::summary::FileTracking;
use crate::tail::{self, FromTail, Unread};
use crate::token::Estimator;

/// `keepRecentTokens` when none is configured.
pub const DEFAULT_KEEP_RECENT_TOKENS: u64 = 20_000;

/// How a [`Compactor`] is configured; [`CompactorConfig::new`] gives the default policy.
#[derive(Debug, Clone)]
pub struct CompactorConfig<S> {
    /// Tokens of recent raw messages to keep (default 20,000). It selects what to keep and
    /// does not cap the summary's length.
    pub keep_recent_tokens: u64,
    /// Multiplies the input budget; positive and finite, may exceed 1 (default 1.0).
    pub trigger_ratio: f64,
    /// Turns messages into summary text.
    pub summarizer: S,
    /// Which tool calls the summary's file lists come from (default `read`, `write`, `edit`
    /// with the path in `path`, `file_path` or `filePath`).
    pub file_tracking: FileTracking,
    /// Clearing old tool results before summarizing (`None`, the default: never clear; see
    /// [`Compactor::decide`]).
    pub clearing: Option<ClearingPolicy>,
    /// Whether a `ContextManager` trims the middle of a user message too large for the window
    /// instead of failing with `too_large` (`trimOversized`, [`crate::oversized`]; default off).
    pub trim_oversized: bool,
}

impl<S> CompactorConfig<S> {
    /// A configuration with default policy and `summarizer`.
    pub fn new(summarizer: S) -> Self {
        CompactorConfig {
            keep_recent_tokens: DEFAULT_KEEP_RECENT_TOKENS,
            trigger_ratio: 1.0,
            summarizer,
            file_tracking: FileTracking::default(),
            clearing: None,
            trim_oversized: false,
        }
    }
}

/// What a [`Compactor`] decided to do with a request over its trigger.
#[derive(Debug, Clone, PartialEq)]
pub enum Planned {
    /// Clear these old tool results: no summary is needed.
    Clear(Clearing),
    /// Summarize up to here.
    Summarize(Plan),
}

/// What [`Compactor::decide_history`] decided, and over which facts.
#[derive(Debug, Clone)]
pub struct HistoryDecision {
    /// The facts it decided over, calibrated (placeholders before a tail it planned from, but
    /// for the system messages).
    pub facts: RequestFacts,
    /// What to do (`None`: nothing).
    pub planned: Option<Planned>,
    /// The messages neither read nor sized, when a tail decided.
    pub unread_before: Option<Unread>,
}

/// What [`Compactor::decide_ledger`] decided for a conversation handle.
#[derive(Debug, Clone)]
pub enum LedgerDecision {
    /// The ledger's summary plan (`None`: nothing to do).
    Summarize(Option<Plan>),
    /// Clear these old tool results, planned over these facts (the fixed parts and every
    /// message's); boxed, so that the decision moves a pointer, not the facts (0.1 KB gzip of
    /// the module).
    Clear(Box<(RequestFacts, Clearing)>),
}

/// Plans and applies compactions with one policy and one summarizer.
#[derive(Debug)]
pub struct Compactor<S> {
    keep_recent_tokens: u64,
    trigger_ratio: f64,
    summarizer: S,
    file_tracking: FileTracking,
    clearing: Option<ClearingPolicy>,
    trim_oversized: bool,
}

impl<S: Summarizer> Compactor<S> {
    /// Checks `config` and builds a compactor; errors are [`Error::InvalidConfig`].
    pub fn new(config: CompactorConfig<S>) -> Result<Self> {
        let trigger_ratio = config.trigger_ratio;
        if !trigger_ratio.is_finite() || trigger_ratio <= 0.0 {
            return Err(Error::invalid_config(text!(
                "triggerRatio must be a positive finite number, got ",
                crate::error::show_number(trigger_ratio)
            )));
        }
        config
            .summarizer
            .validate()
            .map_err(Error::invalid_config)?;
        Ok(Compactor {
            keep_recent_tokens: config.keep_recent_tokens,
            trigger_ratio,
            summarizer: config.summarizer,
            file_tracking: config.file_tracking,
            clearing: config.clearing,
            trim_oversized: config.trim_oversized,
        })
    }

    /// Tokens of recent messages kept.
    pub fn keep_recent_tokens(&self) -> u64 {
        self.keep_recent_tokens
    }

    /// The trigger ratio.
    pub fn trigger_ratio(&self) -> f64 {
        self.trigger_ratio
    }

    /// The summarizer.
    pub fn summarizer(&self) -> &S {
        &self.summarizer
    }

    /// The clearing policy (`None`: clearing is off).
    pub fn clearing(&self) -> Option<&ClearingPolicy> {
        self.clearing.as_ref()
    }

    /// Whether a manager trims an oversized user message ([`CompactorConfig::trim_oversized`]).
    pub fn trims_oversized(&self) -> bool {
        self.trim_oversized
    }

    /// Decides what to do with `request`, without calling the summarizer: with the clearing
    /// policy on, clearing old tool results when that alone brings the estimate to the
    /// trigger; else the summary plan of [`Compactor::plan`]. `Ok(None)`: nothing to do.
    pub fn decide(&self, request: &Request) -> Result<Option<Planned>> {
        let facts = RequestFacts::of(request)?;
        let options = request.options();
        let mut find = |policy: &ClearingPolicy| {
            Found::of_messages(request.messages, &policy.file_tracking, request.estimator)
        };
        let mut summarize = || self.plan_with_facts(&facts, options);
        self.decide_with(
            &facts,
            options,
            request.estimator,
            &mut find,
            &mut summarize,
        )
    }

    /// The one rule every way of planning follows (this compactor, a conversation handle, a
    /// `ContextManager`, the AI SDK entry): clear first, summarize only when clearing is not
    /// enough. With the policy on and `facts` over the trigger (never with a required
    /// reduction), the results and calls `find` reads (only then) are planned for clearing,
    /// and a clearing that alone brings the estimate to the trigger is the decision; otherwise
    /// `summarize` gives the summary plan. Each is called at most once (`dyn`: one copy of
    /// the rule in the module, whatever the callers).
    pub fn decide_with(
        &self,
        facts: &RequestFacts,
        options: PlanOptions,
        estimator: &dyn Estimator,
        find: &mut dyn FnMut(&ClearingPolicy) -> Result<Found>,
        summarize: &mut dyn FnMut() -> Result<Option<Plan>>,
    ) -> Result<Option<Planned>> {
        if let Some(policy) = &self.clearing
            && self.wants_clearing(facts, options)
        {
            let found = find(policy)?;
            if let Some(clearing) =
                self.clearing_instead(&found, facts, options, policy, estimator)?
            {
                return Ok(Some(Planned::Clear(clearing)));
            }
        }
        Ok(summarize()?.map(Planned::Summarize))
    }

    /// The summary plan: whether and where to summarize, without calling the summarizer
    /// ([`Compactor::decide`] clears first when the clearing policy is on).
    ///
    /// `Ok(None)` when the estimate is not strictly above `input_token_budget × trigger_ratio`
    /// or no raw prefix can be removed. With `require_reduction` the threshold is bypassed and a
    /// missing removable prefix is [`Error::NoReduction`].
    pub fn plan(&self, request: &Request) -> Result<Option<Plan>> {
        self.plan_with_facts(&RequestFacts::of(request)?, request.options())
    }

    /// [`Compactor::plan`] from facts the caller kept, so a grown history only needs facts
    /// for its new messages.
    pub fn plan_with_facts(
        &self,
        facts: &RequestFacts,
        options: PlanOptions,
    ) -> Result<Option<Plan>> {
        plan::plan(facts, options, self.keep_recent_tokens, self.trigger_ratio)
    }

    /// [`Compactor::plan_with_facts`] over `facts` (calibrated) of which only messages
    /// `start..` and the system messages before were read, the others placeholders (see
    /// [`crate::tail`]): `None` when that tail does not decide the plan of the whole history
    /// (nor its error, which a longer tail may not have).
    pub fn plan_from_tail(
        &self,
        facts: &RequestFacts,
        start: usize,
        options: PlanOptions,
    ) -> Result<Option<Option<Plan>>> {
        let (keep, ratio) = (self.keep_recent_tokens, self.trigger_ratio);
        tail::plan_from_tail(facts, start, options, keep, ratio)
    }

    /// [`Compactor::plan`] of a [`History`] read piece by piece: a long history anchored to
    /// the usage its provider reported is planned from its tail ([`Compactor::plan_tail`]),
    /// any other read whole. The facts are those the plan was made over.
    pub fn plan_history<H: History + ?Sized>(
        &self,
        history: &H,
        options: PlanOptions,
    ) -> Result<FromTail> {
        let facts = match self.try_tail(history, options)? {
            tail::Tried::Planned(planned) => return Ok(planned),
            tail::Tried::Not(Some(latest)) => reported::history_facts_after(history, &[], latest)?,
            tail::Tried::Not(None) => reported::history_facts(history, &[])?,
        };
        let plan = self.plan_with_facts(&facts, options)?;
        Ok(FromTail {
            facts,
            plan,
            unread_before: None,
        })
    }

    /// The plan of `history` from a tail of it (see [`crate::tail`]), reading no message before
    /// the tail but the system messages; `None` when the history is short, when nothing usable
    /// was reported, or when no tail short of the whole history decides the plan.
    pub fn plan_tail<H: History + ?Sized>(
        &self,
        history: &H,
        options: PlanOptions,
    ) -> Result<Option<FromTail>> {
        Ok(match self.try_tail(history, options)? {
            tail::Tried::Planned(planned) => Some(planned),
            tail::Tried::Not(_) => None,
        })
    }

    /// [`Compactor::plan_tail`], with the latest messages it read when it gave up
    /// ([`tail::Latest`]: the caller reads only those before them,
    /// [`reported::history_facts_after`]).
    pub fn try_tail<H: History + ?Sized>(
        &self,
        history: &H,
        options: PlanOptions,
    ) -> Result<tail::Tried> {
        tail::plan(tail::Asked {
            history,
            options,
            keep_recent_tokens: self.keep_recent_tokens,
            trigger_ratio: self.trigger_ratio,
        })
    }

    /// [`Compactor::decide`] for a [`History`] read piece by piece (what `Compactor.plan`
    /// shows a JavaScript caller): a long anchored history is planned from its tail when that
    /// decides it and clearing cannot replace the plan (clearing reads every message), else
    /// from the facts of every message; then clear first, summarize only when clearing is not
    /// enough. `find` reads the results and calls of the messages whose facts it is given. The
    /// summary plan's `message_tokens` is left empty: the estimates are the facts'.
    pub fn decide_history<H: History + ?Sized>(
        &self,
        history: &H,
        options: PlanOptions,
        find: &mut dyn FnMut(&ClearingPolicy, &RequestFacts) -> Result<Found>,
    ) -> Result<HistoryDecision> {
        let tail = match self.try_tail(history, options)? {
            tail::Tried::Planned(planned) if self.clearing.is_none() || planned.plan.is_none() => {
                planned
            }
            tried => {
                // When the tail gave up, the latest messages it read are not read again.
                let facts = match tried {
                    tail::Tried::Not(Some(latest)) => {
                        reported::history_facts_after(history, &[], latest)?
                    }
                    _ => reported::history_facts(history, &[])?,
                };
                let (keep, ratio) = (self.keep_recent_tokens, self.trigger_ratio);
                let plan = plan::plan_without_tokens(&facts, options, keep, ratio)?;
                FromTail {
                    facts,
                    plan,
                    unread_before: None,
                }
            }
        };
        let (facts, mut plan) = (&tail.facts, tail.plan.clone());
        let estimator = history.parts().estimator;
        let planned = self.decide_with(
            facts,
            options,
            estimator,
            &mut |policy| find(policy, facts),
            &mut || Ok(plan.take()),
        )?;
        Ok(HistoryDecision {
            facts: tail.facts,
            planned,
            unread_before: tail.unread_before,
        })
    }

    /// The clearing half of [`Compactor::decide`] with `policy` in place of the configured
    /// one: when the estimate is over the trigger, the clearing of old tool results that
    /// alone brings it to the trigger, so that no summary is needed; `None` otherwise (then
    /// [`Compactor::plan`] says what to summarize). A required reduction always summarizes.
    /// [`clearing::clear_messages`] performs it.
    pub fn plan_clearing(
        &self,
        request: &Request,
        policy: &ClearingPolicy,
    ) -> Result<Option<Clearing>> {
        let facts = RequestFacts::of(request)?;
        if !self.wants_clearing(&facts, request.options()) {
            return Ok(None);
        }
        let found = Found::of_messages(request.messages, &policy.file_tracking, request.estimator)?;
        self.clearing_instead(&found, &facts, request.options(), policy, request.estimator)
    }

    /// Whether a request with `facts` is over the trigger, where clearing is worth trying
    /// (never with a required reduction).
    fn wants_clearing(&self, facts: &RequestFacts, options: PlanOptions) -> bool {
        let Some(budget) = options.input_token_budget else {
            return false;
        };
        !options.require_reduction && facts.total() as f64 > budget as f64 * self.trigger_ratio
    }

    /// [`Compactor::plan_clearing`] for a conversation of any format whose results and calls
    /// are `found` ([`clearing::Finder`]) and whose facts are `facts`.
    pub fn clearing_instead(
        &self,
        found: &Found,
        facts: &RequestFacts,
        options: PlanOptions,
        policy: &ClearingPolicy,
        estimator: &dyn Estimator,
    ) -> Result<Option<Clearing>> {
        let Some(budget) = options.input_token_budget else {
            return Ok(None);
        };
        let limits = clearing::Limits {
            keep_recent_tokens: self.keep_recent_tokens,
            input_token_budget: Some(budget),
        };
        let planned = clearing::plan(found, facts, policy, limits, estimator)?;
        Ok(planned.filter(|c| clearing::is_enough(c, budget, self.trigger_ratio)))
    }

    /// [`Compactor::plan`] over a [`Ledger`] the caller appends to: O(kept messages) per call.
    /// `fixed` gives the system prompt, summary and tools (its messages are not read).
    pub fn plan_with_ledger(
        &self,
        fixed: &RequestFacts,
        ledger: &Ledger,
        options: PlanOptions,
    ) -> Result<Option<Plan>> {
        ledger.plan(fixed, options, self.keep_recent_tokens, self.trigger_ratio)
    }

    /// [`Compactor::decide_with`] over a [`Ledger`]: clear first when the clearing policy is
    /// on, else [`Compactor::plan_with_ledger`]. `fixed` gives the system prompt, summary and
    /// tools, as calibrated by [`Ledger::calibrate`]; `find` reads the results and calls of the
    /// messages whose facts it is given, only when clearing is wanted. Without the policy the
    /// ledger plans alone, with no copy of every message's facts.
    pub fn decide_ledger(
        &self,
        fixed: &RequestFacts,
        ledger: &Ledger,
        options: PlanOptions,
        estimator: &dyn Estimator,
        find: &mut dyn FnMut(&ClearingPolicy, &RequestFacts) -> Result<Found>,
    ) -> Result<LedgerDecision> {
        let mut summarize = || self.plan_with_ledger(fixed, ledger, options);
        if self.clearing.is_none() {
            return Ok(LedgerDecision::Summarize(summarize()?));
        }
        let facts = RequestFacts {
            messages: ledger.facts().to_vec(),
            ..fixed.clone()
        };
        let mut find = |policy: &ClearingPolicy| find(policy, &facts);
        Ok(
            match self.decide_with(&facts, options, estimator, &mut find, &mut summarize)? {
                Some(Planned::Clear(cleared)) => LedgerDecision::Clear(Box::new((facts, cleared))),
                Some(Planned::Summarize(plan)) => LedgerDecision::Summarize(Some(plan)),
                None => LedgerDecision::Summarize(None),
            },
        )
    }

    /// Executes `plan`: summarizes, replaces the summary, trims the messages and writes the
    /// record. `None` is an unconditional no-op; a given plan is trusted, not re-planned.
    /// `context` goes to the summarizer as it is; cancellation is not checked here.
    pub async fn apply<'a>(
        &self,
        request: &Request<'a>,
        plan: Option<&Plan>,
        context: &S::Context,
    ) -> Result<Compaction<'a>> {
        apply::apply(
            &self.summarizer,
            &self.file_tracking,
            request,
            plan,
            context,
        )
        .await
    }

    /// [`Compactor::apply`] for a caller that kept the request's facts and hands over only
    /// the messages the plan summarizes (already checked to fit the facts).
    pub async fn apply_with_facts(
        &self,
        input: ApplyInput<'_>,
        plan: &Plan,
        context: &S::Context,
    ) -> Result<Applied> {
        apply::apply_with_facts(&self.summarizer, &self.file_tracking, input, plan, context).await
    }

    /// The summary [`Compactor::apply`] would store for `plan`, not applied: a [`Draft`] the
    /// host may show, edit ([`Draft::summary`]) and later [`Compactor::commit`], or drop. The
    /// summarizer is called (and the host's review asked) as apply would.
    pub async fn draft(
        &self,
        request: &Request<'_>,
        plan: &Plan,
        context: &S::Context,
    ) -> Result<Draft> {
        let facts = RequestFacts::of(request)?;
        let (history, prefix) = apply::summarized(request.messages, plan);
        let input = ApplyInput {
            facts: &facts,
            summary: request.summary,
            history,
            turn_prefix: prefix,
            require_reduction: request.require_reduction,
            estimator: request.estimator,
            focus: request.focus,
        };
        self.draft_with_facts(input, plan, context).await
    }

    /// [`Compactor::draft`] for a caller that kept the request's facts (see
    /// [`Compactor::apply_with_facts`]).
    pub async fn draft_with_facts(
        &self,
        input: ApplyInput<'_>,
        plan: &Plan,
        context: &S::Context,
    ) -> Result<Draft> {
        apply::draft_with_facts(&self.summarizer, &self.file_tracking, input, plan, context).await
    }

    /// Commits `draft` onto `request`: the state [`Compactor::apply`] gives when the summarizer
    /// answers `draft.summary`. The request may have grown since the draft was made (messages
    /// added after it are kept); [`Error::Stale`] when its summary is not the one the draft
    /// replaced or a message the draft covers changed. Calls no summarizer.
    pub fn commit<'a>(&self, request: &Request<'a>, draft: &Draft) -> Result<Compaction<'a>> {
        let facts = RequestFacts::of(request)?;
        draft.check_covers(request.summary, request.messages.len(), |range, _| {
            // Canonical messages are whole units: a cut inside one is a cut at a step.
            let covered = request.messages.get(range).unwrap_or(&[]);
            Ok(Digest::of_summarized(&[covered]))
        })?;
        let input = CommitInput {
            facts: &facts,
            require_reduction: request.require_reduction,
            estimator: request.estimator,
        };
        let applied = apply::commit_with_facts(input, draft)?;
        let kept = request
            .messages
            .get(draft.first_kept_index..)
            .unwrap_or(&[]);
        Ok(Compaction {
            summary: applied.summary,
            messages: Cow::Borrowed(kept),
            record: Some(applied.record),
            cleared: None,
        })
    }

    /// Carries out what [`Compactor::decide`] decided: a clearing rewrites the results it
    /// names (no summarizer call; the summary stays, the record says what the clearing freed
    /// and [`Compaction::cleared`] what it cleared), a summary plan is [`Compactor::apply`]'d.
    /// `None` is a no-op.
    pub async fn apply_planned<'a>(
        &self,
        request: &Request<'a>,
        planned: Option<&Planned>,
        context: &S::Context,
    ) -> Result<Compaction<'a>> {
        match planned {
            Some(Planned::Clear(clearing)) => Ok(Compaction {
                summary: request.summary.to_owned(),
                messages: Cow::Owned(clearing::clear_messages(request.messages, clearing)),
                record: Some(clearing.record(request.summary)),
                cleared: Some(clearing.clone()),
            }),
            Some(Planned::Summarize(plan)) => self.apply(request, Some(plan), context).await,
            None => self.apply(request, None, context).await,
        }
    }

    /// Decides ([`Compactor::decide`]: clear first when the policy is on), then carries it
    /// out.
    pub async fn compact<'a>(
        &self,
        request: &Request<'a>,
        context: &S::Context,
    ) -> Result<Compaction<'a>> {
        let planned = self.decide(request)?;
        self.apply_planned(request, planned.as_ref(), context).await
    }
}
