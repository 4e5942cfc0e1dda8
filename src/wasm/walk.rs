//! The cold objects path: the package's JavaScript walker (`pkg-template/host/walk.js`, registered at
//! setup) lays out many host messages at once as a tape of nodes over one UTF-8 buffer in wasm
//! memory, and the format readers read them from it as they read a scanned body. No JSON is
//! written or parsed on the way. A message the walker is not sure of is read through
//! `JSON.stringify` instead, one at a time.

use std::borrow::Cow;
use std::cell::RefCell;

use context_compaction_scan::{self as tape, Tape, Val};
use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::host;
use super::stringify;
use crate::clearing::Finder;
use crate::error::Result;
use crate::facts::MessageFacts;
use crate::formats::{Format, MessageUsage, Path};
use crate::summarized::Messages;
use crate::token::Estimator;

thread_local! {
    /// The buffers of the last walk, kept for the next one: wasm memory never shrinks, so
    /// keeping them costs nothing, and a new walk does not zero them again.
    static BUFFERS: RefCell<Buffers> = const { RefCell::new(Buffers::new()) };
}

// The buffers' sizes and how they grow are `crate::crossing`'s.
pub(crate) use crate::crossing::BULK;

/// The facts of `messages[indices[k]]`, counted by `estimator`, handed to `read` with `k` as
/// each is read; a message the walker left out is not handed over (the caller reads those one
/// by one). Errors name `messages[base + i]`.
pub(crate) fn facts(
    messages: &Array,
    indices: &[u32],
    base: usize,
    format: Format,
    estimator: &dyn Estimator,
    read: &mut dyn FnMut(usize, MessageFacts),
) -> Result<()> {
    // `each` goes through `indices` in order, once each.
    let mut k = 0;
    each(messages, indices, base, format, &mut |i, message| {
        if let Some(message) = message {
            read(k, format.facts(message, Path::message(i), estimator)?);
        }
        k += 1;
        Ok(())
    })
}

/// Host messages as the core reads what a plan summarizes of them (`crate::summarized`).
impl Messages for Array {
    fn count(&self) -> usize {
        self.length() as usize
    }

    fn each(
        &self,
        format: Format,
        indices: &[u32],
        read: &mut dyn FnMut(usize, Option<Val>) -> Result<()>,
    ) -> Result<()> {
        each(self, indices, 0, format, read)
    }

    fn json(&self, i: usize, path: &str) -> Result<Cow<'_, str>> {
        stringify::json_text(&self.get(i as u32), path).map(Cow::Owned)
    }
}

/// Reads messages `indices` into `finder` (what clearing may replace), in order.
pub(crate) fn find(
    messages: &Array,
    indices: &[u32],
    format: Format,
    finder: &mut Finder,
) -> Result<()> {
    each(
        messages,
        indices,
        0,
        format,
        &mut |i, message| match message {
            Some(message) => finder.read(format, i, message),
            None => {
                let path = text!("messages[", i, "]");
                let text = stringify::json_text(&messages.get(i as u32), &path)?;
                finder.read_json(format, i, &text)
            }
        },
    )
}

/// The usage (see [`Format::usage_json`]) on each of messages `indices`, in their order: the
/// messages laid out with the key that holds it, so that nothing else is read. Errors name
/// `messages[base + i]`.
pub(crate) fn usages(
    messages: &Array,
    indices: &[u32],
    base: usize,
    format: Format,
) -> Result<Vec<Option<MessageUsage>>> {
    let mut out = Vec::with_capacity(indices.len());
    let extra = [format.usage_key()];
    each_with(
        messages,
        indices,
        base,
        (format, &extra),
        &mut |i, message| {
            out.push(match message {
                Some(message) => format.usage_of(message, Path::message(i))?,
                None => {
                    let path = text!("messages[", i, "]");
                    let message = messages.get(i.saturating_sub(base) as u32);
                    format.usage_json(&stringify::json_text(&message, &path)?, &path)?
                }
            });
            Ok(())
        },
    )?;
    Ok(out)
}

/// Calls `each(base + index, message)` for each of `indices` in order, with the message laid
/// out (only the keys `format`'s reader reads, at its top level, and where its pin marker is), or `None` for one to be read
/// through `JSON.stringify`.
fn each(
    messages: &Array,
    indices: &[u32],
    base: usize,
    format: Format,
    each: &mut dyn FnMut(usize, Option<Val>) -> Result<()>,
) -> Result<()> {
    // The key a marker that pins the message sits under, where the reader reads no other.
    each_with(messages, indices, base, (format, format.pin_root()), each)
}

/// [`each`] with `extra` keys laid out besides the format's own.
fn each_with(
    messages: &Array,
    indices: &[u32],
    base: usize,
    (format, extra): (Format, &[&str]),
    each: &mut dyn FnMut(usize, Option<Val>) -> Result<()>,
) -> Result<()> {
    let walker = walker()?;
    let keys = match format.keys() {
        Some(keys) => keys
            .iter()
            .chain(extra)
            .map(|k| JsValue::from_str(k))
            .collect::<Array>()
            .into(),
        None => JsValue::NULL,
    };
    let mut buffers = BUFFERS.with(|slot| std::mem::take(&mut *slot.borrow_mut()));
    buffers.reserve(crate::crossing::WALK_FIRST.0, crate::crossing::WALK_FIRST.1);
    let walk = Walk {
        walker: &walker,
        messages,
        indices,
        base,
        keys,
        args: Array::new(),
    };
    let read = walk.all(&mut buffers, each);
    if crate::crossing::keeps_walk_buffers(buffers.bytes.len()) {
        BUFFERS.with(|slot| *slot.borrow_mut() = buffers);
    }
    read
}

