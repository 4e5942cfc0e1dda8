//! The `pinned` option of a request (and of a conversation's `append`) read into the message
//! indices the core pins ([`crate::pinned`]): an array of indices, a predicate
//! `(message, index) => boolean` called once per message (not for a body), or (`append` only)
//! `true` for every message given.

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::error::{HostError, describe};
use super::host;
use crate::error::{Error, Result, whole_number};

/// Whether `true` (every message) is allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum All {
    Allowed,
    Refused,
}

/// The indices `value` pins among `messages` (`len` of them; `messages` is `None` when they
/// are a body, which a predicate cannot be called on), sorted without repeats (a body's as
/// given, checked by the core); `path` names the option in errors.
pub(crate) fn read(
    value: &JsValue,
    messages: Option<&Array>,
    len: Option<usize>,
    path: &str,
    all: All,
) -> Result<Vec<u32>> {
    let indices = match (value.as_bool(), value.dyn_ref::<Function>(), messages) {
        (Some(false), _, _) => return Ok(Vec::new()),
        _ if value.is_undefined() || value.is_null() => return Ok(Vec::new()),
        // The preview module reads pins from the messages only (a UIMessage's metadata).
        _ if !cfg!(feature = "plan-api") => return Err(super::not_read(path)),
        (Some(true), _, _) if all == All::Allowed => every(len.unwrap_or(0)),
        (_, Some(predicate), Some(messages)) => chosen(predicate, messages, path)?,
        _ => match host::list(value, path)? {
            Some(list) => indices(&list, path)?,
            None => {
                return Err(Error::invalid_request(format!(
                    "{path}: expected an array of message indices or (not with a body) a function (message, index) => boolean, got {}",
                    describe(value)
                )));
            }
        },
    };
    // A body's are checked by the core once it has read how many messages the body holds.
    match len {
        Some(len) => crate::pinned::checked(indices, len, path),
        None => Ok(indices),
    }
}

/// The indices of `list`, each a whole number.
fn indices(list: &Array, path: &str) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for k in 0..list.length() {
        let n = list.get(k).as_f64().unwrap_or(f64::NAN);
        let place = format!("{path}[{k}]");
        let n = whole_number(n, &place).map_err(Error::invalid_request)?;
        let n = u32::try_from(n)
            .map_err(|_| Error::invalid_request(format!("{place}: out of range")))?;
        out.push(n);
    }
    Ok(out)
}

/// `0..len` as indices.
fn every(len: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(len);
    for i in 0..len as u32 {
        out.push(i);
    }
    out
}

/// The indices of `messages` for which `predicate(message, index)` is truthy; a throw is an
/// error naming the message, with the thrown value as its source.
fn chosen(predicate: &Function, messages: &Array, path: &str) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for i in 0..messages.length() {
        let message = messages.get(i);
        match predicate.call2(&JsValue::UNDEFINED, &message, &JsValue::from(i)) {
            Ok(answer) if answer.is_truthy() => out.push(i),
            Ok(_) => {}
            Err(thrown) => {
                return Err(Error::InvalidRequest {
                    message: format!(
                        "{path}: the predicate threw on messages[{i}]: {}",
                        describe(&thrown)
                    ),
                    source: Some(Box::new(HostError::new(thrown))),
                });
            }
        }
    }
    Ok(out)
}
