//! What the provider counted, as the package learns it from JavaScript: the usage on the
//! answers and a request's explicit `reportedUsage` (which of them the core reads,
//! `crate::reported`), and what a `ContextManager` learned from the responses `send` returned.
//! All of it becomes [`Report`]s for `crate::anchor`.

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::convert::JsRequest;
use super::fields::field;
use super::history::JsHistory;
use super::host;
use super::stringify::json_text;
use crate::anchor::Report;
use crate::error::Result;
use crate::facts::RequestFacts;
use crate::manager::Sent;
use crate::reported;

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

/// What a `ContextManager` learned, of requests of host messages (compared by identity).
pub(crate) type Lessons = crate::manager::Lessons<JsValue>;

type Learned = crate::manager::Learned<JsValue>;

/// Calls `f` with `request` as the manager's lessons see it.
pub(crate) fn sent<T>(request: &JsRequest, f: impl FnOnce(&Sent<'_, JsValue>) -> T) -> T {
    let at = |i: usize| request.messages.get(i as u32);
    f(&Sent {
        messages: request.messages.length() as usize,
        summary: &request.summary,
        at: &at,
    })
}

/// The reports of what `lessons` learned that `request` extends.
pub(crate) fn lessons_for(lessons: &Lessons, request: &JsRequest) -> Vec<Report> {
    sent(request, |s| lessons.reports(s, Object::is))
}

/// `report` about the first messages of `request`, to keep ([`Learned::of`]).
pub(crate) fn learned(report: Report, request: &JsRequest) -> Option<Learned> {
    let fixed = || {
        let now = request.fixed_facts().ok()?;
        Some(now.system_prompt + now.summary + now.tools)
    };
    sent(request, |s| Learned::of(report, s, fixed))
}

/// What `response` (the value `send` resolved to) says the request of `request` cost, if it
/// says it: its `usage` (or, for an AI SDK result with steps, the first step's, which is the
/// request sent). Never fails: a response without usable usage teaches nothing.
pub(crate) fn from_response(response: &JsValue, request: &JsRequest) -> Option<Learned> {
    // Every read of the host's value is a guarded one (a throwing getter or a revoked Proxy
    // teaches nothing); the steps are a copy of the package's own.
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
    let usage = crate::options::usage_of(&json_text(&usage, "response.usage").ok()?)?;
    let report = Report {
        messages: request.messages.length() as usize,
        tokens: usage.input,
        fixed: None,
    };
    learned(report, request)
}
