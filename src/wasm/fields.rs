//! One property of a caller's object at a time: `object[key]` read so that a throwing getter
//! is an error naming the place. The options (`crate::options`) read host values through it.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use super::error::{HostError, describe};
use crate::error::{Error, Result};
use crate::options::{Got, Host};

pub(crate) use crate::options::text as optional_string;

/// `object[key]`, where a throwing getter is an error naming the place.
pub(crate) fn field(object: &JsValue, key: &str, path: &str) -> Result<JsValue> {
    if !object.is_object() {
        return Ok(JsValue::UNDEFINED);
    }
    Reflect::get(object, &JsValue::from_str(key)).map_err(|e| Error::InvalidRequest {
        message: text!(path, ".", key, ": reading it threw: ", describe(&e)),
        source: Some(Box::new(HostError::new(e))),
    })
}

/// The marker of the binding's [`Host`] implementation.
pub(crate) enum Js {}

impl Host<Js> for JsValue {
    fn field(&self, key: &str, path: &str) -> Result<JsValue> {
        field(self, key, path)
    }

    // One copy in the module, not one per reader.
    #[inline(never)]
    fn got(&self) -> Got {
        if self.is_undefined() || self.is_null() {
            Got::Absent
        } else if let Some(b) = self.as_bool() {
            Got::Bool(b)
        } else if let Some(n) = self.as_f64() {
            Got::Number(n)
        } else if self.is_string() {
            Got::Text
        } else if self.is_function() {
            Got::Function
        } else if self.is_object() {
            Got::Object
        } else {
            Got::Other
        }
    }

    fn string(&self) -> Option<String> {
        self.as_string()
    }

    fn type_of(&self) -> String {
        self.js_typeof().as_string().unwrap_or_default()
    }

    fn peek(&self, key: &str) -> JsValue {
        if !self.is_object() {
            return JsValue::UNDEFINED;
        }
        Reflect::get(self, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    fn list(&self, path: &str) -> Result<Option<JsValue>> {
        Ok(super::host::list(self, path)?.map(JsValue::from))
    }

    fn elements(&self) -> Vec<JsValue> {
        self.unchecked_ref::<Array>().iter().collect()
    }

    fn json(&self, path: &str) -> Result<String> {
        super::stringify::json_text(self, path)
    }
}
