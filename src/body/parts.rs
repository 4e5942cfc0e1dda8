//! Pieces the direct body readers share: optional strings, required texts and content parts
//! read as the format adapters' `Reader` reads them.

use super::count::Counter;
use crate::token::Estimator;
use context_compaction_scan::{Kind, Val};

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

/// The tokens of a content that is a string or an array of parts, as `Reader::content` reads
/// it: text parts (their `text`, else their `refusal`) and attachments (counted as images).
pub(super) fn parts(
    value: Option<Val>,
    texts: &[&str],
    attachments: &[&str],
    counter: &Counter,
) -> Option<u64> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Some(0);
    };
    match value.kind() {
        Kind::String => Some(counter.text(value)),
        Kind::Array => {
            let mut tokens = 0;
            for part in value.children() {
                let kind = part.field("type")?;
                if texts.iter().any(|t| kind.is(t)) {
                    let [text, refusal] = part.fields(["text", "refusal"]);
                    let (text, refusal) = (optional_string(text)?, optional_string(refusal)?);
                    tokens += text.or(refusal).map_or(0, |text| counter.text(text));
                } else if attachments.iter().any(|t| kind.is(t)) {
                    tokens += counter.heuristic.image_tokens();
                } else {
                    return None;
                }
            }
            Some(tokens)
        }
        _ => None,
    }
}
