//! The seam the manager works through: a compactor bound to one kind of host state
//! ([`Local`](super::Local) for Rust callers, the wasm layer's own for JavaScript state
//! objects).

use super::Event;
use crate::apply::Record;
use crate::clearing::Clearing;
use crate::compactor::Planned;
use crate::draft::Draft;
use crate::error::{Error, Result};
use crate::facts::RequestFacts;
use crate::plan::Plan;
use crate::request::PlanOptions;
use crate::summarizer::LocalFuture;

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
    /// After maintenance compacted a state whose estimate was anchored to what the provider
    /// counted into `state` (`record` the compaction's): keeps the count the compaction leaves
    /// ([`super::compacted_anchor`]) until an answer reports the new request. The default
    /// keeps nothing (a state that holds its reports drops them when compacted).
    fn anchor_compacted(&self, _state: &Self::State, _record: &Record) {}
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
