//! Clearing in the `Compactor`: the clear plan object `plan()` returns when clearing old tool results is enough, and applying one (no summarizer call).

use js_sys::{Array, JSON};
use wasm_bindgen::prelude::*;

use super::convert::{self, JsRequest, out};
use super::{stringify, walk};
use crate::clearing::{ClearedResult, Clearing, ClearingPolicy, Finder, Found};
use crate::error::{Error, Result};
use crate::facts::{MessageFacts, RequestFacts};
use crate::formats::{Edited, Format};
use crate::out as shape;
use crate::token::Estimator;

/// The tool results and calls of `messages` (host messages of `format` whose facts are
/// `facts`), read through the walker: only the messages that hold any. With `texts` (for a
/// trim), only the newest message with a result is read, and its newest result keeps its text.
pub(crate) fn find(
    messages: &Array,
    facts: &[MessageFacts],
    format: Format,
    estimator: &dyn Estimator,
    policy: &ClearingPolicy,
    texts: bool,
) -> Result<Found> {
    let indices = crate::clearing::read_indices(facts, texts);
    let mut finder = Finder::new(
        estimator,
        &policy.file_tracking,
        texts,
        policy.reads_arguments(),
    );
    walk::find(messages, &indices, format, &mut finder)?;
    finder.finish()
}

/// `compactor.clearableResults(request)`: the tool results of the request's messages a stored
/// list of cleared results may name (`[{ index, toolCallId }]`, oldest first; none with
/// clearing off), as `crate::clearing::stored_clearable` decides.
pub(crate) fn clearable(
    policy: Option<&ClearingPolicy>,
    request: &JsRequest,
    facts: &RequestFacts,
) -> Result<JsValue> {
    let Some(policy) = policy else {
        return Ok(Array::new().into());
    };
    let estimator = &request.estimator;
    let found = find(
        &request.messages,
        &facts.messages,
        request.format,
        estimator,
        policy,
        false,
    )?;
    let listed =
        crate::clearing::stored_clearable(&found, facts, policy, request.input_token_budget);
    Ok(out(&[], |w| shape::clearable(w, &found, &listed)))
}

/// Messages a clearing rewrote: their new text, and the same as new objects.
type Rewritten = (Vec<(usize, Edited)>, Vec<(usize, JsValue)>);

/// The messages `clearing` rewrites ([`crate::clearing::rewrite_json`]), as new objects made
/// from their JSON text (the caller's stay as they are); messages in which nothing changes are
/// left out.
fn rewrite(messages: &Array, format: Format, clearing: &Clearing) -> Result<Rewritten> {
    let len = messages.length() as usize;
    let text = |i: usize, path: &str| stringify::json_text(&messages.get(i as u32), path);
    let edited = crate::clearing::rewrite_json(format, clearing, len, text)?;
    let mut objects = Vec::with_capacity(edited.len());
    for (index, message) in &edited {
        // Text the package wrote from a scanned message: `JSON.parse` runs no caller code.
        let object = JSON::parse(&message.text)
            .map_err(|_| Error::invalid_request(text!("messages[", index, "]: cannot rewrite")))?;
        objects.push((*index, object));
    }
    Ok((edited, objects))
}

/// `messages` with the rewritten ones in place: new objects for those, the caller's own for
/// the rest.
fn with(messages: &Array, rewritten: &[(usize, JsValue)]) -> Array {
    let out = messages.slice(0, messages.length());
    for (index, object) in rewritten {
        out.set(*index as u32, object.clone());
    }
    out
}

/// The request's messages with `clearing` applied: new objects for the rewritten ones, the
/// caller's own for the rest.
pub(crate) fn messages(request: &JsRequest, clearing: &Clearing) -> Result<Array> {
    rewritten(&request.messages, request.format, clearing)
}

/// `messages` (of `format`) with `clearing` applied, as [`messages`].
pub(crate) fn rewritten(messages: &Array, format: Format, clearing: &Clearing) -> Result<Array> {
    Ok(with(messages, &rewrite(messages, format, clearing)?.1))
}

/// The plan object of a clearing ([`shape::clear_plan`]), with `messages` (the messages with
/// the cleared ones rewritten) unless the plan is of a body.
pub(crate) fn plan_to_js(
    facts: &RequestFacts,
    clearing: &Clearing,
    messages: Option<Array>,
) -> JsValue {
    let all = &facts.messages;
    let tokens = convert::float64s(all.len(), &mut convert::facts_tokens(all));
    let with_messages = messages.is_some();
    let slots = [tokens, messages.map_or(JsValue::UNDEFINED, JsValue::from)];
    out(&slots, |w| {
        shape::clear_plan(w, facts, clearing, with_messages)
    })
}

/// Applies a clear plan: `{ summary, messages, record }` with the summary unchanged and a
/// record `{ kind: "clear", summary, firstKeptIndex: 0, estimateBefore, estimateAfter,
/// tokensFreed, clearedResults }`. The plan is trusted; what no longer matches a message is
/// skipped, and the estimate after is of the rewritten messages.
pub(crate) fn apply(
    request: &JsRequest,
    facts: &RequestFacts,
    results: Vec<ClearedResult>,
    argument_messages: Vec<usize>,
) -> Result<JsValue> {
    let planned = Clearing {
        results,
        argument_messages,
        estimate_before: 0,
        estimate_after: 0,
    };
    let (messages, format) = (&request.messages, request.format);
    let (edited, objects) = rewrite(messages, format, &planned)?;
    // The messages before the rewrite, read again for their tokens (a clear plan's few).
    let text = |i: usize, path: &str| stringify::json_text(&messages.get(i as u32), path);
    let estimator = &request.estimator;
    let done = crate::clearing::done_json(planned, format, facts, &edited, text, estimator)?;
    Ok(outcome(request, &done, with(messages, &objects)))
}

/// `{ summary, messages, record }` for a clearing whose messages are `messages`.
pub(crate) fn outcome(request: &JsRequest, clearing: &Clearing, messages: Array) -> JsValue {
    let summary = &request.summary;
    out(&[messages.into()], |w| {
        shape::outcome(w, summary, None, Some(clearing))
    })
}
