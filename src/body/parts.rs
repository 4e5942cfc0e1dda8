//! Pieces the direct body readers share: a message's framing, content blocks, optional strings
//! and required texts, read as the format adapters' `Reader` reads them.

use super::count::Counter;
use crate::facts::{MessageFacts, Role};
use crate::token::Estimator;
use context_compaction_scan::{Kind, Val};

/// The facts of a message of one unit so far: its framing, its role and whether a turn starts
/// there.
pub(super) fn framed(counter: &Counter, role: Role, starts_turn: bool) -> MessageFacts {
    MessageFacts {
        tokens: counter.heuristic.framing_tokens(),
        role,
        starts_turn,
        tool_call_ids: Vec::new(),
        tool_result_ids: Vec::new(),
    }
}

/// The tokens of a content that is a string, or an array of blocks each counted by
/// `block(block, its type)`. Missing or `null` content counts nothing; any other content, a
/// block without a type, or `None` from `block` leaves the message to the general reader.
pub(super) fn blocks(
    value: Option<Val>,
    counter: &Counter,
    block: &mut dyn FnMut(Val, Val) -> Option<u64>,
) -> Option<u64> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Some(0);
    };
    match value.kind() {
        Kind::String => Some(counter.text(value)),
        Kind::Array => {
            let mut tokens = 0;
            for item in value.children() {
                tokens += block(item, item.field("type")?)?;
            }
            Some(tokens)
        }
        _ => None,
    }
}

/// The tokens of content parts as `Reader::content` reads them: text parts (their `text`,
/// else their `refusal`) and attachments (counted as images).
pub(super) fn parts(
    value: Option<Val>,
    texts: &[&str],
    attachments: &[&str],
    counter: &Counter,
) -> Option<u64> {
    blocks(value, counter, &mut |part, kind| {
        if texts.iter().any(|t| kind.is(t)) {
            let [text, refusal] = part.fields(["text", "refusal"]);
            let (text, refusal) = (optional_string(text)?, optional_string(refusal)?);
            Some(text.or(refusal).map_or(0, |text| counter.text(text)))
        } else if attachments.iter().any(|t| kind.is(t)) {
            Some(counter.heuristic.image_tokens())
        } else {
            None
        }
    })
}

/// The tokens of the string at `key`, which must be there.
pub(super) fn required_text(block: Val, key: &str, counter: &Counter) -> Option<u64> {
    let value = block.field(key)?;
    (value.kind() == Kind::String).then(|| counter.text(value))
}

/// `Some(None)` when `value` is missing or `null`, `Some(Some(_))` for a string, `None` (read
/// it the general way, which rejects it) for anything else.
pub(super) fn optional_string(value: Option<Val>) -> Option<Option<Val>> {
    match value.filter(|v| !v.is_null()) {
        None => Some(None),
        Some(v) if v.kind() == Kind::String => Some(Some(v)),
        Some(_) => None,
    }
}

/// Checks that a direct reader reads each of `messages` (JSON texts) and gives the facts the
/// format adapter and `MessageFacts::of_host` give.
#[cfg(test)]
pub(super) fn assert_read_directly(
    format: crate::formats::Format,
    read: fn(Val, &Counter) -> Option<MessageFacts>,
    messages: &[&str],
) {
    use crate::token::Heuristic;
    let counter = Counter {
        heuristic: Heuristic::new(),
    };
    for text in messages {
        let mut nodes = Vec::new();
        context_compaction_scan::value(text.as_bytes(), 0, &mut nodes).unwrap();
        let direct = read(Val::root(text, &nodes), &counter);
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let host = format.read(&value, "m").unwrap();
        let general = MessageFacts::of_host(&host, &Heuristic::new()).unwrap();
        assert_eq!(direct, Some(general), "{text}");
    }
}
