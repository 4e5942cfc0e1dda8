//! Errors across the boundary: core errors become `CompactionError`, host throws become
//! [`HostError`] so the original value can be handed back as `cause`.

use std::fmt;

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::thrown::Thrown;

/// A value a host callback threw or rejected with, kept as it is.
pub(crate) struct HostError {
    /// The thrown value (same identity as the host's).
    pub value: JsValue,
    message: String,
}

impl HostError {
    /// Wraps a thrown value, describing it without calling anything that could throw again.
    pub(crate) fn new(value: JsValue) -> Self {
        let message = describe(&value);
        HostError { value, message }
    }
}

impl fmt::Debug for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `write_str` alone: `write!` would bring `core::fmt` back (`crate::text`).
        f.write_str("HostError(")?;
        f.write_str(&self.message)?;
        f.write_str(")")
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HostError {}

/// An error the module words itself about a host callback's result (a `String` boxed as an
/// error would do, but its derived `Debug` escapes the text: `{:?}` of a string brings char
/// escaping and its Unicode tables into the module, where nothing prints it).
pub(crate) struct Failure(pub String);

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Failure(")?;
        f.write_str(&self.0)?;
        f.write_str(")")
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

/// The words of a host callback's error in a message (`crate::text`, without `core::fmt`): a
/// [`HostError`]'s or a [`Failure`]'s, the only errors the module boxes besides the core's own.
pub(crate) fn push_host_error(error: &(dyn std::error::Error + 'static), text: &mut String) {
    if let Some(host) = error.downcast_ref::<HostError>() {
        text.push_str(&host.message);
    } else if let Some(failure) = error.downcast_ref::<Failure>() {
        text.push_str(&failure.0);
    } else {
        // No other kind is boxed today; a new one still says something.
        text.push_str("an error of another kind");
    }
}

/// A short description of a thrown value ([`crate::options::describe`]).
pub(crate) fn describe(value: &JsValue) -> String {
    crate::options::describe(value)
}

/// What a thrown value says about itself ([`crate::options::thrown`]).
pub(crate) fn thrown(value: &JsValue) -> Thrown {
    crate::options::thrown(value)
}

/// The host value behind an error, if any (first [`HostError`] in the source chain).
fn host_cause(error: &Error) -> Option<JsValue> {
    let mut source = std::error::Error::source(error);
    while let Some(current) = source {
        if let Some(host) = current.downcast_ref::<HostError>() {
            return Some(host.value.clone());
        }
        source = current.source();
    }
    None
}

/// The one conversion of a core error for JavaScript: `?` in a binding that returns
/// `Result<_, JsValue>` throws the `CompactionError` of [`to_js`].
impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        to_js(&error)
    }
}

/// A `CompactionError` (or, before registration, an `Error` with `code`) for `error`.
pub(crate) fn to_js(error: &Error) -> JsValue {
    let code = JsValue::from_str(error.code());
    let message = JsValue::from_str(&text!(error));
    let options = js_sys::Object::new();
    if let Some(cause) = host_cause(error) {
        let _ = Reflect::set(&options, &"cause".into(), &cause);
    }
    if let Some(package) = super::seam::registered() {
        let class = &package.error_class;
        let args = js_sys::Array::of3(&code, &message, &options);
        if let Ok(made) = Reflect::construct(class, &args) {
            return made;
        }
    }
    let fallback = js_sys::Error::new(&text!(error));
    let _ = Reflect::set(&fallback, &"code".into(), &code);
    fallback.into()
}
