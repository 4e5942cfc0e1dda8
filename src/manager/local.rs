//! A [`StateCompactor`] over owned Rust state, for hosts that use the crate directly.

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::{Event, StateCompactor};
use crate::anchor::Report;
use crate::apply::{ApplyInput, Record};
use crate::clearing::{self, Clearing, Found};
use crate::compactor::{Compactor, Planned};
use crate::draft::{Digest, Draft};
use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts, estimator_failed};
use crate::message::{Message, ToolDefinition};
use crate::oversized::Oversized;
use crate::plan::Plan;
use crate::request::{PlanOptions, Request};
use crate::summarizer::{LocalFuture, Summarizer};
use crate::token::Estimator;

/// A conversation's state: what is sent to the model besides the new prompt.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OwnedState {
    /// The system prompt.
    pub system_prompt: String,
    /// The current summary ("" when none).
    pub summary: String,
    /// The raw messages after the summary.
    pub messages: Vec<Message>,
    /// Tool definitions (counted in the estimate).
    pub tools: Vec<ToolDefinition>,
    /// What the provider counted for earlier requests of this state (`crate::anchor`); a
    /// compaction leaves none (they describe the history before it).
    pub reports: Vec<Report>,
}

/// Owned state, compacted by `compactor`, estimated by `estimator`, events to `on_event`.
pub struct Local<'a, S> {
    /// Plans and applies.
    pub compactor: &'a Compactor<S>,
    /// Drives every estimate.
    pub estimator: &'a dyn Estimator,
    /// Receives start and end events; a panic in it is contained.
    pub on_event: &'a dyn Fn(Event<'_>),
}

impl<S> Local<'_, S> {
    /// The request of `state`, with the estimator and reports maintenance estimates it with.
    fn request<'s>(&'s self, state: &'s OwnedState) -> Request<'s> {
        Request {
            system_prompt: &state.system_prompt,
            summary: &state.summary,
            messages: &state.messages,
            tools: &state.tools,
            estimator: self.estimator,
            reports: &state.reports,
            ..Request::new(&[])
        }
    }

    /// The input of a summary of what `plan` summarizes in `state`.
    fn input<'s>(
        &'s self,
        state: &'s OwnedState,
        facts: &'s RequestFacts,
        plan: &Plan,
        require_reduction: bool,
        focus: Option<&'s str>,
    ) -> ApplyInput<'s> {
        let slice = |range: std::ops::Range<usize>| state.messages.get(range).unwrap_or(&[]);
        ApplyInput {
            facts,
            summary: &state.summary,
            history: slice(plan.messages_to_summarize.clone()),
            turn_prefix: slice(plan.turn_prefix_messages.clone()),
            require_reduction,
            estimator: self.estimator,
            focus,
        }
    }

    /// The reports of `state` once its messages are rewritten into `messages` (a clearing):
    /// the report its estimate was anchored to counts what the rewrite freed less (calibrated,
    /// [`Report::rewritten`]), so that the next estimate sees the smaller request until an
    /// answer reports it; the others are kept.
    fn reports_after(
        &self,
        state: &OwnedState,
        facts: &RequestFacts,
        messages: &[Message],
    ) -> Result<Vec<Report>> {
        let Some(anchor) = facts.calibration.anchor else {
            return Ok(state.reports.clone());
        };
        let raw = |messages: &[Message]| -> Result<u64> {
            let mut sum = 0;
            for (i, message) in messages.iter().take(anchor.messages).enumerate() {
                let facts = MessageFacts::of(message, self.estimator)
                    .map_err(|e| estimator_failed(&text!("messages[", i, "]"), e))?;
                sum += facts.tokens;
            }
            Ok(sum)
        };
        let rewritten = anchor.rewritten(raw(&state.messages)?, raw(messages)?, &facts.calibration);
        let swap = |r: &Report| if *r == anchor { rewritten } else { *r };
        Ok(state.reports.iter().map(swap).collect())
    }
}

