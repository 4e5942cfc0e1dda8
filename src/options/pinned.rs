//! The `pinned` option of a request (and of a conversation's `append`) read into the message
//! indices the core pins ([`crate::pinned`]): an array of indices, a predicate
//! `(message, index) => boolean` the host calls once per message (not for a body), or
//! (`append` only) `true` for every message given.

use super::{Got, Host, describe};
use crate::error::{Error, Result, whole_number};

/// The indices `value` pins among `len` messages (`None`: a body's, checked once it is read),
/// sorted without repeats; `path` names the option in errors. `all`: whether `true` (every
/// message) is allowed. `choose` calls a predicate on the messages (not for a body, which a
/// predicate cannot be called on).
pub fn pinned<M, H: Host<M>>(
    value: &H,
    len: Option<usize>,
    path: &str,
    all: bool,
    choose: impl FnOnce(&H) -> Result<Vec<u32>>,
) -> Result<Vec<u32>> {
    let indices = match value.got() {
        Got::Bool(false) | Got::Absent => return Ok(Vec::new()),
        // The preview module reads pins from the messages only (a UIMessage's metadata).
        _ if !cfg!(feature = "plan-api") => return Err(super::not_in_build(path)),
        Got::Bool(true) if all => (0..len.unwrap_or(0) as u32).collect(),
        // A body's `len` is not known yet.
        Got::Function if len.is_some() => choose(value)?,
        _ => match value.items(path)? {
            Some(items) => indices(&items, path)?,
            None => {
                return Err(Error::invalid_request(text!(
                    path,
                    ": expected an array of message indices or (not with a body) a function (message, index) => boolean, got ",
                    describe(value)
                )));
            }
        },
    };
    match len {
        Some(len) => crate::pinned::checked(indices, len, path),
        None => Ok(indices),
    }
}

/// The indices of `items`, each a whole number.
fn indices<M, H: Host<M>>(items: &[H], path: &str) -> Result<Vec<u32>> {
    let mut out = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let n = match item.got() {
            Got::Number(n) => n,
            _ => f64::NAN,
        };
        let place = text!(path, "[", k, "]");
        let n = whole_number(n, &place).map_err(Error::invalid_request)?;
        let n =
            u32::try_from(n).map_err(|_| Error::invalid_request(text!(place, ": out of range")))?;
        out.push(n);
    }
    Ok(out)
}
