//! Rewriting tool results and tool-call arguments inside one host message, for clearing and
//! trimming (`crate::clearing`). Each format's reader module knows its own shapes and does the
//! rewrite next to its reader (`edit` in `canonical.rs`, `openai_chat.rs`, …; `Format::edit`
//! dispatches); this module holds the request and the helpers they share. The rewritten
//! message is a new value that stays a valid message of its format: ids, roles, types and
//! every other field are kept, so pairing is untouched.

use serde_json::{Map, Value};

/// What to change in a message.
pub struct Edit<'e> {
    /// The new text of the result of the call with this id, or `None` to keep it.
    pub result: &'e dyn Fn(&str) -> Option<String>,
    /// Whether the arguments of the call with this id are cleared (to an empty object).
    pub arguments: &'e dyn Fn(&str) -> bool,
}

/// The string at `key` of `object`.
pub(super) fn string<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    object.get(key).and_then(Value::as_str)
}

/// Calls `f` on every object in the array at `key` of `object`; whether any call changed one.
pub(super) fn each_block(
    object: &mut Map<String, Value>,
    key: &str,
    f: &mut dyn FnMut(&mut Map<String, Value>) -> bool,
) -> bool {
    let Some(Value::Array(items)) = object.get_mut(key) else {
        return false;
    };
    let mut changed = false;
    for item in items.iter_mut().filter_map(Value::as_object_mut) {
        changed |= f(item);
    }
    changed
}

/// Replaces `key` with `value` when the block's id (at `id_key`) is one `clears` names.
pub(super) fn replace_if(
    block: &mut Map<String, Value>,
    id_key: &str,
    clears: &dyn Fn(&str) -> bool,
    key: &str,
    value: Value,
) -> bool {
    let named = string(block, id_key).is_some_and(clears);
    if named {
        block.insert(key.to_owned(), value);
    }
    named
}
