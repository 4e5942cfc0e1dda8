//! Estimators seen from JavaScript: the exported `HeuristicEstimator` and host
//! `{ countTokens(text) }` objects.

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::error::{Failure, HostError, describe};
use crate::error::{BoxError, Error};
use crate::options::EstimatorOptions;
use crate::token::{Estimator, Heuristic, host_count};

/// The default estimator, exported so hosts can count texts the way planning does.
#[cfg(feature = "plan-api")]
#[wasm_bindgen(js_name = HeuristicEstimator)]
pub struct JsHeuristic {
    inner: Heuristic,
}

#[cfg(feature = "plan-api")]
#[wasm_bindgen(js_class = HeuristicEstimator)]
impl JsHeuristic {
    /// `new HeuristicEstimator({ imageTokens })`; `imageTokens` defaults to 1,200.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsHeuristic, JsValue> {
        let inner = crate::options::heuristic(&options)?;
        Ok(JsHeuristic { inner })
    }

    /// The estimated tokens of `text` (a string).
    #[wasm_bindgen(js_name = countTokens)]
    pub fn count_tokens(&self, text: JsValue) -> Result<f64, JsValue> {
        let text = text.as_string().ok_or_else(|| {
            let got = text.js_typeof().as_string().unwrap_or_default();
            let got = if text.is_null() {
                "null".to_owned()
            } else {
                got
            };
            super::error::to_js(&Error::invalid_request(text!(
                "countTokens: expected a string, got ",
                got
            )))
        })?;
        Ok(self.inner.count(&text) as f64)
    }

    /// Tokens counted for one image.
    #[wasm_bindgen(getter, js_name = imageTokens)]
    pub fn image_tokens(&self) -> f64 {
        self.inner.image_tokens as f64
    }

    /// The marker the binding layer reads (same as `imageTokens`;
    /// [`crate::options::NATIVE_MARKER`]).
    #[wasm_bindgen(getter, js_name = __contextCompactionHeuristicImageTokens)]
    pub fn marker(&self) -> f64 {
        self.inner.image_tokens as f64
    }
}

/// The estimator of one request.
pub(crate) enum AnyEstimator {
    /// The heuristic, counted natively.
    Native(Heuristic),
    /// A host object with `countTokens(text)` and optionally `imageTokens`.
    Host {
        object: JsValue,
        count: Function,
        image_tokens: u64,
    },
}

impl AnyEstimator {
    /// Reads `request.estimator` ([`crate::options::estimator`]).
    pub(crate) fn from_js(value: &JsValue) -> Result<AnyEstimator, Error> {
        Ok(match crate::options::estimator(value)? {
            EstimatorOptions::Native(heuristic) => AnyEstimator::Native(heuristic),
            EstimatorOptions::Host {
                object,
                count,
                image_tokens,
            } => AnyEstimator::Host {
                object,
                count: count.unchecked_into(),
                image_tokens,
            },
        })
    }

    /// The host object, when there is one (the facts cache is kept per estimator object).
    pub(crate) fn host_object(&self) -> Option<&JsValue> {
        match self {
            AnyEstimator::Native(_) => None,
            AnyEstimator::Host { object, .. } => Some(object),
        }
    }
}

impl Estimator for AnyEstimator {
    fn count_tokens(&self, text: &str) -> Result<u64, BoxError> {
        let (object, count) = match self {
            AnyEstimator::Native(heuristic) => return Ok(heuristic.count(text)),
            AnyEstimator::Host { object, count, .. } => (object, count),
        };
        let value = count
            .call1(object, &JsValue::from_str(text))
            .map_err(|e| Box::new(HostError::new(e)) as BoxError)?;
        value.as_f64().and_then(host_count).ok_or_else(|| {
            let message = text!(
                "countTokens returned ",
                describe(&value),
                ", not a non-negative number"
            );
            Box::new(Failure(message)) as BoxError
        })
    }

    fn as_heuristic(&self) -> Option<Heuristic> {
        match self {
            AnyEstimator::Native(heuristic) => Some(*heuristic),
            AnyEstimator::Host { .. } => None,
        }
    }

    fn image_tokens(&self) -> u64 {
        match self {
            AnyEstimator::Native(heuristic) => heuristic.image_tokens,
            AnyEstimator::Host { image_tokens, .. } => *image_tokens,
        }
    }
}
