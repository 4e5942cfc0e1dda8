//! Host values read through `JSON.stringify` (so `toJSON`, `undefined` and `NaN` behave as they
//! do in JavaScript): the one way a host value becomes JSON text.

use js_sys::JSON;
use wasm_bindgen::prelude::*;

use super::error::{HostError, describe};
use crate::error::{Error, Result};

/// One host value as JSON text, as `JSON.stringify` writes it; what it throws is the error's
/// source.
pub(crate) fn json_text(value: &JsValue, path: &str) -> Result<String> {
    JSON::stringify(value)
        .map_err(|e| Error::InvalidRequest {
            message: text!(path, ": cannot be read as JSON: ", describe(&e)),
            source: Some(Box::new(HostError::new(e))),
        })?
        .as_string()
        .ok_or_else(|| Error::invalid_request(text!(path, ": cannot be read as JSON")))
}
