//! The JavaScript binding layer (wasm32 only): converts values, bridges host callbacks and
//! timers, maps errors. Every rule lives in the core; functions here stay a few lines.

mod bridge;
mod cache;
mod compactor;
mod config;
mod convert;
mod error;
mod estimator;
mod js;
mod manager;
mod timer;

use wasm_bindgen::prelude::*;

use crate::summary;

/// The one user message a summary projects to, as a canonical message, or `null` when the
/// summary is empty.
#[wasm_bindgen(js_name = projectSummary)]
pub fn project_summary(summary: JsValue) -> Result<JsValue, JsValue> {
    let text = convert::optional_string(&summary, "summary").map_err(|e| error::to_js(&e))?;
    Ok(match summary::project(&text.unwrap_or_default()) {
        None => JsValue::NULL,
        Some(text) => convert::object(&[("role", "user".into()), ("content", text.into())]),
    })
}

/// The estimate of a request: `{ total, systemPrompt, summary, messages, tools }`.
#[wasm_bindgen]
pub fn estimate(request: JsValue) -> Result<JsValue, JsValue> {
    let request = convert::request(&request).map_err(|e| error::to_js(&e))?;
    let facts = cache::request_facts(&request, true).map_err(|e| error::to_js(&e))?;
    Ok(convert::estimate(&facts))
}
