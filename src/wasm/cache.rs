//! The per-message facts cache: a `WeakMap` from each host message object to its facts, one
//! map per estimator, so a message crosses into wasm once in its life rather than once per
//! call (`cacheFacts: false` turns this off).
//!
//! What it assumes: a message that is not the last of its request is not changed in place
//! afterwards. The last message is never served from the cache nor stored in it: a host may
//! still be writing into it (streaming an answer into the last message is common), and facts
//! stored while it was last would be served once it no longer is. It is read afresh on every
//! call, and cached the first time a call sees it with a message after it.
//!
//! The lookups and stores cross in batches, through the package's `cache.js`: a lookup of
//! many messages returns the texts it found joined, and a store hands over the texts of a few
//! hundred messages as one JSON array, which JavaScript parses and stores message by message.
//! Neither ever fails a call: a lookup that throws finds nothing, a store that throws stores
//! nothing (those messages are read again next time).

use std::cell::RefCell;

use js_sys::{Array, Object, WeakMap};
use wasm_bindgen::prelude::*;

use super::convert::{self, JsRequest};
use super::estimator::AnyEstimator;
use super::walk;
use crate::crossing::{CACHE_LOOKUP, CACHE_STORE};
use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts};
use crate::facts_text;
use crate::formats::Format;
use crate::ids::RecentCalls;
use crate::token::Estimator;

thread_local! {
    /// Estimator key → format name → `WeakMap<message, encoded facts>`.
    static MAPS: WeakMap = WeakMap::new();
    /// A key object per image cost of the native heuristic (host estimators are their own key).
    /// A list rather than a hash map: a program uses one or a few image costs, and a map of
    /// its own type would be one more copy of the hash table's code.
    static NATIVE_KEYS: RefCell<Vec<(u64, Object)>> = const { RefCell::new(Vec::new()) };
}

/// The facts of `request`, reusing cached message facts when `use_cache`.
pub(crate) fn request_facts(request: &JsRequest, use_cache: bool) -> Result<RequestFacts> {
    let mut facts = request.fixed_facts()?;
    facts.messages = all_messages_facts(request, use_cache)?;
    Ok(facts)
}

/// The facts of every message of `request`, reusing cached ones when `use_cache`.
pub(crate) fn all_messages_facts(
    request: &JsRequest,
    use_cache: bool,
) -> Result<Vec<MessageFacts>> {
    messages_facts_before(request, request.messages.length(), use_cache)
}

/// The facts of messages `0..count` of `request`, reusing cached ones when `use_cache`, in a
/// vector with room for the facts of every message: a caller that read the rest already
/// appends them without a second copy of the facts.
pub(crate) fn messages_facts_before(
    request: &JsRequest,
    count: u32,
    use_cache: bool,
) -> Result<Vec<MessageFacts>> {
    let room = request.messages.length().max(count) as usize;
    if use_cache {
        let all: Vec<u32> = (0..count).collect();
        facts_of(request, &all, true, room)
    } else {
        all_facts(request, count, room)
    }
}

/// The facts of the first `count` messages of `request`, none cached, read a chunk at a time
/// ([`crate::crossing::facts_chunk_end`])
/// into their places (a list of every index, and a flag per message, was 0.5 MB of wasm memory
/// at the peak of a cold plan of 100k messages), in a vector with room for `room`.
fn all_facts(request: &JsRequest, count: u32, room: usize) -> Result<Vec<MessageFacts>> {
    let mut facts: Vec<MessageFacts> = Vec::with_capacity(room);
    facts.resize_with(count as usize, MessageFacts::default);
    let mut recent = RecentCalls::default();
    let mut indices = Vec::new();
    let mut start = 0;
    while start < count {
        let end = crate::crossing::facts_chunk_end(start, count);
        indices.clear();
        indices.extend(start..end);
        let places = facts
            .get_mut(start as usize..end as usize)
            .unwrap_or(&mut []);
        read_missed(request, &indices, None, places, None, &mut recent)?;
        start = end;
    }
    Ok(facts)
}

/// The facts of messages `indices` of `request`, in their order, reusing cached ones when
/// `use_cache`.
pub(crate) fn messages_facts(
    request: &JsRequest,
    indices: &[u32],
    use_cache: bool,
) -> Result<Vec<MessageFacts>> {
    facts_of(request, indices, use_cache, indices.len())
}

