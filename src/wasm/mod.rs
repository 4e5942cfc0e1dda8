//! The JavaScript binding layer (wasm32 only): converts values, bridges host callbacks and
//! timers, maps errors. Every rule lives in the core; functions here stay a few lines.

mod bridge;
mod cache;
mod call;
mod clearing;
mod compactor;
mod config;
mod conversation;
mod convert;
mod engine;
mod error;
mod estimator;
mod explicit;
mod fields;
mod history;
mod host;
mod js;
mod manager;
mod reported;
mod seam;
mod sizer;
mod stringify;
mod timer;
mod walk;

use wasm_bindgen::prelude::*;

use crate::formats::Format;

/// The one user message a summary projects to, in `format` (default canonical), or `null`
/// when the summary is empty.
#[allow(unreachable_pub)] // exported to JavaScript
#[wasm_bindgen(js_name = projectSummary)]
pub fn project_summary(summary: JsValue, format: JsValue) -> Result<JsValue, JsValue> {
    let read = || -> crate::Result<Option<crate::Json>> {
        let text = fields::optional_string(&summary, "summary")?.unwrap_or_default();
        let format = match fields::optional_string(&format, "format")? {
            None => Format::Canonical,
            Some(name) => Format::from_name(&name)?,
        };
        Ok(format.project_summary(&text))
    };
    match read()? {
        None => Ok(JsValue::NULL),
        Some(message) => js_sys::JSON::parse(message.as_str()),
    }
}

/// The estimate of a request: `{ total, systemPrompt, summary, messages, tools }`.
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
