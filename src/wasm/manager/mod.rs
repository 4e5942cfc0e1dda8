//! The exported `ContextManagerCore` (the package's `ContextManager` wraps it): maintenance
//! and overflow recovery over JavaScript state objects `{ systemPrompt, summary, messages,
//! tools }`. All rules are the core manager's; this file converts and bridges.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

use super::compactor::JsCompactor;
use super::convert::{self, object, out};
use super::error::to_js;
use super::host;
use super::js::AbortSignal;
use crate::error::Result;
use crate::manager::{Ahead, AheadOutcome, ContextManager, RunFailure};
use crate::options::MaintainCall;
use crate::out as shape;

mod state;

use state::JsStateCompactor;

/// `ContextManager`'s engine; construct it through the package's `ContextManager`.
#[wasm_bindgen(js_name = ContextManagerCore)]
pub struct JsContextManager {
    core: ContextManager,
    compactor: Rc<JsStateCompactor>,
}

#[wasm_bindgen(js_class = ContextManagerCore)]
impl JsContextManager {
    /// `new ContextManagerCore(compactor, { contextWindowTokens, reserveTokens, estimator, onEvent })`.
    #[wasm_bindgen(constructor)]
    pub fn new(compactor: &JsCompactor, options: JsValue) -> Result<JsContextManager, JsValue> {
        Self::read(compactor, &options).map_err(JsValue::from)
    }

    /// Proactive maintenance; resolves to `{ state, compacted, reason, record, error?,
    /// pending? }` (`pending`: `"committed"` or `"discarded"` when `options.pending` was used).
    /// With `ahead` (the package's `prepareAhead`), ahead-of-time compaction after a turn
    /// instead: resolves to the pending draft to keep (a new one, `options.pending` itself
    /// while it still covers the state) or `null`, and rejects when the summary fails or is
    /// aborted (keep what you held). One future for both: one copy of the promise glue.
    pub fn maintain(&self, state: JsValue, options: JsValue, ahead: bool) -> Promise {
        let compactor = self.compactor.clone();
        let core = self.core;
        let (call, signal) = match read_call(&options) {
            Ok(prepared) => prepared,
            Err(error) => return Promise::reject(&to_js(&error)),
        };
        host::spawn(Box::pin(async move {
            let asked = call.options();
            if ahead {
                let ahead = core.prepare_ahead(&*compactor, &state, asked, &signal);
                return Ok(compactor.pending(ahead.await?, &state, &call)?);
            }
            let done = core.maintain(&*compactor, state, asked, &signal).await?;
            let error = done.error.as_ref().map_or(JsValue::UNDEFINED, to_js);
            Ok(out(&[done.state.clone(), error], |w| {
                shape::maintained(w, &done)
            }))
        }))
    }

    /// Sends `state` through `send(state, { signal })`, recovering from context overflow.
    pub fn run(&self, state: JsValue, send: JsValue, options: JsValue) -> Promise {
        let compactor = self.compactor.clone();
        let core = self.core;
        let prepared = crate::options::run_call(&send, &options)
            .and_then(|call| Ok((call, convert::signal(&options)?)));
        let (call, signal) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => return Promise::reject(&to_js(&error)),
        };
        host::spawn(Box::pin(async move {
            let options = object(&[(
                "signal",
                signal.clone().map_or(JsValue::UNDEFINED, JsValue::from),
            )]);
            let send = call.send.unchecked_ref::<Function>();
            let send_once = async |state: &JsValue| -> Result<JsValue, JsValue> {
                let returned = send.call2(&JsValue::UNDEFINED, state, &options)?;
                let response = host::settle(&returned)?.await?;
                compactor.learn(state, &response);
                Ok(response)
            };
            let overflow = |error: &JsValue| match &call.is_overflow {
                Some(custom) => custom
                    .unchecked_ref::<Function>()
                    .call1(&JsValue::UNDEFINED, error)
                    .map(|v| v.is_truthy())
                    .unwrap_or(false),
                None => is_overflow_error(error),
            };
            let focus = call.focus.as_deref();
            match core
                .run_focused(&*compactor, state, focus, &signal, send_once, overflow)
                .await
            {
                Ok(ran) => {
                    let attempts = ran.failed_attempts.iter().collect::<Array>().into();
                    let slots = [ran.response.clone(), ran.state.clone(), attempts];
                    Ok(out(&slots, |w| shape::ran(w, &ran)))
                }
                Err(failed) => {
                    let error = match &failed.failure {
                        RunFailure::Provider(error) => error.clone(),
                        RunFailure::Compaction(error) => to_js(error),
                    };
                    // Nothing is lost: the error carries the state with every committed rewrite.
                    if error.is_object() {
                        let attempts = failed.failed_attempts.iter().collect::<Array>().into();
                        let slots = [failed.state.clone(), attempts];
                        let carried = out(&slots, |w| shape::run_error(w, &failed));
                        hide_in(&error, &carried);
                    }
                    Err(error)
                }
            }
        }))
    }
}

