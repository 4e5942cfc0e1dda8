//! The host's state objects as the core manager sees them: a [`StateCompactor`] over
//! JavaScript state objects `{ systemPrompt, summary, messages, tools }`, its events reported to
//! `onEvent`.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, JSON, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::apply::Record;
use crate::clearing::Clearing;
use crate::compactor::Planned;
use crate::draft::Draft;
use crate::error::{Error, Result};
use crate::facts::RequestFacts;
use crate::manager::{Event, StateCompactor, compacted_anchor, rewritten_anchor};
use crate::out as shape;
use crate::oversized::Oversized;
use crate::plan::Plan;
use crate::request::PlanOptions;
use crate::summarizer::LocalFuture;
use crate::wasm::convert::{self, out};
use crate::wasm::engine::Engine;
use crate::wasm::error::to_js;
use crate::wasm::host;
use crate::wasm::js::AbortSignal;
use crate::wasm::reported::{self, Lessons};
use crate::wasm::{cache, clearing, stringify};

/// State objects compacted by a compactor, reported to `onEvent`.
pub(super) struct JsStateCompactor {
    pub(super) engine: Rc<Engine>,
    pub(super) estimator: JsValue,
    pub(super) on_event: Option<Function>,
    /// What the responses of `run` said the latest requests cost.
    pub(super) learned: RefCell<Lessons>,
}

impl JsStateCompactor {
    /// A plain copy of the caller's state (read once, so a throwing getter is an error here
    /// and nothing of the caller's is read again after an await).
    fn copy(state: &JsValue) -> Result<Object> {
        host::record(state, "state")?.ok_or_else(|| {
            Error::invalid_request("state: expected { systemPrompt, summary, messages, tools }")
        })
    }

    pub(super) fn request(&self, state: &JsValue) -> Result<convert::JsRequest> {
        self.request_of(&Self::copy(state)?)
    }

    /// Keeps what `response` says the request of `state` cost, if it says it.
    pub(super) fn learn(&self, state: &JsValue, response: &JsValue) {
        let request = self.request(state).ok();
        if let Some(learned) = request.and_then(|r| reported::from_response(response, &r)) {
            self.learned.borrow_mut().remember(learned);
        }
    }

    /// After a rewrite of `before` (whose calibrated facts are `facts`) into the state `after`
    /// (a clearing or a trim), learns what the rewritten request would cost
    /// ([`rewritten_anchor`]), so that the estimate of the new state drops by what was freed
    /// until an answer reports it.
    fn learn_rewrite(&self, before: &convert::JsRequest, facts: &RequestFacts, after: &Object) {
        // Not anchored: nothing to learn, and no facts read.
        if facts.calibration.anchor.is_none() {
            return;
        }
        let Ok(after) = self.request_of(after) else {
            return;
        };
        let raw = |request| cache::request_facts(request, self.engine.cache);
        let (Ok(then), Ok(now)) = (raw(before), raw(&after)) else {
            return;
        };
        let report = rewritten_anchor(&facts.calibration, &then.messages, &now.messages);
        if let Some(learned) = report.and_then(|r| reported::learned(r, &after)) {
            self.learned.borrow_mut().remember(learned);
        }
    }

    /// `copy`, a copy of a state whose request is `request` (facts `facts`), with the messages
    /// `clearing` (or a trim) rewrites, and the record; learns what the rewritten request
    /// would cost ([`JsStateCompactor::learn_rewrite`]).
    fn rewritten(
        &self,
        copy: Object,
        request: &convert::JsRequest,
        facts: &RequestFacts,
        clearing: &Clearing,
    ) -> Result<(JsValue, Record)> {
        let messages = clearing::messages(request, clearing)?;
        let _ = Reflect::set(&copy, &"messages".into(), &messages);
        self.learn_rewrite(request, facts, &copy);
        Ok((copy.into(), clearing.record(&request.summary)))
    }

    /// The request of a state copy: the manager's estimator, no budget options.
    fn request_of(&self, copy: &Object) -> Result<convert::JsRequest> {
        // Another plain object of the package's own: assigning it reads no caller getters.
        let request = Object::assign(&Object::new(), copy);
        let _ = Reflect::set(&request, &"estimator".into(), &self.estimator);
        for key in ["inputTokenBudget", "requireReduction"] {
            let _ = Reflect::delete_property(&request, &key.into());
        }
        convert::request(&request)
    }

    /// Calls the listener with `value`.
    fn emit_value(&self, value: &JsValue) {
        let Some(listener) = &self.on_event else {
            return;
        };
        // A throwing listener never breaks maintenance or a run; a rejected promise from an
        // async listener is handled too.
        if let Ok(returned) = listener.call1(&JsValue::UNDEFINED, value) {
            swallow_rejection(&returned);
        }
    }

