//! The package's sizer (`pkg-template/host/size.js`), the cheap reads of a long history that an
//! anchored plan makes instead of reading every message (`crate::tail`): the size of messages
//! (the UTF-16 length of the strings the format's reader would read, copying nothing), the
//! indices of the system messages, and the deferred `messageTokens` of the messages a plan did
//! not read. Each catches what a message throws and returns it as a `Fault` naming the message;
//! anything else it throws is caught at the call: nothing unwinds through a wasm frame.

use js_sys::{Array, Float64Array, Function};
use wasm_bindgen::prelude::*;

use super::convert::JsRequest;
use super::host;
use super::seam::Sizer;
use crate::error::{Error, Result};
use crate::formats::Format;
use crate::history::Sizes;

/// Fills in the `messageTokens` of a plan's messages that it did not read, for the sizer's
/// deferred read ([`crate::tail::fill_deferred`]): `tokens` of every message, their `sizes`,
/// where the tail starts, and `[read, failed]`: the messages before it that were read, and the
/// failed attempts. Only `Compactor.plan` defers them: the preview module (without
/// `plan-api`) leaves it out, and the package's `deferTokens` there is never called.
#[cfg(feature = "plan-api")]
#[allow(unreachable_pub)] // exported to JavaScript
#[wasm_bindgen(js_name = __fillDeferred)]
pub fn fill_deferred(tokens: &Float64Array, sizes: &Float64Array, start: u32, lists: &JsValue) {
    let (read, failed) = (indices(lists, 0), indices(lists, 1));
    let mut filled = tokens.to_vec();
    let (read, failed) = (read.unwrap_or_default(), failed.unwrap_or_default());
    crate::tail::fill_deferred(&mut filled, &sizes.to_vec(), start as usize, &read, &failed);
    tokens.copy_from(&filled);
}

/// Calls one of the sizer's functions with `args`.
fn call(pick: fn(&Sizer) -> &Function, args: &[JsValue]) -> Result<JsValue> {
    let package = super::seam::package()?;
    // The preview module, which has no sizer, never sizes messages lazily.
    let Some(sizer) = &package.sizer else {
        return Err(Error::invalid_config("this module does not size messages"));
    };
    let args: Array = args.iter().collect();
    pick(sizer)
        .apply(&JsValue::NULL, &args)
        .map_err(|thrown| host::fault(&thrown))
}

/// The sizer's pass over the messages of `request` (over messages `only`, in their order, when
/// given: then the indices it names are positions in `only`). A message that throws fails it,
/// naming the message; or, with `skip_throws`, has a NaN size.
pub(super) fn sizes(request: &JsRequest, only: Option<&[u32]>, skip_throws: bool) -> Result<Sizes> {
    let format = request.format;
    let messages = match only {
        Some(indices) => {
            // Made at its length: pushed one by one, a sample of 100k messages grew the array
            // step by step, 0.4 MB of JavaScript heap for one of 0.1 MB.
            let list = Array::new_with_length(indices.len() as u32);
            for (k, &i) in indices.iter().enumerate() {
                list.set(k as u32, request.messages.get(i));
            }
            list
        }
        None => request.messages.clone(),
    };
    let sizes = Float64Array::new_with_length(messages.length());
    let mut args = vec![messages.into(), sizes.clone().into()];
    args.extend(format_args(format));
    args.push(skip_throws.into());
    args.push(pin_path(format));
    let found = call(|s| &s.sizes, &args)?;
    let (system, failed) =
        match Array::is_array(&found).then(|| (indices(&found, 0), indices(&found, 1))) {
            Some((Some(system), Some(failed))) => (system, failed),
            _ => return Err(host::fault_at(&found, "messages", 0)),
        };
    Ok(Sizes {
        sizes: sizes.to_vec(),
        system: crate::pinned::with_system(system, &request.pinned, only),
        failed,
    })
}

/// The indices of the system messages of `request` (by their top-level `role`) and of the
/// pinned ones (by their format's marker, or the request's list), reading nothing else.
pub(super) fn system_messages(request: &JsRequest) -> Result<Vec<u32>> {
    let found = marked_system(request)?;
    Ok(crate::pinned::with_system(found, &request.pinned, None))
}

/// [`system_messages`] without the request's list of pinned indices.
fn marked_system(request: &JsRequest) -> Result<Vec<u32>> {
    let roles = request.format.system_roles();
    if roles.is_empty() && request.format.pin_path().is_none() {
        return Ok(Vec::new());
    }
    let found = call(
        |s| &s.roles,
        &[
            request.messages.clone().into(),
            strings(roles).into(),
            pin_path(request.format),
        ],
    )?;
    let list = Array::of1(&found);
    indices(&list, 0).ok_or_else(|| host::fault_at(&found, "messages", 0))
}

/// Makes `plan.messageTokens` size the messages before `start` that were not read (all but
/// `read`) when it is first read: their size at the calibrated tokens per unit of size of the
/// messages from `start` on, 0 for a failed attempt.
pub(super) fn defer_tokens(
    plan: &JsValue,
    request: &JsRequest,
    start: usize,
    read: &[u32],
) -> Result<()> {
    let read: Array = read.iter().map(|&i| JsValue::from(i)).collect();
    let mut args = vec![
        plan.clone(),
        request.messages.clone().into(),
        JsValue::from(start as u32),
        read.into(),
    ];
    args.extend(format_args(request.format));
    call(|s| &s.defer_tokens, &args).map(|_| ())
}

/// What the sizer needs to know of `format`: the top-level keys its reader reads (all when
/// `null`), its system roles, and how a failed attempt is marked (role, key, values).
fn format_args(format: Format) -> [JsValue; 5] {
    let keys = match format.keys() {
        Some(keys) => strings(keys).into(),
        None => JsValue::NULL,
    };
    let (fail_role, fail_key, fail_values) = match format.failed_mark() {
        Some(mark) => (
            JsValue::from_str(mark.role),
            JsValue::from_str(mark.key),
            strings(mark.values),
        ),
        None => (JsValue::NULL, JsValue::NULL, Array::new()),
    };
    [
        keys,
        strings(format.system_roles()).into(),
        fail_role,
        fail_key,
        fail_values.into(),
    ]
}

/// The path of keys that pins a message of `format` (`null` when none).
fn pin_path(format: Format) -> JsValue {
    format
        .pin_path()
        .map_or(JsValue::NULL, |path| strings(path).into())
}

fn strings(all: &[&str]) -> Array {
    all.iter().map(|s| JsValue::from_str(s)).collect()
}

/// The list of indices at `at` of the array `found`, or `None` when it is not one.
fn indices(found: &JsValue, at: u32) -> Option<Vec<u32>> {
    let list = Array::from(found).get(at);
    Array::is_array(&list).then(|| {
        Array::from(&list)
            .iter()
            .filter_map(|i| i.as_f64())
            .map(|i| i as u32)
            .collect()
    })
}
