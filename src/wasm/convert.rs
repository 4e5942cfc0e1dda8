//! Plain JavaScript objects in and out: requests, plans, records, estimates.
//!
//! Missing, `undefined` and `null` optional fields take their defaults. Messages cross as JSON
//! text (one `JSON.stringify` per message the facts cache has not seen), parsed by the core.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::estimator::AnyEstimator;
use super::fields::field;
use super::host;
use super::js::AbortSignal;
use super::pinned::All;
use super::stringify::json_text;
use crate::Record;
use crate::error::{Error, Result};
use crate::facts::{MessageFacts, RequestFacts};
use crate::formats::Format;
use crate::out::{self as shape, Sink};
use crate::plan::Plan;

/// A request read from JavaScript; `messages` is the host's own array.
pub(crate) type JsRequest = crate::options::HostRequest<Array, AnyEstimator>;

/// Reads `{ systemPrompt, summary, messages, tools, inputTokenBudget, requireReduction,
/// estimator, format, reportedUsage, focus }`.
pub(crate) fn request(value: &JsValue) -> Result<JsRequest> {
    if !value.is_object() {
        return Err(Error::invalid_request("request: expected an object"));
    }
    let messages = host::list(&field(value, "messages", "request")?, "messages")?
        .ok_or_else(|| Error::invalid_request("messages: expected an array"))?;
    request_around(value, Some(messages))
}

/// Reads a request whose messages come as a body (`planBytes`): everything but `messages`,
/// which must be left out.
pub(crate) fn request_without_messages(value: &JsValue) -> Result<JsRequest> {
    if value.is_undefined() || value.is_null() {
        return request_around(&Object::new().into(), None);
    }
    if !field(value, "messages", "request")?.is_undefined() {
        return Err(Error::invalid_request(
            "request.messages: leave it out, the messages are the body",
        ));
    }
    request_around(value, None)
}

/// Reads a request around `messages` (`None`: a body's, read later).
fn request_around(value: &JsValue, messages: Option<Array>) -> Result<JsRequest> {
    let body = messages.is_none();
    let pinned = |pinned: &JsValue, messages: &Array| {
        super::pinned::read(pinned, (!body).then_some(messages), "pinned", All::Refused)
    };
    let messages = messages.unwrap_or_default();
    crate::options::request(value, messages, pinned, AnyEstimator::from_js)
}

/// The bytes of a request body: a `Uint8Array`, an `ArrayBuffer` or a string (copied once).
pub(crate) fn body(value: &JsValue) -> Result<Vec<u8>> {
    // A Uint8Array of the package's own over the caller's bytes, copied here: no caller code
    // runs between the two, so the copy cannot throw.
    let value = host::bytes(value, "body")?;
    if let Some(bytes) = value.dyn_ref::<js_sys::Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    value.as_string().map(String::into_bytes).ok_or_else(|| {
        Error::invalid_request("body: expected a Uint8Array, an ArrayBuffer or a string")
    })
}

/// Reads `{ signal }` from apply / compact options.
pub(crate) fn signal(options: &JsValue) -> Result<Option<AbortSignal>> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    let signal = field(options, "signal", "options")?;
    if signal.is_undefined() || signal.is_null() {
        return Ok(None);
    }
    let listens = Reflect::get(&signal, &"addEventListener".into())
        .map(|f| f.is_function())
        .unwrap_or(false);
    if !signal.is_object() || !listens {
        return Err(Error::invalid_request(
            "options.signal: expected an AbortSignal",
        ));
    }
    Ok(Some(signal.unchecked_into()))
}

/// The facts of host message `message`, at index `i`, in `format`, counted by `estimator`.
pub(crate) fn message_facts(
    message: &JsValue,
    i: usize,
    format: Format,
    estimator: &dyn crate::token::Estimator,
) -> Result<MessageFacts> {
    let path = text!("messages[", i, "]");
    format.facts_json(&json_text(message, &path)?, &path, estimator)
}