/// Defines each own property of `fields` (an object of the package's own) on `error`,
/// configurable and writable but not enumerable.
fn hide_in(error: &JsValue, fields: &JsValue) {
    for key in Object::keys(fields.unchecked_ref::<Object>()) {
        let value = Reflect::get(fields, &key).unwrap_or_default();
        let descriptor = object(&[
            ("value", value),
            ("configurable", true.into()),
            ("writable", true.into()),
        ]);
        let (error, descriptor) = (error.unchecked_ref::<Object>(), descriptor.unchecked_ref());
        let _ = Reflect::define_property(error, &key, descriptor);
    }
}

impl JsContextManager {
    fn read(compactor: &JsCompactor, options: &JsValue) -> Result<JsContextManager> {
        let check = |estimator: &JsValue| super::estimator::AnyEstimator::from_js(estimator);
        let read = crate::options::manager(options, |e| check(e).map(drop))?;
        let compactor = Rc::new(JsStateCompactor {
            engine: compactor.engine(),
            estimator: read.estimator,
            on_event: read.on_event.map(JsValue::unchecked_into),
            learned: RefCell::default(),
        });
        let core = ContextManager::new(read.config);
        Ok(JsContextManager { core, compactor })
    }
}

/// A maintenance call's options and signal, read before the first await.
fn read_call(options: &JsValue) -> Result<(MaintainCall<JsValue>, Option<AbortSignal>)> {
    let call = crate::options::maintain_call(options)?;
    Ok((call, convert::signal(options)?))
}

/// The default overflow test over a thrown value: its message (or the provider body's), its
/// HTTP status and its error code, as the core reads them.
pub(crate) fn is_overflow_error(error: &JsValue) -> bool {
    super::error::thrown(error).is_context_overflow()
}

/// `isContextOverflowError(err)`: whether a provider error says the request exceeded the
/// context window.
#[allow(unreachable_pub)] // exported to JavaScript
#[wasm_bindgen(js_name = isContextOverflowError)]
pub fn is_context_overflow_error(error: JsValue) -> bool {
    is_overflow_error(&error)
}

impl JsStateCompactor {
    /// What `prepareAhead` resolves to: the caller's own pending object when kept, a new
    /// draft (its `firstKeptId` read from `state`), or `null`.
    fn pending(
        &self,
        ahead: Ahead,
        state: &JsValue,
        call: &MaintainCall<JsValue>,
    ) -> Result<JsValue> {
        Ok(match (ahead.outcome, ahead.draft) {
            (AheadOutcome::Kept, _) => call.pending.as_ref().map_or(JsValue::NULL, |p| p.1.clone()),
            (_, Some(draft)) => {
                let messages = self.request(state)?.messages;
                let id = convert::id_at(&messages, draft.first_kept_index);
                super::convert::draft_to_js(&draft, id)
            }
            (_, None) => JsValue::NULL,
        })
    }
}