    /// The listener's value for `event` about `state` ([`shape::event`]); of a clearing, its
    /// plan and record are those of `cleared` (as `compactor.plan` and `apply` give them).
    fn event(&self, event: Event<'_>, state: &JsValue, cleared: Option<&Clearing>) -> JsValue {
        let slot = match &event {
            Event::Start { plan, .. } => {
                // Cached: the facts were just computed for this state.
                let facts = self.facts(state).unwrap_or_default();
                let plan = self.request(state).and_then(|request| match cleared {
                    Some(cleared) => {
                        let messages = clearing::messages(&request, cleared)?;
                        Ok(clearing::plan_to_js(&facts, cleared, Some(messages)))
                    }
                    None => convert::plan_to_js(plan, &request.messages, &facts.messages),
                });
                plan.unwrap_or(JsValue::NULL)
            }
            Event::End { error, .. } => error.map_or(JsValue::UNDEFINED, to_js),
        };
        out(&[slot], |w| shape::event(w, &event, cleared))
    }
}

impl StateCompactor for JsStateCompactor {
    type State = JsValue;
    type Context = Option<AbortSignal>;

    fn facts(&self, state: &JsValue) -> Result<RequestFacts> {
        let request = self.request(state)?;
        let learned = reported::lessons_for(&self.learned.borrow(), &request);
        self.engine.facts_learned(&request, &learned)
    }

    fn plan(&self, facts: &RequestFacts, options: PlanOptions) -> Result<Option<Plan>> {
        self.engine.core.plan_with_facts(facts, options)
    }

    fn decide(
        &self,
        state: &JsValue,
        facts: &RequestFacts,
        options: PlanOptions,
    ) -> Result<Option<Planned>> {
        let request = self.request(state)?;
        let (messages, format, estimator) = (&request.messages, request.format, &request.estimator);
        let mut summarize = || self.plan(facts, options);
        self.engine
            .decide_of(messages, format, estimator, facts, options, &mut summarize)
    }

    fn clear(
        &self,
        state: &JsValue,
        facts: &RequestFacts,
        cleared: &Clearing,
    ) -> Result<(JsValue, Record)> {
        let copy = Self::copy(state)?;
        let request = self.request_of(&copy)?;
        self.rewritten(copy, &request, facts, cleared)
    }

    fn emit_clearing(&self, state: &JsValue, event: Event<'_>, cleared: &Clearing) {
        // Without a listener the event is not even built.
        if self.on_event.is_some() {
            self.emit_value(&self.event(event, state, Some(cleared)));
        }
    }

    fn trigger_ratio(&self) -> f64 {
        self.engine.core.trigger_ratio()
    }