/// Host messages `range` without the system messages among them (those are never cut); one
/// `slice` when there are none.
pub(crate) fn slice_without_pinned(
    messages: &Array,
    facts: &[MessageFacts],
    range: &std::ops::Range<usize>,
) -> Array {
    if !crate::holds_pinned(facts, range) {
        return messages.slice(range.start as u32, range.end as u32);
    }
    let unpinned = crate::unpinned(facts, range.clone());
    unpinned.map(|i| messages.get(i as u32)).collect()
}

/// The messages a compaction keeps ([`Plan::kept`]): the first trimmed to the kept parts
/// when the cut falls inside it.
pub(crate) fn kept(messages: &Array, facts: &RequestFacts, plan: &Plan) -> Result<Array> {
    let kept = Array::new();
    for (i, cut) in plan.kept(&facts.messages, messages.length() as usize) {
        match cut {
            true => kept.push(&with_parts(messages, i, plan.first_kept_part..)?),
            false => kept.push(&messages.get(i as u32)),
        };
    }
    Ok(kept)
}

/// The parts of message `first_kept_index` a plan summarizes (those before `first_kept_part`)
/// as a trimmed copy, or `None` when the cut is between messages.
pub(crate) fn summarized_part(messages: &Array, plan: &Plan) -> Result<Option<JsValue>> {
    match plan.first_kept_part {
        0 => Ok(None),
        part => with_parts(messages, plan.first_kept_index, 0..part).map(Some),
    }
}

/// A copy of message `i` (a UIMessage, `id` and all) holding only `parts` of its parts: a new
/// object, the caller's left as it is.
fn with_parts(
    messages: &Array,
    i: usize,
    parts: impl std::ops::RangeBounds<usize>,
) -> Result<JsValue> {
    let path = text!("messages[", i, "]");
    let copy = host::record(&messages.get(i as u32), &path)?
        .ok_or_else(|| Error::invalid_request(text!(path, ": expected an object")))?;
    let all = host::list(&field(&copy, "parts", &path)?, &text!(path, ".parts"))?
        .ok_or_else(|| Error::invalid_request(text!(path, ".parts: expected an array")))?;
    let len = all.length() as usize;
    let start = match parts.start_bound() {
        std::ops::Bound::Included(&n) => n,
        _ => 0,
    };
    let end = match parts.end_bound() {
        std::ops::Bound::Excluded(&n) => n,
        _ => len,
    };
    let sliced = all.slice(start.min(len) as u32, end.min(len) as u32);
    let _ = Reflect::set(&copy, &"parts".into(), &sliced);
    Ok(copy.into())
}

/// The JavaScript plan object, with slices of the host's own messages (and, for a cut inside
/// a message, a trimmed copy of its summarized parts ending `turnPrefixMessages`).
pub(crate) fn plan_to_js(plan: &Plan, messages: &Array, facts: &[MessageFacts]) -> Result<JsValue> {
    let tokens = tokens_to_js(&plan.message_tokens);
    plan_object(plan, messages, facts, tokens, false)
}

/// [`plan_to_js`] for a plan made over `facts`, its `messageTokens` read from the facts (the
/// plan may carry none: `Compactor::decide_history`). With `last_use` (the caller reads
/// `messages`, the package's own copy of the caller's array, no more), that array cut to its
/// length becomes `messagesToSummarize` instead of a copy of it (at 100k messages, 0.8 MB of
/// JavaScript heap).
pub(crate) fn preview_to_js(
    plan: &Plan,
    messages: &Array,
    facts: &[MessageFacts],
    last_use: bool,
) -> Result<JsValue> {
    let tokens = float64s(facts.len(), &mut facts_tokens(facts));
    plan_object(plan, messages, facts, tokens, last_use)
}

