//! Bindings to the few JavaScript globals the layer uses. Everything that touches a host
//! value is `catch`, so a hostile object becomes an error, never an unwinding exception.

use js_sys::Function;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// An `AbortSignal` (or anything shaped like one).
    #[wasm_bindgen(extends = js_sys::Object)]
    #[derive(Clone, Debug)]
    pub type AbortSignal;

    #[wasm_bindgen(method, getter, catch)]
    pub fn aborted(this: &AbortSignal) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, getter, catch)]
    pub fn reason(this: &AbortSignal) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = addEventListener)]
    pub fn add_event_listener(
        this: &AbortSignal,
        kind: &str,
        listener: &Function,
    ) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = removeEventListener)]
    pub fn remove_event_listener(
        this: &AbortSignal,
        kind: &str,
        listener: &Function,
    ) -> Result<(), JsValue>;

    /// The global `setTimeout` (not `window`'s: Node, workers and workerd have no window).
    #[wasm_bindgen(catch, js_name = setTimeout)]
    pub fn set_timeout(callback: &Function, ms: f64) -> Result<JsValue, JsValue>;

    /// The global `clearTimeout`.
    #[wasm_bindgen(catch, js_name = clearTimeout)]
    pub fn clear_timeout(id: &JsValue) -> Result<(), JsValue>;
}

impl AbortSignal {
    /// Whether the signal has fired (a throwing getter counts as not aborted).
    pub fn is_aborted(&self) -> bool {
        self.aborted().map(|v| v.is_truthy()).unwrap_or(false)
    }

    /// The abort reason, or `undefined`.
    pub fn reason_value(&self) -> JsValue {
        self.reason().unwrap_or(JsValue::UNDEFINED)
    }
}