/// [`messages_facts`] in a vector with room for `room`.
fn facts_of(
    request: &JsRequest,
    indices: &[u32],
    use_cache: bool,
    room: usize,
) -> Result<Vec<MessageFacts>> {
    // The facts go straight into their place: a long history's are held once, not copied.
    if !use_cache {
        // Nothing to fetch (each crossing costs as much as a message's facts), and every
        // message is read: its place is its index among `indices`, no list of them is made.
        let mut facts: Vec<MessageFacts> = Vec::with_capacity(room);
        facts.resize_with(indices.len(), MessageFacts::default);
        read_missed(
            request,
            indices,
            None,
            &mut facts,
            None,
            &mut RecentCalls::default(),
        )?;
        return Ok(facts);
    }
    let map = map_for(&request.estimator, request.format);
    let open = open_index(request);
    let mut facts = Vec::with_capacity(room);
    let mut missed = Missed::default();
    let mut ends = Vec::new();
    for chunk in indices.chunks(CACHE_LOOKUP) {
        let joined = lookup(request, &map, chunk, open, &mut ends);
        let texts = facts_text::split(&joined, &ends);
        for (&i, text) in chunk.iter().zip(texts) {
            let hit = text.and_then(facts_text::read);
            if hit.is_none() {
                missed.indices.push(i);
                missed.slots.push(facts.len());
            }
            // A message not read yet holds an empty place until `read_missed` fills it.
            facts.push(hit.unwrap_or_default());
        }
    }
    let mut stores = Stores::new(request, &map);
    let read = read_missed(
        request,
        &missed.indices,
        Some(&missed.slots),
        &mut facts,
        Some(&mut stores),
        &mut RecentCalls::default(),
    );
    // What was read is stored even when a later message failed the read.
    stores.flush();
    read?;
    Ok(facts)
}

/// Looks up messages `chunk` of `request` in `map` (all but `open`) in one crossing: the texts
/// found, joined, and in `ends` where each message's ends in them, [`facts_text::MISSING`] for
/// one not found.
fn lookup(
    request: &JsRequest,
    map: &WeakMap,
    chunk: &[u32],
    open: Option<u32>,
    ends: &mut Vec<u32>,
) -> String {
    ends.clear();
    ends.resize(chunk.len(), facts_text::MISSING);
    let Ok(package) = super::seam::package() else {
        return String::new();
    };
    // `cacheGet` writes into `ends` through wasm memory; nothing here touches it until it
    // returns.
    let args = [
        map.clone().into(),
        request.messages.clone().into(),
        wasm_bindgen::memory(),
        walk::address(chunk.as_ptr()),
        JsValue::from(chunk.len() as u32),
        JsValue::from(open.unwrap_or(u32::MAX)),
        walk::address(ends.as_mut_ptr()),
    ];
    let found = package
        .cache_get
        .apply(&JsValue::NULL, &args.iter().collect::<Array>());
    match found.ok().and_then(|joined| joined.as_string()) {
        Some(joined) => joined,
        None => {
            // Thrown (it never is, short of a stack overflow): nothing found.
            ends.fill(facts_text::MISSING);
            String::new()
        }
    }
}

/// Facts read and waiting to be stored, [`CACHE_STORE`] messages at a time: the messages, and
/// their texts as a JSON array ([`facts_text::push_json`]).
struct Stores<'a> {
    request: &'a JsRequest,
    map: &'a WeakMap,
    indices: Vec<u32>,
    texts: String,
}

impl<'a> Stores<'a> {
    fn new(request: &'a JsRequest, map: &'a WeakMap) -> Stores<'a> {
        Stores {
            request,
            map,
            indices: Vec::with_capacity(CACHE_STORE),
            texts: String::new(),
        }
    }

    /// Keeps the facts of message `i` to store, storing those kept once there are enough.
    fn add(&mut self, i: u32, facts: &MessageFacts) {
        self.texts
            .push(if self.indices.is_empty() { '[' } else { ',' });
        facts_text::push_json(&mut self.texts, facts);
        self.indices.push(i);
        if self.indices.len() >= CACHE_STORE {
            self.flush();
        }
    }

    /// Stores the facts kept, in one crossing.
    fn flush(&mut self) {
        if self.indices.is_empty() {
            return;
        }
        self.texts.push(']');
        if let Ok(package) = super::seam::package() {
            // `cacheSet` reads `indices` through wasm memory, before anything here changes it.
            let args = [
                self.map.clone().into(),
                self.request.messages.clone().into(),
                wasm_bindgen::memory(),
                walk::address(self.indices.as_ptr()),
                JsValue::from(self.indices.len() as u32),
                JsValue::from_str(&self.texts),
            ];
            // What it throws (never, short of a stack overflow) stores nothing.
            let _ = package
                .cache_set
                .apply(&JsValue::NULL, &args.iter().collect::<Array>());
        }
        self.indices.clear();
        self.texts.clear();
    }
}

