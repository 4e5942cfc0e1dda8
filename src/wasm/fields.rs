//! One property of a caller's object at a time: `object[key]` read so that a throwing getter
//! is an error naming the place, and the optional strings, numbers and booleans built on it.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use super::error::{HostError, describe};
use crate::error::{Error, Result, whole_number};

/// `object[key]`, where a throwing getter is an error naming the place.
pub(crate) fn field(object: &JsValue, key: &str, path: &str) -> Result<JsValue> {
    if !object.is_object() {
        return Ok(JsValue::UNDEFINED);
    }
    Reflect::get(object, &JsValue::from_str(key)).map_err(|e| Error::InvalidRequest {
        message: format!("{path}.{key}: reading it threw: {}", describe(&e)),
        source: Some(Box::new(HostError::new(e))),
    })
}

/// A string or nothing.
pub(crate) fn optional_string(value: &JsValue, path: &str) -> Result<Option<String>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .as_string()
        .map(Some)
        .ok_or_else(|| Error::invalid_request(format!("{path}: expected a string")))
}

/// `object[key]` as a whole non-negative number, or nothing (request errors; a config maps
/// them with [`Error::into_config`]).
pub(crate) fn optional_whole(object: &JsValue, key: &str, path: &str) -> Result<Option<u64>> {
    optional_number(object, key, path)?
        .map(|n| whole_number(n, &format!("{path}.{key}")).map_err(Error::invalid_request))
        .transpose()
}

/// `object[key]` as a number, or nothing.
pub(crate) fn optional_number(object: &JsValue, key: &str, path: &str) -> Result<Option<f64>> {
    let value = field(object, key, path)?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .as_f64()
        .map(Some)
        .ok_or_else(|| Error::invalid_request(format!("{path}.{key} must be a number")))
}

pub(crate) fn optional_bool(object: &JsValue, key: &str, path: &str) -> Result<Option<bool>> {
    let value = field(object, key, path)?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .as_bool()
        .map(Some)
        .ok_or_else(|| Error::invalid_request(format!("{path}.{key}: expected a boolean")))
}