fn plan_object(
    plan: &Plan,
    messages: &Array,
    facts: &[MessageFacts],
    tokens: JsValue,
    last_use: bool,
) -> Result<JsValue> {
    let pinned = crate::pinned::kept_before(facts, plan.first_kept_index);
    // ChatPreview reads neither message array of a plan (`messagesToSummarize`,
    // `turnPrefixMessages`): the preview module (without `plan-api`) leaves both out, and the
    // trimmed copy of a split message with them.
    if !cfg!(feature = "plan-api") {
        let slots = [first_kept_id(messages, plan), tokens];
        return Ok(out(&slots, |w| shape::plan(w, plan, &pinned, true)));
    }
    let slice = |r: &std::ops::Range<usize>| slice_without_pinned(messages, facts, r);
    let prefix = slice(&plan.turn_prefix_messages);
    if let Some(partial) = summarized_part(messages, plan)? {
        prefix.push(&partial);
    }
    let kept_id = first_kept_id(messages, plan);
    // Last: the array may be cut to the summarized messages here.
    let history = &plan.messages_to_summarize;
    let unpinned = || !crate::holds_pinned(facts, history);
    let summarize = if last_use && history.start == 0 && unpinned() {
        // The package's own array: setting its length runs no caller code.
        messages.set_length(history.end as u32);
        messages.clone()
    } else {
        slice(history)
    };
    let slots = [kept_id, tokens, summarize.into(), prefix.into()];
    Ok(out(&slots, |w| shape::plan(w, plan, &pinned, true)))
}

/// The `id` of the message the kept suffix starts in, when it is a string (UIMessages have
/// one); `null` otherwise. Only `id` is read: the format's reader may read no other key, and an
/// `id` that throws is no id (it is not needed to plan).
fn first_kept_id(messages: &Array, plan: &Plan) -> JsValue {
    id_at(messages, plan.first_kept_index)
}

/// The `id` of message `i` when it is a string, else `null` (see [`first_kept_id`]).
pub(crate) fn id_at(messages: &Array, i: usize) -> JsValue {
    if i >= messages.length() as usize {
        return JsValue::NULL;
    }
    match field(&messages.get(i as u32), "id", "") {
        Ok(id) if id.is_string() => id,
        _ => JsValue::NULL,
    }
}

/// The plan object of `planBytes`: indices, estimates and where each message is in the body
/// (`messageSpans`: start and end byte offsets, two per message), no message arrays.
pub(crate) fn bytes_plan_to_js(
    plan: &Plan,
    facts: &[MessageFacts],
    spans: &[std::ops::Range<usize>],
    body: &[u8],
) -> JsValue {
    let pinned = crate::pinned::kept_before(facts, plan.first_kept_index);
    // The kept message's `id`, read from its span of the body.
    let id = crate::body::message_id(body, spans, plan.first_kept_index);
    let id = id.map_or(JsValue::NULL, |id| JsValue::from_str(&id));
    let tokens = tokens_to_js(&plan.message_tokens);
    out(&[id, tokens, spans_to_js(spans)], |w| {
        shape::plan(w, plan, &pinned, false)
    })
}

/// Where each message is in a body: start and end offsets, in a `Uint32Array`.
pub(crate) fn spans_to_js(spans: &[std::ops::Range<usize>]) -> JsValue {
    let offsets: Vec<u32> = spans
        .iter()
        .flat_map(|s| [s.start as u32, s.end as u32])
        .collect();
    js_sys::Uint32Array::from(offsets.as_slice()).into()
}

/// `{ summary, firstKeptIndex, firstKeptPart, firstKeptId, digest, previousDigest, usage? }`.
pub(crate) fn draft_to_js(draft: &crate::draft::Draft, first_kept_id: JsValue) -> JsValue {
    out(&[first_kept_id], |w| shape::draft(w, draft))
}

/// `{ summary, messages, record }`.
pub(crate) fn outcome(summary: &str, messages: Array, record: Option<&Record>) -> JsValue {
    out(&[messages.into()], |w| {
        shape::outcome(w, summary, record, None)
    })
}

/// `{ total, systemPrompt, summary, messages, tools }` ([`shape::estimate`]).
pub(crate) fn estimate(facts: &RequestFacts) -> JsValue {
    out(&[], |w| shape::estimate(w, facts))
}

/// A plain object from key/value pairs.
pub(crate) fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in fields {
        let _ = Reflect::set(&object, &JsValue::from_str(key), value);
    }
    object.into()
}

