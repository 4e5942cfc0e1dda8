//! The context of one apply call, handed to every host callback and retry wait.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::convert::object;
use super::js::AbortSignal;

/// What one apply call hands to host callbacks: the caller's signal and the host's own
/// message objects for an application summarizer.
pub(crate) struct CallContext {
    pub signal: Option<AbortSignal>,
    pub history: Array,
    pub prefix: Array,
    /// The `id` of the message a summary's kept suffix starts in (or `null`), for the draft
    /// `beforeCommit` is shown.
    pub kept_id: JsValue,
}

impl CallContext {
    /// The `{ signal }` options object handed to a host callback.
    pub(crate) fn options(&self) -> JsValue {
        object(&[(
            "signal",
            self.signal
                .clone()
                .map_or(JsValue::UNDEFINED, JsValue::from),
        )])
    }

    /// Whether the caller's signal has fired.
    pub(crate) fn aborted(&self) -> bool {
        self.signal.as_ref().is_some_and(AbortSignal::is_aborted)
    }
}
