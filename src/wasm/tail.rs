//! Planning an anchored long history of host objects from its tail (`crate::tail`): the
//! latest messages first, to see whether anything was reported at all; then one cheap pass over
//! the size of every message (the package's sizer, `pkg-template/size.js`, which reads no more
//! than the walker would and catches what a message throws, and names the system messages and
//! failed attempts); then the exact facts of the system messages and of a tail, longer until it
//! decides the plan. A failed attempt before the tail is not read: it is marked failed, which
//! is all a calibrated estimate needs of it (it counts 0).

use std::cell::RefCell;

use js_sys::{Array, Float64Array, Function};
use wasm_bindgen::prelude::*;

use super::convert::JsRequest;
use super::engine::{Engine, options};
use super::{cache, host, reported};
use crate::anchor;
use crate::error::{Error, Result};
use crate::facts::{MessageFacts, RequestFacts};
use crate::plan::Plan;
use crate::tail;

thread_local! {
    static SIZER: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Registers the package's sizer; the entry files call it once after init.
#[allow(unreachable_pub)] // exported to JavaScript
#[wasm_bindgen(js_name = __registerSizer)]
pub fn register_sizer(sizer: Function) {
    SIZER.with(|slot| *slot.borrow_mut() = Some(sizer));
}

/// How many of the latest messages are read to find what the provider reported, before any
/// other message is looked at.
const FIRST_LOOK: usize = 128;

/// The facts and plan of `request` read from its tail; `None` when the history is short, when
/// nothing usable was reported, or when no tail short of the whole history decides the plan
/// (the caller then reads every message, as it does without usage).
pub(crate) fn plan(
    inner: &Engine,
    request: &JsRequest,
) -> Result<Option<(RequestFacts, Option<Plan>)>> {
    let count = request.messages.length() as usize;
    if count < tail::FROM {
        return Ok(None);
    }
    let mut facts = request.fixed_facts()?;
    let fixed = facts.clone();
    // Built, not cloned from one default: 10,000 clones cost a tenth of a millisecond.
    facts.messages = Vec::with_capacity(count);
    facts.messages.resize_with(count, MessageFacts::default);
    let mut end = count - FIRST_LOOK;
    read(
        request,
        inner.cache,
        &mut facts,
        (end..count).map(|i| i as u32),
    )?;
    let reports = reported::reports(request, &facts)?;
    if reports.is_empty() || stale_by_sample(request, &facts, end, &reports)? {
        return Ok(None);
    }
    // `exact`: the system messages, read exactly wherever they are.
    let Sized {
        sizes,
        system: exact,
        failed,
    } = sizes(request, None)?;
    // A failed attempt not read: marked so, its tokens (its size's) then calibrated to 0.
    for &i in failed.iter().filter(|&&i| (i as usize) < end) {
        if let Some(f) = facts.messages.get_mut(i as usize) {
            f.failed = true;
        }
    }
    // A flag a message: looked up for every message not read (a search of `exact` for each
    // took 1.5% of a cold plan of 10k messages).
    let mut exact_flags = vec![false; count];
    for &i in &exact {
        if let Some(flag) = exact_flags.get_mut(i as usize) {
            *flag = true;
        }
    }
    let is_exact = |i: usize| exact_flags.get(i).copied().unwrap_or(false);
    let mut start = tail::first_start(&sizes, inner.core.keep_recent_tokens()).min(end);
    // Those not read yet are read with the first tail, and never again.
    let unread_exact: Vec<u32> = exact
        .iter()
        .copied()
        .filter(|&i| (i as usize) < end)
        .collect();
    let mut first = Some(unread_exact);
    loop {
        let tail = (start..end).filter(|&i| !is_exact(i)).map(|i| i as u32);
        let once = first.take().unwrap_or_default();
        read(
            request,
            inner.cache,
            &mut facts,
            once.into_iter().chain(tail),
        )?;
        end = start;
        tail::fill_unread(&mut facts.messages, &sizes, start, &exact);
        // Calibration scales the facts in place: their raw tokens are kept for a longer tail.
        let raw: Vec<u64> = facts.messages.iter().map(|f| f.tokens).collect();
        let reports = reported::reports(request, &facts)?;
        anchor::calibrate(&mut facts, &reports);
        if facts.calibration.anchor.is_none() {
            return Ok(None);
        }
        if let Some(plan) = inner.core.plan_from_tail(&facts, start, options(request))? {
            return Ok(Some((facts, plan)));
        }
        for (f, tokens) in facts.messages.iter_mut().zip(raw) {
            f.tokens = tokens;
        }
        let messages = std::mem::take(&mut facts.messages);
        facts = RequestFacts {
            messages,
            ..fixed.clone()
        };
        start = tail::next_start(start, count);
    }
}

/// Reads the facts of messages `indices` into their places in `facts`.
fn read(
    request: &JsRequest,
    use_cache: bool,
    facts: &mut RequestFacts,
    indices: impl Iterator<Item = u32>,
) -> Result<()> {
    let indices: Vec<u32> = indices.collect();
    let read = cache::messages_facts(request, &indices, use_cache)?;
    for (i, f) in indices.into_iter().zip(read) {
        if let Some(place) = facts.messages.get_mut(i as usize) {
            *place = f;
        }
    }
    Ok(())
}

/// One message in this many before the messages read first is sized by [`stale_by_sample`].
const SAMPLE_STRIDE: usize = 32;

/// How far beyond [`anchor::MAX_RATIO`] the sampled estimate must put a report to give it up:
/// giving up only sends the plan to the exact path, but a usable report should not be lost to
/// the sample's error.
const SAMPLE_MARGIN: f64 = 2.0;

/// Whether every one of `reports` is far off our estimate of the request it describes, by the
/// sizes of a sample (one message in [`SAMPLE_STRIDE`] before `end`) and the facts of the
/// messages from `end` on (read exactly, which also give the tokens per unit of size). Then
/// calibration would find no usable report in any tail, and the size pass and the tails are
/// not tried: the caller reads every message at once. A history whose usage is stale (copied
/// from another conversation, or from before a rewrite) cost a fifth more without this.
fn stale_by_sample(
    request: &JsRequest,
    facts: &RequestFacts,
    end: usize,
    reports: &[anchor::Report],
) -> Result<bool> {
    let count = facts.messages.len();
    let sampled: Vec<u32> = (0..end)
        .step_by(SAMPLE_STRIDE)
        .chain(end..count)
        .map(|i| i as u32)
        .collect();
    // A message that throws is left to the size pass, which names it by its own index.
    let Ok(Sized { sizes, .. }) = sizes(request, Some(&sampled)) else {
        return Ok(false);
    };
    let size_before = |stop: usize| -> f64 {
        let sized = sampled.iter().zip(&sizes);
        sized
            .filter(|&(&i, _)| (i as usize) < stop)
            .map(|(_, size)| size)
            .sum()
    };
    let tokens = |range: std::ops::Range<usize>| -> u64 {
        let read = facts.messages.get(range).unwrap_or(&[]);
        read.iter().filter(|f| !f.failed).map(|f| f.tokens).sum()
    };
    let tail_size = size_before(count) - size_before(end);
    if tail_size <= 0.0 {
        return Ok(false);
    }
    let per_size = tokens(end..count) as f64 / tail_size;
    let fixed_now = facts.system_prompt + facts.summary + facts.tools;
    let limit = anchor::MAX_RATIO * SAMPLE_MARGIN;
    Ok(reports.iter().all(|report| {
        let stop = report.messages;
        if stop > count || report.tokens == 0 {
            // Calibration skips it anyway.
            return true;
        }
        let sampled = size_before(stop.min(end)) * SAMPLE_STRIDE as f64;
        let estimate = report.fixed.unwrap_or(fixed_now) as f64
            + tokens(end..stop.max(end)) as f64
            + sampled * per_size;
        let reported = report.tokens as f64;
        reported * limit < estimate || reported > estimate * limit
    }))
}

/// What the sizer found: the size of each message, and the indices of the system messages and
/// of the failed attempts ([`crate::formats::Format::failed_mark`]), each in order.
struct Sized {
    sizes: Vec<f64>,
    system: Vec<u32>,
    failed: Vec<u32>,
}

/// The sizer's pass over the messages of `request` (over messages `only`, in their order, when
/// given: then the indices it names are positions in `only`).
fn sizes(request: &JsRequest, only: Option<&[u32]>) -> Result<Sized> {
    let sizer = SIZER.with(|slot| slot.borrow().clone()).ok_or_else(|| {
        Error::invalid_config(
            "the package's sizer is not registered: import context-compaction through one of its entries",
        )
    })?;
    let format = request.format;
    let messages = match only {
        Some(indices) => indices
            .iter()
            .map(|&i| request.messages.get(i))
            .collect::<Array>(),
        None => request.messages.clone(),
    };
    let sizes = Float64Array::new_with_length(messages.length());
    let keys = match format.keys() {
        Some(keys) => keys
            .iter()
            .map(|k| JsValue::from_str(k))
            .collect::<Array>()
            .into(),
        None => JsValue::NULL,
    };
    let strings = |all: &[&str]| -> Array { all.iter().map(|s| JsValue::from_str(s)).collect() };
    let (fail_role, fail_key, fail_values) = match format.failed_mark() {
        Some(mark) => (
            JsValue::from_str(mark.role),
            JsValue::from_str(mark.key),
            strings(mark.values),
        ),
        None => (JsValue::NULL, JsValue::NULL, Array::new()),
    };
    let args: Array = [
        messages.into(),
        sizes.clone().into(),
        keys,
        strings(format.system_roles()).into(),
        fail_role,
        fail_key,
        fail_values.into(),
    ]
    .iter()
    .collect();
    // The sizer catches what a message throws and returns it as a `Fault`; anything else it
    // throws is caught at this call: nothing unwinds through a wasm frame.
    let found = sizer
        .apply(&JsValue::NULL, &args)
        .map_err(|thrown| host::fault(&thrown))?;
    let indices = |at: u32| -> Option<Vec<u32>> {
        let list = Array::from(&found).get(at);
        Array::is_array(&list).then(|| {
            Array::from(&list)
                .iter()
                .filter_map(|i| i.as_f64())
                .map(|i| i as u32)
                .collect()
        })
    };
    let (system, failed) = match Array::is_array(&found).then(|| (indices(0), indices(1))) {
        Some((Some(system), Some(failed))) => (system, failed),
        _ => return Err(host::fault_at(&found, "messages", 0)),
    };
    Ok(Sized {
        sizes: sizes.to_vec(),
        system,
        failed,
    })
}