/// The one conversion of an output: what `write` writes ([`crate::out`]) as a JavaScript value
/// (objects and arrays of the package's own), slot `k` being `slots[k]`.
pub(crate) fn out(slots: &[JsValue], write: impl FnOnce(&mut Js<'_>)) -> JsValue {
    let mut js = Js {
        slots,
        open: Vec::new(),
        done: JsValue::UNDEFINED,
    };
    write(&mut js);
    js.done
}

/// The [`Sink`] of the binding: builds each object and array as its values come.
pub(crate) struct Js<'a> {
    slots: &'a [JsValue],
    /// The open objects and arrays, innermost last (an array: `true`), each under its key.
    open: Vec<(&'static str, JsValue, bool)>,
    done: JsValue,
}

impl Js<'_> {
    fn put(&mut self, key: &'static str, value: JsValue) {
        match self.open.last() {
            Some((_, list, true)) => {
                list.unchecked_ref::<Array>().push(&value);
            }
            Some((_, object, false)) => {
                let _ = Reflect::set(object, &JsValue::from_str(key), &value);
            }
            None => self.done = value,
        }
    }
}

impl Sink for Js<'_> {
    fn null(&mut self, key: &'static str) {
        self.put(key, JsValue::NULL);
    }
    fn bool(&mut self, key: &'static str, value: bool) {
        self.put(key, JsValue::from_bool(value));
    }
    fn number(&mut self, key: &'static str, value: f64) {
        self.put(key, JsValue::from_f64(value));
    }
    fn text(&mut self, key: &'static str, value: &str) {
        self.put(key, JsValue::from_str(value));
    }
    fn slot(&mut self, key: &'static str, k: usize) {
        let value = self.slots.get(k).cloned().unwrap_or(JsValue::UNDEFINED);
        self.put(key, value);
    }
    fn open(&mut self, key: &'static str, list: bool) {
        let value: JsValue = if list {
            Array::new().into()
        } else {
            Object::new().into()
        };
        self.open.push((key, value, list));
    }
    fn close(&mut self) {
        if let Some((key, value, _)) = self.open.pop() {
            self.put(key, value);
        }
    }
}

/// `text` (a summary prompt: megabytes of records) as a JavaScript string, decoded in the
/// pieces [`crate::crossing::ascii_pieces`] cuts it into (the same string, decoded faster).
pub(crate) fn long_string(text: &str) -> JsValue {
    let mut joined = js_sys::JsString::from("");
    crate::crossing::ascii_pieces(text, &mut |piece| {
        let piece = text.get(piece).unwrap_or_default();
        joined = joined.concat(&JsValue::from_str(piece));
    });
    joined.into()
}

/// `tokens` as a `Float64Array` ([`float64s`]).
fn tokens_to_js(tokens: &[u64]) -> JsValue {
    let mut tokens = tokens.iter().copied();
    float64s(tokens.len(), &mut || tokens.next())
}

/// The estimate of each of `facts` in turn, for [`float64s`].
pub(crate) fn facts_tokens(facts: &[MessageFacts]) -> impl FnMut() -> Option<u64> + '_ {
    let mut facts = facts.iter();
    move || facts.next().map(|f| f.tokens)
}

/// One `Float64Array` of the `len` values `next` gives, copied in one go (an `Array` would
/// cost a crossing per number). `next` behind `dyn` (a closure's vtable, not an iterator's):
/// one copy of the loop for every caller (bench/README.md, Package size).
pub(crate) fn float64s(len: usize, next: &mut dyn FnMut() -> Option<u64>) -> JsValue {
    // Converted a chunk at a time into the array.
    use crate::crossing::FLOATS_CHUNK as CHUNK;
    let array = js_sys::Float64Array::new_with_length(len as u32);
    let mut floats = Vec::with_capacity(len.min(CHUNK));
    let mut start = 0u32;
    let mut values = std::iter::from_fn(next).peekable();
    while values.peek().is_some() {
        floats.clear();
        floats.extend(values.by_ref().take(CHUNK).map(|n| n as f64));
        let end = start + floats.len() as u32;
        array.subarray(start, end).copy_from(&floats);
        start = end;
    }
    array.into()
}