    fn apply<'a>(
        &'a self,
        state: &'a JsValue,
        facts: &'a RequestFacts,
        plan: &'a Plan,
        require_reduction: bool,
        focus: Option<&'a str>,
        signal: &'a Option<AbortSignal>,
    ) -> LocalFuture<'a, Result<(JsValue, Record)>> {
        Box::pin(async move {
            let next = Self::copy(state)?;
            let mut request = self.request_of(&next)?;
            request.require_reduction = require_reduction;
            request.focus = focus.map(str::to_owned);
            let job = self.engine.job_with_facts(
                request,
                facts.clone(),
                Some(plan.clone()),
                signal.clone(),
            )?;
            let draft = self.engine.draft_of(&job).await?;
            let applied = job
                .applied(draft)?
                .ok_or_else(|| Error::invalid_request("plan: missing"))?;
            let _ = Reflect::set(&next, &"summary".into(), &applied.summary.as_str().into());
            let _ = Reflect::set(&next, &"messages".into(), &job.kept);
            // Pinned indices name the kept messages now (a predicate needs nothing).
            let pinned = Reflect::get(&next, &"pinned".into()).unwrap_or_default();
            if js_sys::Array::is_array(&pinned) {
                let pins = crate::pinned::renumbered(&job.request.pinned, plan, &facts.messages);
                let pins: js_sys::Array = pins.into_iter().map(JsValue::from).collect();
                let _ = Reflect::set(&next, &"pinned".into(), &pins);
            }
            Ok((next.into(), applied.record))
        })
    }

    fn draft<'a>(
        &'a self,
        state: &'a JsValue,
        facts: &'a RequestFacts,
        plan: &'a Plan,
        focus: Option<&'a str>,
        signal: &'a Option<AbortSignal>,
    ) -> LocalFuture<'a, Result<Draft>> {
        Box::pin(async move {
            let mut request = self.request(state)?;
            request.focus = focus.map(str::to_owned);
            let (plan, signal) = (Some(plan.clone()), signal.clone());
            let job = self
                .engine
                .job_with_facts(request, facts.clone(), plan, signal)?;
            let draft = self.engine.draft_of(&job).await?;
            draft.ok_or_else(|| Error::invalid_request("plan: missing"))
        })
    }

    fn covers(&self, state: &JsValue, draft: &Draft) -> Result<()> {
        super::super::draft::check_covers(&self.request(state)?, draft)
    }

    fn commit(
        &self,
        state: &JsValue,
        facts: &RequestFacts,
        draft: &Draft,
    ) -> Result<(JsValue, Record)> {
        let next = Self::copy(state)?;
        let request = self.request_of(&next)?;
        let (applied, kept) = super::super::draft::commit_with_facts(&request, facts, draft)?;
        let _ = Reflect::set(&next, &"summary".into(), &applied.summary.as_str().into());
        let _ = Reflect::set(&next, &"messages".into(), &kept);
        Ok((next.into(), applied.record))
    }

    fn trim(
        &self,
        state: &JsValue,
        facts: &RequestFacts,
        budget: u64,
    ) -> Result<Option<(JsValue, Record)>> {
        // Part of the clearing step: off with it, a compaction never rewrites a message.
        let Some(policy) = self.engine.core.clearing() else {
            return Ok(None);
        };
        let copy = Self::copy(state)?;
        let request = self.request_of(&copy)?;
        let (messages, estimator) = (&request.messages, &request.estimator);
        let found = clearing::find(
            messages,
            &facts.messages,
            request.format,
            estimator,
            policy,
            true,
        )?;
        let Some(trimmed) = crate::clearing::trim(&found, facts, budget, estimator)? else {
            return Ok(None);
        };
        let (next, record) = self.rewritten(copy, &request, facts, &trimmed)?;
        let trimmed = true;
        Ok(Some((next, Record { trimmed, ..record })))
    }

    fn trims_messages(&self) -> bool {
        self.engine.core.trims_oversized()
    }

    fn trim_message(
        &self,
        state: &JsValue,
        facts: &RequestFacts,
        over: &Oversized,
    ) -> Result<Option<(JsValue, Record)>> {
        let copy = Self::copy(state)?;
        let request = self.request_of(&copy)?;
        let (index, format) = (over.index, request.format);
        let path = text!("messages[", index, "]");
        let text = stringify::json_text(&request.messages.get(index as u32), &path)?;
        let trimmed = format.trim_user_json(&text, &path, over, &request.estimator)?;
        let Some((trimmed, tokens)) = trimmed else {
            return Ok(None);
        };
        // Text the package wrote from a scanned message: `JSON.parse` runs no caller code.
        let object = JSON::parse(&trimmed)
            .map_err(|_| Error::invalid_request(text!(path, ": cannot rewrite")))?;
        let messages = request.messages.slice(0, request.messages.length());
        messages.set(index as u32, object);
        let _ = Reflect::set(&copy, &"messages".into(), &messages);
        self.learn_rewrite(&request, facts, &copy);
        let record = crate::oversized::record(&request.summary, facts, over, tokens);
        Ok(Some((copy.into(), record)))
    }

    fn anchor_compacted(&self, state: &JsValue, record: &Record) {
        let Ok(after) = self.request(state) else {
            return;
        };
        let report = compacted_anchor(record, after.messages.length() as usize);
        if let Some(learned) = reported::learned(report, &after) {
            self.learned.borrow_mut().remember(learned);
        }
    }

    fn emit(&self, state: &JsValue, event: Event<'_>) {
        // Without a listener the event is not even built.
        if self.on_event.is_none() {
            return;
        }
        self.emit_value(&self.event(event, state, None));
    }
}

thread_local! {
    /// One handler for every listener rejection, made once and kept for the module's life.
    static IGNORE: Closure<dyn FnMut(JsValue)> = Closure::new(|_: JsValue| {});
}

/// Attaches a no-op rejection handler when a listener returned a promise.
fn swallow_rejection(returned: &JsValue) {
    let thenable = returned.is_object()
        && Reflect::get(returned, &"then".into())
            .map(|t| t.is_function())
            .unwrap_or(false);
    if thenable {
        IGNORE.with(|ignore| {
            // A promise of the package's own: its `catch` reads nothing of the listener's.
            if let Ok(promise) = host::promise(returned) {
                let _ = promise.catch(ignore);
            }
        });
    }
}