impl<S: Summarizer> StateCompactor for Local<'_, S> {
    type State = OwnedState;
    type Context = S::Context;

    fn facts(&self, state: &OwnedState) -> Result<RequestFacts> {
        RequestFacts::of(&self.request(state))
    }

    fn plan(&self, facts: &RequestFacts, options: PlanOptions) -> Result<Option<Plan>> {
        self.compactor.plan_with_facts(facts, options)
    }

    fn trigger_ratio(&self) -> f64 {
        self.compactor.trigger_ratio()
    }

    fn decide(
        &self,
        state: &OwnedState,
        facts: &RequestFacts,
        options: PlanOptions,
    ) -> Result<Option<Planned>> {
        let estimator = self.estimator;
        let mut find = |policy: &clearing::ClearingPolicy| {
            Found::of_messages(&state.messages, &policy.file_tracking, estimator)
        };
        let mut summarize = || self.compactor.plan_with_facts(facts, options);
        let compactor = self.compactor;
        compactor.decide_with(facts, options, estimator, &mut find, &mut summarize)
    }

    fn clear(
        &self,
        state: &OwnedState,
        facts: &RequestFacts,
        clearing: &Clearing,
    ) -> Result<(OwnedState, Record)> {
        let messages = clearing::clear_messages(&state.messages, clearing);
        let reports = self.reports_after(state, facts, &messages)?;
        let next = OwnedState {
            messages,
            reports,
            ..state.clone()
        };
        Ok((next, clearing.record(&state.summary)))
    }

    fn apply<'a>(
        &'a self,
        state: &'a OwnedState,
        facts: &'a RequestFacts,
        plan: &'a Plan,
        require_reduction: bool,
        focus: Option<&'a str>,
        context: &'a S::Context,
    ) -> LocalFuture<'a, Result<(OwnedState, Record)>> {
        Box::pin(async move {
            let input = self.input(state, facts, plan, require_reduction, focus);
            let applied = self
                .compactor
                .apply_with_facts(input, plan, context)
                .await?;
            let kept = state.messages.get(plan.first_kept_index..).unwrap_or(&[]);
            let next = OwnedState {
                summary: applied.summary,
                messages: kept.to_vec(),
                reports: Vec::new(),
                ..state.clone()
            };
            Ok((next, applied.record))
        })
    }

    fn draft<'a>(
        &'a self,
        state: &'a OwnedState,
        facts: &'a RequestFacts,
        plan: &'a Plan,
        focus: Option<&'a str>,
        context: &'a S::Context,
    ) -> LocalFuture<'a, Result<Draft>> {
        let input = self.input(state, facts, plan, false, focus);
        Box::pin(self.compactor.draft_with_facts(input, plan, context))
    }

    fn covers(&self, state: &OwnedState, draft: &Draft) -> Result<()> {
        let messages = &state.messages;
        draft.check_covers(&state.summary, messages.len(), |range, _| {
            // Canonical messages are whole units: a cut inside one is a cut at a step.
            Ok(Digest::of_summarized(&[messages.get(range).unwrap_or(&[])]))
        })
    }

    fn commit(
        &self,
        state: &OwnedState,
        _facts: &RequestFacts,
        draft: &Draft,
    ) -> Result<(OwnedState, Record)> {
        let committed = self.compactor.commit(&self.request(state), draft)?;
        let next = OwnedState {
            summary: committed.summary,
            messages: committed.messages.into_owned(),
            reports: Vec::new(),
            ..state.clone()
        };
        let record = committed
            .record
            .ok_or_else(|| crate::Error::invalid_request("the draft committed nothing"))?;
        Ok((next, record))
    }

    fn trims_messages(&self) -> bool {
        self.compactor.trims_oversized()
    }

    fn trim_message(
        &self,
        state: &OwnedState,
        facts: &RequestFacts,
        over: &Oversized,
    ) -> Result<Option<(OwnedState, Record)>> {
        let Some(message) = state.messages.get(over.index) else {
            return Ok(None);
        };
        let trimmed = crate::oversized::trim_message(message, over, self.estimator)?;
        let Some((trimmed, tokens)) = trimmed else {
            return Ok(None);
        };
        let record = crate::oversized::record(&state.summary, facts, over, tokens);
        let mut messages = state.messages.clone();
        if let Some(place) = messages.get_mut(over.index) {
            *place = trimmed;
        }
        let reports = self.reports_after(state, facts, &messages)?;
        let next = OwnedState {
            messages,
            reports,
            ..state.clone()
        };
        Ok(Some((next, record)))
    }

    fn emit(&self, _state: &OwnedState, event: Event<'_>) {
        // A failing listener must never break maintenance or a run.
        let _ = catch_unwind(AssertUnwindSafe(|| (self.on_event)(event)));
    }
}
