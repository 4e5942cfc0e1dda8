//! The `pinned` option of a request (and of a conversation's `append`): the core reads it
//! ([`crate::options::pinned`]); a predicate `(message, index) => boolean` is called here, once
//! per message.

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::error::{HostError, describe};
use crate::error::{Error, Result};

/// Whether `true` (every message) is allowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum All {
    Allowed,
    Refused,
}

/// The indices `value` pins among `messages` ([`crate::options::pinned`]; `None` when they
/// are a body, not read yet).
pub(crate) fn read(
    value: &JsValue,
    messages: Option<&Array>,
    path: &str,
    all: All,
) -> Result<Vec<u32>> {
    let len = messages.map(|m| m.length() as usize);
    let choose = |predicate: &JsValue| match messages {
        Some(messages) => chosen(predicate.unchecked_ref(), messages, path),
        None => Ok(Vec::new()),
    };
    crate::options::pinned(value, len, path, all == All::Allowed, choose)
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
                    message: text!(
                        path,
                        ": the predicate threw on messages[",
                        i,
                        "]: ",
                        describe(&thrown)
                    ),
                    source: Some(Box::new(HostError::new(thrown))),
                });
            }
        }
    }
    Ok(out)
}
