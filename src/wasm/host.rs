//! The one way the bindings receive the caller's arrays, records and buffers: the package's
//! guarded readers (`pkg-template/host/host.js`, registered at setup), called with `catch`. Each
//! gives a copy of the package's own, so nothing read later (after an await, or while a
//! summary runs) touches the caller's object again, and a throwing getter or revoked Proxy
//! becomes an error naming the place, with the caller's exception as `cause`: no host
//! exception ever unwinds through a wasm frame.

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::error::{HostError, describe};
use super::seam::{Package, package};
use crate::error::{Error, Result};

/// The package's own promise of what a caller's function returned (see [`settle`]).
pub(crate) fn promise(returned: &JsValue) -> Result<Promise> {
    Ok(read(|r| &r.settle, returned, "")?.unchecked_into())
}

/// The promise of an async export's `future`: every export boxes its future into this one
/// type, so the module holds one copy of the promise glue, not one per export.
#[cfg(feature = "full")]
pub(crate) fn spawn(
    future: crate::summarizer::LocalFuture<'static, Result<JsValue, JsValue>>,
) -> Promise {
    wasm_bindgen_futures::future_to_promise(future)
}

/// What a caller's function returned (a value, a promise or any thenable), to await: a
/// `then` that throws is a rejection, never an exception inside wasm. A plain function
/// returning the future, not an async one: each caller awaits the promise itself, with no
/// state machine of its own around it.
pub(crate) fn settle(returned: &JsValue) -> Result<JsFuture, JsValue> {
    Ok(JsFuture::from(promise(returned)?))
}

/// A copy of the caller's array `value`, or `None` when it is not an array.
pub(crate) fn list(value: &JsValue, path: &str) -> Result<Option<Array>> {
    Ok(read(|r| &r.list, value, path)?.dyn_into::<Array>().ok())
}

/// A plain copy of the caller's object `value` (its own enumerable properties), or `None`
/// when it is not an object.
pub(crate) fn record(value: &JsValue, path: &str) -> Result<Option<Object>> {
    let copy = read(|r| &r.record, value, path)?;
    Ok(copy.is_object().then(|| copy.unchecked_into()))
}

/// A body as a string or a `Uint8Array` of the package's own over its bytes; `undefined` when it is
/// neither a string, a `Uint8Array` nor an `ArrayBuffer`.
pub(crate) fn bytes(value: &JsValue, path: &str) -> Result<JsValue> {
    read(|r| &r.bytes, value, path)
}

fn read(pick: fn(&Package) -> &Function, value: &JsValue, path: &str) -> Result<JsValue> {
    let read = pick(&*package()?).call2(&JsValue::NULL, value, &JsValue::from_str(path));
    let copy = read.map_err(|thrown| fault(&thrown))?;
    Ok(if copy.is_null() {
        JsValue::UNDEFINED
    } else {
        copy
    })
}

/// The error of a `Fault` the walker threw while reading element `index` of an array that
/// starts at `path[first]` in the caller's numbering.
pub(crate) fn fault_at(thrown: &JsValue, path: &str, first: usize) -> Error {
    let index = Reflect::get(thrown, &"index".into()).map_or(None, |i| i.as_f64());
    let cause = Reflect::get(thrown, &"cause".into()).unwrap_or(JsValue::UNDEFINED);
    match index {
        Some(index) => Error::InvalidRequest {
            message: text!(
                path,
                "[",
                first + index as usize,
                "]: reading it threw: ",
                describe(&cause)
            ),
            source: Some(Box::new(HostError::new(cause))),
        },
        None => fault(thrown),
    }
}

/// The error of a `Fault` the readers threw: its message, and the caller's exception as the
/// source (anything else thrown, such as a stack overflow, is described as it is).
pub(crate) fn fault(thrown: &JsValue) -> Error {
    let get = |key: &str| Reflect::get(thrown, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let (message, cause) = match get("message").as_string() {
        Some(message) if thrown.is_object() && get("path").is_string() => (message, get("cause")),
        _ => (describe(thrown), thrown.clone()),
    };
    Error::InvalidRequest {
        message,
        source: (!cause.is_undefined()).then(|| Box::new(HostError::new(cause)) as _),
    }
}