/// The index of the message the cache never holds: the request's last, which may still change.
fn open_index(request: &JsRequest) -> Option<u32> {
    request.messages.length().checked_sub(1)
}

/// The messages not in the cache: their indices, and their places among the facts read.
#[derive(Default)]
struct Missed {
    indices: Vec<u32>,
    slots: Vec<usize>,
}

/// Reads (and caches, into `stores`) the facts of the messages `indices` into their places in
/// `messages` (`slots`, in the same order; `None`: the k-th goes to place k): together
/// (`walk::facts`) when there are enough of them, then one by one those the walker left out.
/// The results read share the ids of the calls in `recent` and read just before them.
fn read_missed(
    request: &JsRequest,
    indices: &[u32],
    slots: Option<&[usize]>,
    messages: &mut [MessageFacts],
    mut stores: Option<&mut Stores<'_>>,
    recent: &mut RecentCalls,
) -> Result<()> {
    let slot = |k: usize| match slots {
        Some(slots) => slots.get(k).copied(),
        None => Some(k),
    };
    // The last message is read but not stored (see the module's notes).
    let open = open_index(request);
    let mut store = |i: u32, read: &MessageFacts| {
        if let Some(stores) = stores.as_deref_mut().filter(|_| Some(i) != open) {
            stores.add(i, read);
        }
    };
    let mut walked = vec![false; indices.len()];
    if indices.len() >= walk::BULK {
        let estimator = &request.estimator;
        walk::facts(
            &request.messages,
            indices,
            0,
            request.format,
            estimator,
            &mut |k, mut read| {
                let (Some(&i), Some(slot)) = (indices.get(k), slot(k)) else {
                    return;
                };
                recent.note(&read.tool_call_ids, &mut read.tool_result_ids);
                store(i, &read);
                if let (Some(place), Some(done)) = (messages.get_mut(slot), walked.get_mut(k)) {
                    *place = read;
                    *done = true;
                }
            },
        )?;
    }
    let left = indices.iter().enumerate().zip(&walked);
    for ((k, &i), _) in left.filter(|(_, done)| !**done) {
        let message = request.messages.get(i);
        let format = request.format;
        let mut read = convert::message_facts(&message, i as usize, format, &request.estimator)?;
        recent.note(&read.tool_call_ids, &mut read.tool_result_ids);
        store(i, &read);
        if let Some(place) = slot(k).and_then(|slot| messages.get_mut(slot)) {
            *place = read;
        }
    }
    Ok(())
}

/// The cache of one estimator and format (facts depend on both).
fn map_for(estimator: &AnyEstimator, format: Format) -> WeakMap {
    let key: Object = match (estimator.host_object(), estimator) {
        (Some(object), _) => object.clone().unchecked_into(),
        (None, native) => NATIVE_KEYS.with(|keys| {
            let image_tokens = native.image_tokens();
            let mut keys = keys.borrow_mut();
            match keys.iter().find(|(tokens, _)| *tokens == image_tokens) {
                Some((_, key)) => key.clone(),
                None => {
                    let key = Object::new();
                    keys.push((image_tokens, key.clone()));
                    key
                }
            }
        }),
    };
    MAPS.with(|maps| {
        let existing = maps.get(&key);
        let by_format: js_sys::Map = if existing.is_object() {
            existing.unchecked_into()
        } else {
            let fresh = js_sys::Map::new();
            maps.set(&key, &fresh);
            fresh
        };
        let name = JsValue::from_str(format.name());
        let existing = by_format.get(&name);
        if existing.is_object() {
            return existing.unchecked_into();
        }
        let fresh = WeakMap::new();
        by_format.set(&name, &fresh);
        fresh
    })
}
