//! Retry waits on the global `setTimeout`, ended early by the caller's `AbortSignal`. Neither
//! the timer nor the abort listener outlives the wait, and no Rust closure is created: the
//! promise's own resolve and reject functions are the callbacks.

use std::time::Duration;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::call::CallContext;
use super::error::HostError;
use super::js::{AbortSignal, clear_timeout, set_timeout};
use crate::retry::{FailureKind, GenerateError, Sleeper};
use crate::summarizer::LocalFuture;

/// Waits with JavaScript timers.
pub(crate) struct JsSleeper;

impl Sleeper for JsSleeper {
    type Context = CallContext;

    fn sleep<'a>(
        &'a self,
        delay: Duration,
        context: &'a CallContext,
    ) -> LocalFuture<'a, Result<(), GenerateError>> {
        Box::pin(wait(delay, context.signal.as_ref()))
    }
}

fn cancelled(signal: &AbortSignal) -> GenerateError {
    GenerateError {
        kind: FailureKind::Cancelled,
        message: "aborted during the wait before a retry".to_owned(),
        source: Some(Box::new(HostError::new(signal.reason_value()))),
    }
}

async fn wait(delay: Duration, signal: Option<&AbortSignal>) -> Result<(), GenerateError> {
    if let Some(signal) = signal.filter(|s| s.is_aborted()) {
        return Err(cancelled(signal));
    }
    let mut timer = Ok(JsValue::UNDEFINED);
    let mut listener: Option<Function> = None;
    let promise = Promise::new(&mut |resolve, reject| {
        timer = set_timeout(&resolve, delay.as_millis() as f64);
        if let Some(signal) = signal
            && signal.add_event_listener("abort", &reject).is_ok()
        {
            listener = Some(reject);
        }
    });
    let outcome = match &timer {
        Ok(_) => JsFuture::from(promise).await.map(|_| ()),
        Err(_) => Err(JsValue::UNDEFINED),
    };
    if let Ok(id) = &timer {
        let _ = clear_timeout(id);
    }
    if let (Some(signal), Some(listener)) = (signal, &listener) {
        let _ = signal.remove_event_listener("abort", listener);
    }
    match (outcome, timer, signal) {
        (Ok(()), _, _) => Ok(()),
        (Err(_), Err(thrown), _) => Err(GenerateError {
            kind: FailureKind::Unknown,
            message: "setTimeout failed".to_owned(),
            source: Some(Box::new(HostError::new(thrown))),
        }),
        (Err(_), Ok(_), Some(signal)) => Err(cancelled(signal)),
        (Err(_), Ok(_), None) => Err(GenerateError::new(
            FailureKind::Unknown,
            "the retry wait was interrupted",
        )),
    }
}
