//! A `serde_json` value as compact JSON text: the one way the crate writes a value it holds.

use serde_json::Value;

/// `value` as compact JSON, as its `to_string()` writes it. `Display` would bring in
/// `serde_json`'s pretty printer too (for `{:#}`) and write through `core::fmt` (0.35 KB gzip).
pub(crate) fn text_of(value: &Value) -> String {
    // A value's keys are strings: writing it cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}
