//! Clearing in the `Compactor`: the `clearing` config section, the clear plan object `plan()`
//! returns when clearing old tool results is enough, and applying one (no summarizer call).

use js_sys::{Array, JSON};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert::{JsRequest, object};
use super::fields::{field, optional_bool, optional_string, optional_whole};
use super::host;
use super::stringify;
use crate::clearing::{self, ClearedResult, Clearing, ClearingPolicy};
use crate::error::{Error, Result};
use crate::facts::RequestFacts;
use crate::summary::FileTracking;

/// The `kind` of a clear plan and of its record.
pub(crate) const KIND: &str = "clear";

/// `config.clearing`: `undefined`, `null` or `false` (off, the default), `true` (on with the
/// defaults) or `{ protectRecentTokens, neverClear, clearArguments }`.
pub(crate) fn policy(value: &JsValue, tracking: &FileTracking) -> Result<Option<ClearingPolicy>> {
    read_policy(value, tracking).map_err(Error::into_config)
}

fn read_policy(value: &JsValue, tracking: &FileTracking) -> Result<Option<ClearingPolicy>> {
    let defaults = ClearingPolicy {
        file_tracking: tracking.clone(),
        ..ClearingPolicy::default()
    };
    if value.is_undefined() || value.is_null() || value.as_bool() == Some(false) {
        return Ok(None);
    }
    if value.as_bool() == Some(true) {
        return Ok(Some(defaults));
    }
    let path = "config.clearing";
    if !value.is_object() || host::list(value, path)?.is_some() {
        return Err(Error::invalid_config(format!(
            "{path} must be a boolean or an object {{ protectRecentTokens, neverClear, clearArguments }}"
        )));
    }
    let never = field(value, "neverClear", path)?;
    let never_clear = if never.is_undefined() || never.is_null() {
        Vec::new()
    } else {
        let names: Option<Vec<String>> = host::list(&never, "config.clearing.neverClear")?
            .and_then(|list| list.iter().map(|v| v.as_string()).collect());
        names.ok_or_else(|| {
            Error::invalid_config("config.clearing.neverClear must be an array of tool names")
        })?
    };
    Ok(Some(ClearingPolicy {
        protect_recent_tokens: optional_whole(value, "protectRecentTokens", path)?
            .unwrap_or(defaults.protect_recent_tokens),
        never_clear,
        clear_arguments: optional_bool(value, "clearArguments", path)?.unwrap_or(false),
        file_tracking: defaults.file_tracking,
    }))
}

/// The request's messages as JSON values (clearing rewrites copies of them).
pub(crate) fn values(request: &JsRequest) -> Result<Vec<Value>> {
    (0..request.messages.length())
        .map(|i| stringify::json(&request.messages.get(i), &format!("messages[{i}]")))
        .collect()
}

/// The request's messages with the rewritten ones in place: new objects for those, the
/// caller's own for the rest.
pub(crate) fn messages(request: &JsRequest, clearing: &Clearing) -> Result<Array> {
    let out = request.messages.slice(0, request.messages.length());
    for (index, value) in &clearing.messages {
        let parsed = JSON::parse(&value.to_string())
            .map_err(|_| Error::invalid_request(format!("messages[{index}]: cannot rewrite")))?;
        out.set(*index as u32, parsed);
    }
    Ok(out)
}

/// The plan object of a clearing: `{ kind: "clear", clearedResults, argumentMessages,
/// estimateBefore, estimateAfter, tokensFreed, messages }`, and the fields of a summary plan
/// that summarizes nothing (`firstKeptIndex: 0`, empty arrays), so that it is a `Plan` too.
pub(crate) fn plan_to_js(
    request: &JsRequest,
    facts: &RequestFacts,
    clearing: &Clearing,
) -> Result<JsValue> {
    let results: Array = clearing
        .results
        .iter()
        .map(|r| {
            object(&[
                ("index", JsValue::from_f64(r.index as f64)),
                ("toolCallId", r.tool_call_id.as_str().into()),
                (
                    "toolName",
                    r.tool_name.as_deref().map_or(JsValue::NULL, JsValue::from),
                ),
                ("tokens", JsValue::from_f64(r.tokens as f64)),
                ("text", r.text.as_str().into()),
            ])
        })
        .collect();
    let tokens: Vec<f64> = facts.messages.iter().map(|f| f.tokens as f64).collect();
    let tokens = js_sys::Float64Array::from(tokens.as_slice());
    let arguments: Array = clearing
        .argument_messages
        .iter()
        .map(|&i| JsValue::from_f64(i as f64))
        .collect();
    Ok(object(&[
        ("kind", KIND.into()),
        ("firstKeptIndex", number(0)),
        ("messagesToSummarize", Array::new().into()),
        ("turnPrefixMessages", Array::new().into()),
        ("turnPrefixStart", number(0)),
        ("splitTurn", false.into()),
        (
            "estimateAfterWithoutSummary",
            number(clearing.estimate_after.saturating_sub(facts.summary)),
        ),
        ("messageTokens", tokens.into()),
        ("clearedResults", results.into()),
        ("argumentMessages", arguments.into()),
        ("estimateBefore", number(clearing.estimate_before)),
        ("estimateAfter", number(clearing.estimate_after)),
        ("tokensFreed", number(clearing.tokens_freed())),
        ("messages", messages(request, clearing)?.into()),
    ]))
}

