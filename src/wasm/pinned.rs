//! The `pinned` option of a request (and of a conversation's `append`) read into the message
//! indices the core pins ([`crate::pinned`]): an array of indices, a predicate
//! `(message, index) => boolean` called once per message, or (`append` only) `true` for every
//! message given.

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
/// are a body, which a predicate cannot be called on), sorted without repeats; `path` names
/// the option in errors.
pub(crate) fn read(
    value: &JsValue,
    messages: Option<&Array>,
    len: Option<usize>,
    path: &str,
    all: All,
) -> Result<Vec<u32>> {
    if value.is_undefined() || value.is_null() || value.as_bool() == Some(false) {
        return Ok(Vec::new());
    }
    let indices = if value.as_bool() == Some(true) && all == All::Allowed {
        (0..len.unwrap_or(0) as u32).collect()
    } else if let Some(predicate) = value.dyn_ref::<Function>() {
        let Some(messages) = messages else {
            return Err(Error::invalid_request(format!(
                "{path}: a predicate needs the messages as objects: give the indices"
            )));
        };
        chosen(predicate, messages, path)?
    } else if let Some(list) = host::list(value, path)? {
        indices(&list, path)?
    } else {
        let or_true = if all == All::Allowed { ", true" } else { "" };
        return Err(Error::invalid_request(format!(
            "{path}: expected an array of message indices or a function (message, index) => boolean{or_true}, got {}",
            describe(value)
        )));
    };
    match len {
        Some(len) => crate::pinned::checked(indices, len, path),
        None => crate::pinned::checked(indices, usize::MAX, path),
    }
}

/// The indices of `list`, each a whole number.
fn indices(list: &Array, path: &str) -> Result<Vec<u32>> {
    let read = |(k, value): (u32, JsValue)| {
        let n = value.as_f64().ok_or_else(|| {
            Error::invalid_request(format!("{path}[{k}]: expected a message index"))
        })?;
        let n = whole_number(n, &format!("{path}[{k}]")).map_err(Error::invalid_request)?;
        u32::try_from(n)
            .map_err(|_| Error::invalid_request(format!("{path}[{k}]: {n} is out of range")))
    };
    (0..list.length()).map(|k| read((k, list.get(k)))).collect()
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
