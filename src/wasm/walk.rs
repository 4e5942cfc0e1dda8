//! The cold objects path for messages of every format with the default heuristic: the
//! package's JavaScript walker (`pkg-template/walk.js`, registered at setup) copies each
//! text-bearing string once into buffers here, and [`crate::body::walked`] reads the facts from
//! them. This avoids building and parsing JSON per message (or for the whole history) on the
//! way in.

use std::cell::RefCell;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::estimator::AnyEstimator;
use super::host;
use crate::body::walked;
use crate::error::{Error, Result};
use crate::facts::MessageFacts;
use crate::formats::Format;
use crate::token::{Estimator, Heuristic};

thread_local! {
    static WALKER: RefCell<Option<Function>> = const { RefCell::new(None) };
    /// The byte and op buffers of the last walk, kept for the next one: wasm memory never
    /// shrinks, so keeping them costs nothing, and a new walk does not zero them again.
    static BUFFERS: RefCell<(Vec<u8>, Vec<u32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// Registers the package's walker; the entry files call it once after init.
#[wasm_bindgen(js_name = __registerWalker)]
pub fn register_walker(walker: Function) {
    WALKER.with(|slot| *slot.borrow_mut() = Some(walker));
}

// Buffer sizes of the first walk: small, so that a short history does not pay for a large one.
const FIRST_BYTES: usize = 64 << 10;
const FIRST_OPS: usize = 1 << 12;
// They double while they fill up, to this: a few MB of text at a time keeps memory flat for
// long histories.
const BYTES: usize = 4 << 20;
// Past this, a message is left to the general reader.
const MAX_BYTES: usize = 1 << 30;

/// From this many messages to read, they are read together rather than one crossing and one
/// parse each.
pub const BULK: usize = 32;

/// The facts of `messages[i]` for each of `indices` read together, where the default heuristic
/// allows; `None` (or nothing) for those to be read one by one, which also gives any error its
/// own index. An error when the walker is not registered, or when reading a message threw
/// (named `messages[first + i]`, the caller's exception as its cause).
pub fn read(
    messages: &Array,
    indices: &[u32],
    first: usize,
    format: Format,
    estimator: &AnyEstimator,
) -> Result<Vec<Option<MessageFacts>>> {
    // The formats the walker reads (`format` in pkg-template/walk.js).
    let code = match format {
        Format::Canonical => 0,
        Format::OpenAIChat => 1,
        Format::Anthropic => 2,
        Format::AiSdk => 3,
        Format::OpenAIResponses => 4,
    };
    Ok(match estimator.as_heuristic() {
        Some(heuristic) => {
            let walk = Walk {
                walker: walker()?,
                format: code,
                first,
            };
            facts(&walk, messages, indices, heuristic)?.unwrap_or_default()
        }
        None => Vec::new(),
    })
}

/// The walker, the format it reads messages in, and the index of `messages[0]` in errors.
struct Walk {
    walker: Function,
    format: u32,
    first: usize,
}

/// The walker, or an error when the glue is used without an entry file (every entry registers
/// it): going on without it would be silently slow.
fn walker() -> Result<Function> {
    WALKER.with(|slot| slot.borrow().clone()).ok_or_else(|| {
        Error::invalid_config(
            "the package's walker is not registered: import context-compaction through one of its entries".to_owned(),
        )
    })
}

/// The facts of `messages[i]` for each of `indices`, `None` for those to be read the general
/// way; `None` as a whole when the walker gave up.
fn facts(
    walk: &Walk,
    messages: &Array,
    indices: &[u32],
    heuristic: Heuristic,
) -> Result<Option<Vec<Option<MessageFacts>>>> {
    let (mut bytes, mut ops) = BUFFERS.with(|slot| std::mem::take(&mut *slot.borrow_mut()));
    if bytes.len() < FIRST_BYTES || ops.len() < FIRST_OPS {
        bytes.resize(FIRST_BYTES, 0);
        ops.resize(FIRST_OPS, 0);
    }
    let out = read_all(walk, messages, indices, heuristic, &mut bytes, &mut ops);
    // Only buffers of the usual size are kept (a huge message's are let go).
    if bytes.len() <= BYTES {
        BUFFERS.with(|slot| *slot.borrow_mut() = (bytes, ops));
    }
    out
}

/// Walks all of `indices` with the given buffers, growing them as needed.
fn read_all(
    walk: &Walk,
    messages: &Array,
    indices: &[u32],
    heuristic: Heuristic,
    bytes: &mut Vec<u8>,
    ops: &mut Vec<u32>,
) -> Result<Option<Vec<Option<MessageFacts>>>> {
    let mut out = Vec::with_capacity(indices.len());
    while out.len() < indices.len() {
        let count = walk_from(walk, messages, indices, out.len(), bytes, ops)?;
        if count > 0 {
            // `ops[0]` holds how many ops follow it.
            let used = ops.first().map_or(0, |&n| n as usize);
            let read = ops
                .get(1..1 + used)
                .and_then(|ops| walked::facts(ops, bytes, count, heuristic));
            let Some(read) = read else { return Ok(None) };
            out.extend(read);
        }
        // Nothing fit (one large message), or the buffers filled up on a long history.
        let limit = if count == 0 { MAX_BYTES } else { BYTES };
        if count == 0 && bytes.len() >= limit {
            return Ok(None);
        }
        if out.len() < indices.len() && bytes.len() < limit {
            bytes.resize(bytes.len() * 2, 0);
            ops.resize(ops.len() * 2, 0);
        }
    }
    Ok((out.len() == indices.len()).then_some(out))
}

/// One call of the walker from message `from` on: how many messages it laid out.
fn walk_from(
    walk: &Walk,
    messages: &Array,
    indices: &[u32],
    from: usize,
    bytes: &mut [u8],
    ops: &mut [u32],
) -> Result<usize> {
    // The walker writes into `bytes` and `ops` through wasm memory; nothing here touches them
    // until it returns.
    let args: Array = [
        messages.clone().into(),
        wasm_bindgen::memory(),
        address(indices.as_ptr()),
        JsValue::from(indices.len() as u32),
        JsValue::from(from as u32),
        address(bytes.as_mut_ptr()),
        JsValue::from(bytes.len() as u32),
        address(ops.as_mut_ptr()),
        JsValue::from(ops.len() as u32),
        JsValue::from(walk.format),
    ]
    .iter()
    .collect();
    let count = walk
        .walker
        .apply(&JsValue::NULL, &args)
        .map_err(|thrown| host::fault_at(&thrown, "messages", walk.first))?;
    // The walker returns how many it laid out, at most the rest of `indices`.
    Ok(count
        .as_f64()
        .map_or(0, |n| n as usize)
        .min(indices.len() - from))
}

fn address<T>(pointer: *const T) -> JsValue {
    // wasm32 addresses are 32-bit offsets into the module's memory.
    JsValue::from(pointer as usize as u32)
}