/// What a clear plan object says, or `None` when `value` is not one.
pub(crate) fn read_plan(value: &JsValue) -> Result<Option<(Vec<ClearedResult>, Vec<usize>)>> {
    if !value.is_object()
        || optional_string(&field(value, "kind", "plan")?, "plan.kind")?.as_deref() != Some(KIND)
    {
        return Ok(None);
    }
    let list = |key: &str| -> Result<Array> {
        let path = format!("plan.{key}");
        host::list(&field(value, key, "plan")?, &path)?
            .ok_or_else(|| Error::invalid_request(format!("{path}: expected an array")))
    };
    let mut results = Vec::new();
    for (i, item) in list("clearedResults")?.iter().enumerate() {
        let path = format!("plan.clearedResults[{i}]");
        let text = |key: &str| -> Result<String> {
            optional_string(&field(&item, key, &path)?, &format!("{path}.{key}"))?
                .ok_or_else(|| Error::invalid_request(format!("{path}.{key}: expected a string")))
        };
        results.push(ClearedResult {
            index: optional_whole(&item, "index", &path)?.unwrap_or(0) as usize,
            tool_call_id: text("toolCallId")?,
            tool_name: optional_string(&field(&item, "toolName", &path)?, &path)?,
            tokens: optional_whole(&item, "tokens", &path)?.unwrap_or(0),
            text: text("text")?,
        });
    }
    let arguments = list("argumentMessages")?
        .iter()
        .map(|n| {
            n.as_f64()
                .filter(|n| *n >= 0.0 && n.fract() == 0.0)
                .map(|n| n as usize)
        })
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| {
            Error::invalid_request("plan.argumentMessages: expected an array of message indices")
        })?;
    Ok(Some((results, arguments)))
}

/// Applies a clear plan: `{ summary, messages, record }` with the summary unchanged and a
/// record `{ kind: "clear", summary, firstKeptIndex: 0, estimateBefore, estimateAfter,
/// tokensFreed, clearedResults }`.
pub(crate) fn apply(
    request: &JsRequest,
    facts: &RequestFacts,
    results: Vec<ClearedResult>,
    arguments: &[usize],
) -> Result<JsValue> {
    let values = values(request)?;
    let cleared = clearing::replay(
        request.format,
        &values,
        facts,
        results,
        arguments,
        &request.estimator,
    )?;
    outcome(request, &cleared)
}

/// `{ summary, messages, record }` for a clearing already planned.
pub(crate) fn outcome(request: &JsRequest, clearing: &Clearing) -> Result<JsValue> {
    Ok(object(&[
        ("summary", request.summary.as_str().into()),
        ("messages", messages(request, clearing)?.into()),
        ("record", record(&request.summary, clearing)),
    ]))
}

/// The record of a clearing.
pub(crate) fn record(summary: &str, clearing: &Clearing) -> JsValue {
    object(&[
        ("kind", KIND.into()),
        ("summary", summary.into()),
        ("firstKeptIndex", number(0)),
        ("estimateBefore", number(clearing.estimate_before)),
        ("estimateAfter", number(clearing.estimate_after)),
        ("tokensFreed", number(clearing.tokens_freed())),
        ("clearedResults", number(clearing.results.len() as u64)),
    ])
}

fn number(n: u64) -> JsValue {
    JsValue::from_f64(n as f64)
}
