//! Host values read through `JSON.stringify` (so `toJSON`, `undefined` and `NaN` behave as they
//! do in JavaScript): as JSON text, as tool definitions, and the system prompt (a string, or
//! text blocks).

use js_sys::JSON;
use wasm_bindgen::prelude::*;

use super::error::{HostError, describe};
use super::fields::optional_string;
use super::host;
use crate::error::{Error, Result};

/// Tool definitions given as a host value (via `JSON.stringify`, so `toJSON`, `undefined` and
/// `NaN` behave as they do in JavaScript); `path` names the value.
pub(crate) fn tools(value: &JsValue, path: &str) -> Result<Vec<crate::ToolDefinition>> {
    if !cfg!(feature = "plan-api") {
        return Err(super::not_read(path));
    }
    crate::parse::tools_at(&json_text(value, path)?, path)
}

/// One host value as JSON text, as `JSON.stringify` writes it; what it throws is the error's
/// source.
pub(crate) fn json_text(value: &JsValue, path: &str) -> Result<String> {
    JSON::stringify(value)
        .map_err(|e| Error::InvalidRequest {
            message: format!("{path}: cannot be read as JSON: {}", describe(&e)),
            source: Some(Box::new(HostError::new(e))),
        })?
        .as_string()
        .ok_or_else(|| Error::invalid_request(format!("{path}: cannot be read as JSON")))
}

/// A system prompt: a string, or (as Anthropic's `system`) an array of text blocks.
pub(crate) fn system_prompt(value: &JsValue) -> Result<String> {
    let Some(blocks) = host::list(value, "systemPrompt")? else {
        return Ok(optional_string(value, "systemPrompt")?.unwrap_or_default());
    };
    crate::formats::joined_text(&json_text(&blocks, "systemPrompt")?, "systemPrompt")
}
