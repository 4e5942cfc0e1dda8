//! What the provider counted, as the package learns it from JavaScript: the usage on the
//! answers and a request's explicit `reportedUsage` (which of them the core reads,
//! `crate::reported`), and what a `ContextManager` learned from the responses `send` returned.
//! All of it becomes [`Report`]s for `crate::anchor`.

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::convert::JsRequest;
use super::explicit::usage_of;
use super::fields::field;
use super::history::JsHistory;
use super::host;
use super::stringify::json_text;
use crate::anchor::Report;
use crate::error::Result;
use crate::facts::RequestFacts;
use crate::reported;

pub(crate) use crate::reported::LATEST;

/// The facts of `request` (from the cache when `use_cache`), calibrated and anchored to what
/// the provider reported: on its messages, in its `reportedUsage`, and `learned` by a manager.
pub(crate) fn request_facts(
    request: &JsRequest,
    use_cache: bool,
    learned: &[Report],
) -> Result<RequestFacts> {
    let history = JsHistory {
        request,
        cache: use_cache,
    };
    reported::history_facts(&history, learned)
}

/// The reports of a request whose raw facts are `facts` and whose messages are `body`, at
/// `spans` (see [`reported::reports`]).
pub(crate) fn body_reports(
    request: &JsRequest,
    facts: &RequestFacts,
    body: &[u8],
    spans: &[std::ops::Range<usize>],
) -> Result<Vec<Report>> {
    reported::reports(&request.parts(), facts, |latest| {
        latest
            .iter()
            .map(|&i| {
                let text = spans
                    .get(i as usize)
                    .and_then(|span| body.get(span.clone()))
                    .and_then(|bytes| std::str::from_utf8(bytes).ok());
                match text {
                    Some(text) => request.format.usage_json(text, &format!("messages[{i}]")),
                    None => Ok(None),
                }
            })
            .collect()
    })
}

/// What a `ContextManager` learned from one response: the state it sent and what it cost.
pub(crate) struct Learned {
    /// The first and last message sent (the state extends this request while they stay).
    first: JsValue,
    last: JsValue,
    messages: usize,
    summary: String,
    /// Our raw estimate of the system prompt, summary and tools sent.
    fixed: u64,
    tokens: u64,
}

impl Learned {
    /// What `response` (the value `send` resolved to) says the request of `request` cost,
    /// if it says it: its `usage` (or, for an AI SDK result with steps, the first step's,
    /// which is the request sent). Never fails: a response without usable usage teaches
    /// nothing.
    pub(crate) fn from_response(response: &JsValue, request: &JsRequest) -> Option<Learned> {
        // Every read of the host's value is a guarded one (a throwing getter or a revoked
        // Proxy teaches nothing); the steps are a copy of the package's own.
        let steps = field(response, "steps", "response").ok()?;
        let first_step = host::list(&steps, "response.steps")
            .ok()
            .flatten()
            .map(|steps| steps.get(0))
            .filter(|s| s.is_object());
        let usage = match first_step.map(|s| field(&s, "usage", "response.steps[0]")) {
            Some(Ok(usage)) if usage.is_object() => usage,
            _ => field(response, "usage", "response").ok()?,
        };
        if !usage.is_object() {
            return None;
        }
        let usage = usage_of(&json_text(&usage, "response.usage").ok()?)?;
        let report = Report {
            messages: request.messages.length() as usize,
            tokens: usage.input,
            fixed: None,
        };
        Learned::of(report, request)
    }

    /// `report`, about the first messages of `request`: learned while they stay (with the
    /// request's system prompt, summary and tools unless the report says otherwise). `None`
    /// for a zero count or no messages.
    pub(crate) fn of(report: Report, request: &JsRequest) -> Option<Learned> {
        let count = report.messages;
        if report.tokens == 0 || count == 0 || count > request.messages.length() as usize {
            return None;
        }
        let fixed = match report.fixed {
            Some(fixed) => fixed,
            None => {
                let now = request.fixed_facts().ok()?;
                now.system_prompt + now.summary + now.tools
            }
        };
        Some(Learned {
            first: request.messages.get(0),
            last: request.messages.get(count as u32 - 1),
            messages: count,
            summary: request.summary.clone(),
            fixed,
            tokens: report.tokens,
        })
    }

    /// The report for `request` when it extends the learned one: the same summary, and the
    /// same first and last message objects where they were.
    pub(crate) fn report(&self, request: &JsRequest) -> Option<Report> {
        let extends = request.summary == self.summary
            && (request.messages.length() as usize) >= self.messages
            && Object::is(&request.messages.get(0), &self.first)
            && Object::is(&request.messages.get(self.messages as u32 - 1), &self.last);
        extends.then_some(Report {
            messages: self.messages,
            tokens: self.tokens,
            fixed: Some(self.fixed),
        })
    }
}