/// The walker, or an error when the glue is used without an entry file.
fn walker() -> Result<Function> {
    Ok(super::seam::package()?.walk.clone())
}

/// What the walker writes into (its nodes are read where it wrote them).
struct Buffers {
    bytes: Vec<u8>,
    words: Vec<u32>,
    /// Where each message laid out starts among the nodes.
    roots: Vec<Option<usize>>,
}

impl Buffers {
    const fn new() -> Buffers {
        Buffers {
            bytes: Vec::new(),
            words: Vec::new(),
            roots: Vec::new(),
        }
    }

    fn reserve(&mut self, bytes: usize, words: usize) {
        if self.bytes.len() < bytes {
            self.bytes.resize(bytes, 0);
        }
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
    }
}

impl Default for Buffers {
    fn default() -> Buffers {
        Buffers::new()
    }
}

/// One walk over `messages[indices[k]]`.
struct Walk<'a> {
    walker: &'a Function,
    messages: &'a Array,
    indices: &'a [u32],
    base: usize,
    /// The top-level keys to lay out (`null` for all).
    keys: JsValue,
    /// The walker's arguments, one array for every call (a long history takes hundreds).
    args: Array,
}

impl Walk<'_> {
    /// Walks all of the messages, growing the buffers as needed.
    fn all(
        &self,
        buffers: &mut Buffers,
        each: &mut dyn FnMut(usize, Option<Val>) -> Result<()>,
    ) -> Result<()> {
        let mut k = 0;
        while let Some(&index) = self.indices.get(k) {
            let count = self.call(k, buffers)?;
            let (bytes, words) = (buffers.bytes.len(), buffers.words.len());
            if count > 0 {
                self.read(k, count, buffers, each)?;
                k += count;
            }
            match crate::crossing::after_walk(count, bytes, words) {
                crate::crossing::AfterWalk::Stringify => {
                    // One message larger than any buffer.
                    each(self.base + index as usize, None)?;
                    k += 1;
                }
                crate::crossing::AfterWalk::Grow(bytes, words) => buffers.reserve(bytes, words),
            }
        }
        Ok(())
    }

    /// One call of the walker from message `k` on: how many messages it laid out.
    fn call(&self, k: usize, buffers: &mut Buffers) -> Result<usize> {
        // The walker writes into the buffers through wasm memory; nothing here touches them
        // until it returns.
        let args = [
            self.messages.clone().into(),
            wasm_bindgen::memory(),
            address(self.indices.as_ptr()),
            JsValue::from(self.indices.len() as u32),
            JsValue::from(k as u32),
            address(buffers.bytes.as_mut_ptr()),
            JsValue::from(buffers.bytes.len() as u32),
            address(buffers.words.as_mut_ptr()),
            JsValue::from(buffers.words.len() as u32),
            self.keys.clone(),
        ];
        // Set in place: the package's own array, which runs no caller code.
        for (at, arg) in args.iter().enumerate() {
            self.args.set(at as u32, arg.clone());
        }
        let args = &self.args;
        // Anything the walker throws (it catches the caller's exceptions itself) is caught at
        // this call too: nothing unwinds through a wasm frame.
        let walked = self
            .walker
            .apply(&JsValue::NULL, args)
            .map_err(|thrown| host::fault(&thrown))?;
        match walked.as_f64() {
            Some(count) => Ok(count as usize),
            // A `Fault` naming the message that threw (its index in `messages`), the
            // caller's exception as its cause.
            None => Err(host::fault_at(&walked, "messages", self.base)),
        }
    }

    /// Reads the `count` messages laid out from message `k` on.
    fn read(
        &self,
        k: usize,
        count: usize,
        buffers: &mut Buffers,
        each: &mut dyn FnMut(usize, Option<Val>) -> Result<()>,
    ) -> Result<()> {
        let Buffers {
            bytes,
            words,
            roots,
        } = buffers;
        // Not a tape (never from the package's walker): each message the slow way.
        let tape = laid_out(bytes, words, roots).unwrap_or_else(|| {
            roots.clear();
            Tape::new("", &[])
        });
        let mut roots = roots.iter();
        for index in self.indices.iter().skip(k).take(count) {
            let message = roots.next().copied().flatten().map(|root| tape.at(root));
            each(self.base + *index as usize, message)?;
        }
        Ok(())
    }
}

/// The tape the walker wrote into `words` and `bytes` (its text and its nodes, checked), and the
/// root of each message on it in `roots` (`None` for one it skipped); `None` when it is not a
/// well-formed tape.
fn laid_out<'a>(
    bytes: &'a [u8],
    words: &'a [u32],
    roots: &mut Vec<Option<usize>>,
) -> Option<Tape<'a>> {
    let (&count, &used) = (words.first()?, words.get(1)?);
    let text = tape::utf8(bytes.get(..used as usize)?)?;
    let (nodes, _) = words.get(4..4 + 4 * count as usize)?.as_chunks::<4>();
    tape::from_words(nodes, text.len(), roots)?;
    Some(Tape::new(text, nodes))
}

pub(super) fn address<T>(pointer: *const T) -> JsValue {
    // wasm32 addresses are 32-bit offsets into the module's memory.
    JsValue::from(pointer as usize as u32)
}
