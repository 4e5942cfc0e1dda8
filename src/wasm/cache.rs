//! The per-message facts cache: a `WeakMap` from each host message object to its facts, one
//! map per estimator, so a message crosses into wasm once in its life rather than once per
//! call. Messages are treated as immutable (`cacheFacts: false` turns this off).

use std::cell::RefCell;
use std::collections::HashMap;

use js_sys::{Array, Object, WeakMap};
use wasm_bindgen::prelude::*;

use super::convert::{self, JsRequest};
use super::estimator::AnyEstimator;
use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts, Role, estimator_failed};
use crate::parse;
use crate::token::Estimator;

thread_local! {
    /// Estimator key → `WeakMap<message, encoded facts>`.
    static MAPS: WeakMap = WeakMap::new();
    /// A key object per image cost of the native heuristic (host estimators are their own key).
    static NATIVE_KEYS: RefCell<HashMap<u64, Object>> = RefCell::new(HashMap::new());
}

/// The facts of `request`, reusing cached message facts when `use_cache`.
pub fn request_facts(request: &JsRequest, use_cache: bool) -> Result<RequestFacts> {
    let estimator = &request.estimator;
    let mut facts = RequestFacts::fixed(
        &request.system_prompt,
        &request.summary,
        &request.tools,
        estimator,
    )?;
    let map = if use_cache {
        Some(map_for(estimator))
    } else {
        None
    };
    let count = request.messages.length();
    facts.messages.reserve(count as usize);
    for i in 0..count {
        facts.messages.push(message_facts(
            &request.messages,
            i,
            estimator,
            map.as_ref(),
        )?);
    }
    Ok(facts)
}

fn message_facts(
    messages: &Array,
    i: u32,
    estimator: &AnyEstimator,
    map: Option<&WeakMap>,
) -> Result<MessageFacts> {
    let value = messages.get(i);
    // Only objects can be WeakMap keys (anything else fails to parse below anyway).
    let map = map.filter(|_| value.is_object());
    if let Some(hit) = map.and_then(|m| decode(&m.get(value.unchecked_ref()))) {
        return Ok(hit);
    }
    let path = format!("messages[{i}]");
    let message = parse::message(&convert::json(&value, &path)?, &path)?;
    let facts = MessageFacts::of(&message, estimator).map_err(|e| estimator_failed(&path, e))?;
    if let Some(map) = map {
        map.set(value.unchecked_ref(), &encode(&facts));
    }
    Ok(facts)
}

fn map_for(estimator: &AnyEstimator) -> WeakMap {
    let key: Object = match (estimator.host_object(), estimator) {
        (Some(object), _) => object.clone().unchecked_into(),
        (None, native) => NATIVE_KEYS.with(|keys| {
            keys.borrow_mut()
                .entry(native.image_tokens())
                .or_insert_with(Object::new)
                .clone()
        }),
    };
    MAPS.with(|maps| {
        let existing = maps.get(&key);
        if existing.is_object() {
            return existing.unchecked_into();
        }
        let fresh = WeakMap::new();
        maps.set(&key, &fresh);
        fresh
    })
}

/// `[tokens, role, toolResultId | null, ...toolCallIds]`.
fn encode(facts: &MessageFacts) -> JsValue {
    let role = match facts.role {
        Role::User => 0,
        Role::Assistant => 1,
        Role::ToolResult => 2,
    };
    let out = Array::new();
    out.push(&JsValue::from_f64(facts.tokens as f64));
    out.push(&JsValue::from_f64(role as f64));
    out.push(
        &facts
            .tool_result_id
            .as_deref()
            .map_or(JsValue::NULL, JsValue::from_str),
    );
    for id in &facts.tool_call_ids {
        out.push(&JsValue::from_str(id));
    }
    out.into()
}

fn decode(value: &JsValue) -> Option<MessageFacts> {
    if !Array::is_array(value) {
        return None;
    }
    let list: &Array = value.unchecked_ref();
    let tokens = list.get(0).as_f64()? as u64;
    let role = match list.get(1).as_f64()? as u8 {
        0 => Role::User,
        1 => Role::Assistant,
        _ => Role::ToolResult,
    };
    let tool_call_ids = (3..list.length())
        .filter_map(|i| list.get(i).as_string())
        .collect();
    Some(MessageFacts {
        tokens,
        role,
        starts_turn: role == Role::User,
        tool_call_ids,
        tool_result_id: list.get(2).as_string(),
    })
}
