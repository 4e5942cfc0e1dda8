//! A request's explicit `reportedUsage`: what the provider counted for earlier requests of the
//! conversation, as the host tells it (see `reported.rs` for what becomes of it).

use wasm_bindgen::prelude::*;

use super::fields::{field, optional_string, optional_whole};
use super::host;
use super::stringify::{json_text, system_prompt};
use crate::error::{Error, Result};
use crate::formats::{MessageUsage, read_usage};
use crate::history::Explicit;

/// Reads `reportedUsage`: one `{ messages, inputTokens | usage, systemPrompt?, summary?,
/// tools? }` or an array of them (missing: none).
pub(crate) fn read(value: &JsValue) -> Result<Vec<Explicit>> {
    let path = "reportedUsage";
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    if !cfg!(feature = "plan-api") {
        return Err(super::not_read(path));
    }
    match host::list(value, path)? {
        Some(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| one(&item, &format!("{path}[{i}]")))
            .collect(),
        None => Ok(vec![one(value, path)?]),
    }
}

fn one(item: &JsValue, path: &str) -> Result<Explicit> {
    let invalid = |what: &str| Error::invalid_request(format!("{path}{what}"));
    if !item.is_object() {
        return Err(invalid(": expected { messages, inputTokens }"));
    }
    let messages =
        optional_whole(item, "messages", path)?.ok_or_else(|| invalid(".messages: missing"))?;
    let tokens = match optional_whole(item, "inputTokens", path)? {
        Some(tokens) => tokens,
        None => {
            let usage = field(item, "usage", path)?;
            if usage.is_undefined() || usage.is_null() {
                return Err(invalid(".inputTokens: missing"));
            }
            usage_of(&json_text(&usage, &format!("{path}.usage"))?)
                .ok_or_else(|| invalid(".usage: not a usage object of a known shape"))?
                .input
        }
    };
    let text = |key: &str| optional_string(&field(item, key, path)?, &format!("{path}.{key}"));
    let tools = field(item, "tools", path)?;
    Ok(Explicit {
        messages: messages as usize,
        tokens,
        system_prompt: match field(item, "systemPrompt", path)? {
            v if v.is_undefined() || v.is_null() => None,
            v => Some(system_prompt(&v)?),
        },
        summary: text("summary")?,
        tools: match tools.is_undefined() || tools.is_null() {
            true => None,
            false => Some(super::stringify::tools(&tools, &format!("{path}.tools"))?),
        },
    })
}

/// A usage object given as JSON text.
pub(crate) fn usage_of(text: &str) -> Option<MessageUsage> {
    let mut nodes = Vec::new();
    let end = context_compaction_scan::value(text.as_bytes(), 0, &mut nodes).ok()?;
    (end == text.len()).then(|| read_usage(context_compaction_scan::Val::root(text, &nodes)))?
}
