//! The JavaScript binding layer (wasm32 only): converts values, bridges host callbacks and
//! timers, maps errors. Every rule lives in the core; functions here stay a few lines.
//!
//! Without the `full` feature (the plan-only module of `context-compaction/plan`) the module
//! exports planning and estimating only: `Compactor` without `apply`, `compact` and
//! `summarizerInput`, no `ContextManagerCore`, `isContextOverflowError` or `projectSummary`. The
//! summarizer bridge, retries, records and clearing's apply are then reached from no export,
//! and the linker leaves them out. Without `plan-api` as well (the preview module of
//! `context-compaction/ai-sdk-preview`), a `Compactor` only makes conversation handles and
//! answers `clearableResults` and `covers`: no `plan`, `planBytes`, `digest`, `estimate` or
//! `HeuristicEstimator`; the options `tools`, `reportedUsage` and `pinned` are refused by
//! name, and a conversation's clear plan has no rewritten `messages`.

mod bridge;
// Modules with functions only the whole module's exports reach (apply, the manager): without
// `full` they are compiled and the linker leaves those functions out.
#[cfg_attr(not(feature = "full"), allow(dead_code))]
mod cache;
mod call;
#[cfg_attr(not(feature = "full"), allow(dead_code))]
mod clearing;
mod compactor;
mod config;
mod conversation;
#[cfg_attr(not(feature = "full"), allow(dead_code))]
mod convert;
#[cfg_attr(not(feature = "full"), allow(dead_code))]
mod draft;
#[cfg_attr(not(feature = "full"), allow(dead_code))]
mod engine;
pub(crate) mod error;
mod estimator;
mod fields;
mod history;
mod host;
mod js;
#[cfg(feature = "full")]
mod manager;
mod pinned;
#[cfg_attr(not(feature = "full"), allow(dead_code))]
mod reported;
// `planBytes` and `Compactor.plan` (feature `plan-api`) alone size messages lazily.
#[cfg_attr(not(feature = "plan-api"), allow(dead_code))]
mod seam;
#[cfg_attr(not(feature = "plan-api"), allow(dead_code))]
mod sizer;
mod stringify;
mod timer;
#[cfg_attr(not(feature = "full"), allow(dead_code))]
mod walk;

#[cfg(feature = "plan-api")]
use wasm_bindgen::prelude::*;

/// The one user message a summary projects to, in `format` (default canonical), or `null`
/// when the summary is empty.
#[cfg(feature = "full")]
#[allow(unreachable_pub)] // exported to JavaScript
#[wasm_bindgen(js_name = projectSummary)]
pub fn project_summary(summary: JsValue, format: JsValue) -> Result<JsValue, JsValue> {
    let read = || -> crate::Result<Option<crate::Json>> {
        let text = fields::optional_string(&summary, "summary")?.unwrap_or_default();
        let format = crate::options::format(&format, "format")?;
        Ok(format.project_summary(&text))
    };
    match read()? {
        None => Ok(JsValue::NULL),
        Some(message) => js_sys::JSON::parse(message.as_str()),
    }
}

/// The estimate of a request: `{ total, systemPrompt, summary, messages, tools }`.
#[cfg(feature = "plan-api")]
#[allow(unreachable_pub)] // exported to JavaScript
#[wasm_bindgen]
pub fn estimate(request: JsValue) -> Result<JsValue, JsValue> {
    let request = convert::request(&request)?;
    let facts = reported::request_facts(&request, true, &[])?;
    Ok(convert::estimate(&facts))
}

#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
