//! The exported `Compactor` class: `plan`, `apply`, `compact`, `summarizerInput`.
//!
//! The core compactor sits behind an `Rc`, so an apply in flight keeps it alive and `plan`
//! can run while applies wait: no method holds a borrow across an await.

use std::rc::Rc;

#[cfg(feature = "full")]
use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::engine::Engine;
#[cfg(feature = "full")]
use super::engine::Job;
#[cfg(feature = "full")]
use super::error::to_js;
#[cfg(feature = "plan-api")]
use super::sizer;
use super::{clearing, config, convert};
#[cfg(feature = "plan-api")]
use crate::compactor::HistoryDecision;
#[cfg(feature = "plan-api")]
use crate::compactor::Planned;
use crate::error::Result;

/// Plans and applies compactions (see the package README).
#[wasm_bindgen(js_name = Compactor)]
pub struct JsCompactor {
    inner: Rc<Engine>,
}

impl JsCompactor {
    /// The shared core, for a `ContextManager` built on this compactor.
    #[cfg(feature = "full")]
    pub(super) fn engine(&self) -> Rc<Engine> {
        self.inner.clone()
    }
}

#[wasm_bindgen(js_class = Compactor)]
impl JsCompactor {
    /// `new Compactor({ keepRecentTokens, triggerRatio, summarizer, cacheFacts })`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<JsCompactor, JsValue> {
        let (core, cache) = config::read(&config)?;
        Ok(JsCompactor {
            inner: Rc::new(Engine { core, cache }),
        })
    }

    #[cfg(feature = "plan-api")]
    /// The plan for `request`, or `null` when there is nothing to do.
    pub fn plan(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let request = convert::request(&request)?;
        let HistoryDecision {
            facts,
            planned,
            unread_before,
        } = self.inner.preview(&request)?;
        let plan = match planned {
            None => return Ok(JsValue::NULL),
            Some(Planned::Summarize(plan)) => plan,
            Some(Planned::Clear(cleared)) => {
                let messages = clearing::messages(&request, &cleared)?;
                return Ok(clearing::plan_to_js(&facts, &cleared, Some(messages)));
            }
        };
        // Without a deferred sizing (which reads them later), the messages are not read again.
        let last_use = unread_before.is_none();
        let js = convert::preview_to_js(&plan, &request.messages, &facts.messages, last_use);
        let js = js.and_then(|js| match unread_before {
            // The messages before the tail were not read: sized when the plan's
            // `messageTokens` is first read.
            Some(unread) => {
                sizer::defer_tokens(&js, &request, unread.start, &unread.read).map(|()| js)
            }
            None => Ok(js),
        });
        js.map_err(JsValue::from)
    }

    /// The tool results of `request`'s messages a clearing may clear, `[{ index, toolCallId }]`
    /// oldest first (none with clearing off): outside the protected range, of a tool not in
    /// `neverClear`. What a list of cleared results kept elsewhere (a chat's stored state) is
    /// checked against before it is applied again.
    #[wasm_bindgen(js_name = clearableResults)]
    pub fn clearable_results(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let request = convert::request(&request)?;
        let facts = self.inner.facts(&request)?;
        clearing::clearable(self.inner.core.clearing(), &request, &facts).map_err(JsValue::from)
    }

    #[cfg(feature = "plan-api")]
    /// The plan for a request whose messages are `body`: the bytes of a JSON array of messages
    /// or of JSON lines (`Uint8Array`, `ArrayBuffer` or string), read inside wasm. The plan has
    /// `messageSpans` instead of message arrays (a clear plan names its results by message
    /// index; `apply` it with the messages as objects); `null` when there is nothing to do.
    #[wasm_bindgen(js_name = planBytes)]
    pub fn plan_bytes(&self, body: JsValue, request: JsValue) -> Result<JsValue, JsValue> {
        let planned = convert::body(&body).and_then(|bytes| {
            let request = convert::request_without_messages(&request)?;
            let decided = self.inner.plan_body(&bytes, &request)?;
            let spans = &decided.spans;
            Ok(match decided.planned {
                Some(Planned::Clear(cleared)) => {
                    let plan = clearing::plan_to_js(&decided.facts, &cleared, None);
                    // The package's own object: setting a field runs no caller code.
                    let spans = convert::spans_to_js(spans);
                    let _ = js_sys::Reflect::set(&plan, &"messageSpans".into(), &spans);
                    Some(plan)
                }
                Some(Planned::Summarize(plan)) => Some(convert::bytes_plan_to_js(
                    &plan,
                    &decided.facts.messages,
                    spans,
                    &bytes,
                )),
                None => None,
            })
        });
        Ok(planned?.unwrap_or(JsValue::NULL))
    }

    #[cfg(feature = "full")]
    /// Executes `plan` (a plan from `plan()`, or `null` for a no-op); resolves to
    /// `{ summary, messages, record }`. A clear plan rewrites the results it names and calls
    /// no summarizer.
    pub fn apply(&self, request: JsValue, plan: JsValue, options: JsValue) -> Promise {
        match crate::options::clear_plan(&plan) {
            Err(error) => return Promise::reject(&to_js(&error)),
            Ok(Some((results, arguments))) => {
                let applied = convert::request(&request).and_then(|request| {
                    convert::signal(&options)?;
                    let facts = self.inner.facts(&request)?;
                    clearing::apply(&request, &facts, results, arguments)
                });
                return match applied {
                    Ok(outcome) => Promise::resolve(&outcome),
                    Err(error) => Promise::reject(&to_js(&error)),
                };
            }
            Ok(None) => {}
        }
        let job = convert::request(&request).and_then(|request| {
            let plan = crate::options::plan(&plan)?;
            self.inner.job(request, plan, &options)
        });
        self.start(job)
    }

    #[cfg(feature = "full")]
    /// The summary `apply` would store for `plan`, not applied: resolves to a draft
    /// `{ summary, firstKeptIndex, firstKeptPart, firstKeptId, digest, previousDigest, usage? }`
    /// to show, edit and `commit` (or `null` for a `null` plan). A clear plan makes no summary.
    pub fn draft(&self, request: JsValue, plan: JsValue, options: JsValue) -> Promise {
        let job = crate::options::clear_plan(&plan).and_then(|clear| {
            if clear.is_some() {
                return Err(crate::Error::invalid_request(
                    "plan: a clear plan makes no summary to draft: apply it",
                ));
            }
            let request = convert::request(&request)?;
            let plan = crate::options::plan(&plan)?;
            let mut job = self.inner.job(request, plan, &options)?;
            job.draft_only = true;
            Ok(job)
        });
        self.start(job)
    }

    #[cfg(feature = "full")]
    /// Commits a draft (from `draft`, its `summary` maybe edited) onto `request`, which may
    /// have grown since: `{ summary, messages, record }` as `apply` gives it. Throws
    /// `CompactionError` `stale` when the request's summary is not the one the draft replaces
    /// or a message it covers changed. Calls no summarizer.
    pub fn commit(&self, request: JsValue, draft: JsValue) -> Result<JsValue, JsValue> {
        let request = convert::request(&request)?;
        let draft = crate::options::draft(&draft)?;
        super::draft::commit(&self.inner, &request, &draft).map_err(JsValue::from)
    }

    /// Whether `draft` still covers `request`: `commit` would not refuse it as `stale` (the
    /// request's summary is the one it replaces, and nothing it summarizes changed). Nothing
    /// is committed; the plan-only module has it too, for a preview of a pending draft.
    pub fn covers(&self, request: JsValue, draft: JsValue) -> Result<bool, JsValue> {
        let request = convert::request(&request)?;
        let draft = crate::options::draft(&draft)?;
        super::draft::covers(&request, &draft).map_err(JsValue::from)
    }

    #[cfg(feature = "plan-api")]
    /// The digest of what a cut (`{ firstKeptIndex, firstKeptPart }`: a record, a plan or a
    /// draft) covers in `request`'s messages: what a record's `receipt.digest` is checked
    /// against later.
    pub fn digest(&self, request: JsValue, cut: JsValue) -> Result<String, JsValue> {
        let request = convert::request(&request)?;
        let (first, part) = crate::options::cut(&cut)?;
        let digest = super::draft::digest(&request, first, part)?;
        Ok(digest.to_hex())
    }

    #[cfg(feature = "full")]
    /// `draft` (of `request`) carried onto `onto`, a request holding the same messages
    /// converted (UIMessages sent as model messages), whose message at `cut` (`{
    /// firstKeptIndex, firstKeptPart }`) is where the draft's cut falls: the same draft cut
    /// there, its digest taken over `onto`, for `commit` onto it. Throws `CompactionError`
    /// `stale` when the draft does not cover `request`.
    pub fn rebase(
        &self,
        request: JsValue,
        draft: JsValue,
        onto: JsValue,
        cut: JsValue,
    ) -> Result<JsValue, JsValue> {
        let request = convert::request(&request)?;
        let draft = crate::options::draft(&draft)?;
        let onto = convert::request(&onto)?;
        let cut = crate::options::cut(&cut)?;
        let rebased = super::draft::rebased(&request, &draft, &onto, cut)?;
        let id = convert::id_at(&onto.messages, rebased.first_kept_index);
        Ok(super::convert::draft_to_js(&rebased, id))
    }

    #[cfg(feature = "full")]
    /// Plans, then applies.
    pub fn compact(&self, request: JsValue, options: JsValue) -> Promise {
        let job = convert::request(&request).and_then(|request| {
            let signal = convert::signal(&options)?;
            let facts = self.inner.facts(&request)?;
            let mut summarize = || self.inner.summary_plan(&facts, request.options());
            let plan = match self.inner.decide(&request, &facts, &mut summarize)? {
                Some(Planned::Clear(cleared)) => {
                    let messages = clearing::messages(&request, &cleared)?;
                    return Ok(Err(clearing::outcome(&request, &cleared, messages)));
                }
                Some(Planned::Summarize(plan)) => Some(plan),
                None => None,
            };
            self.inner
                .job_with_facts(request, facts, plan, signal)
                .map(Ok)
        });
        match job {
            Ok(Err(cleared)) => Promise::resolve(&cleared),
            Ok(Ok(job)) => self.start(Ok(job)),
            Err(error) => self.start(Err(error)),
        }
    }

    /// A history to append to and plan cheaply: `compactor.conversation({ format, estimator,
    /// messages })`.
    pub fn conversation(
        &self,
        options: JsValue,
    ) -> Result<super::conversation::JsConversation, JsValue> {
        super::conversation::JsConversation::new(self.inner.clone(), &options)
            .map_err(JsValue::from)
    }

    #[cfg(feature = "full")]
    /// The summary requests a generator summarizer would send for `plan`:
    /// `[{ purpose, systemPrompt, prompt }]` (`null` for an application summarizer).
    #[wasm_bindgen(js_name = summarizerInput)]
    pub fn summarizer_input(&self, request: JsValue, plan: JsValue) -> Result<JsValue, JsValue> {
        let request = convert::request(&request)?;
        let plan = crate::options::plan(&plan)?;
        self.inner
            .summarizer_input(&request, plan.as_ref())
            .map_err(JsValue::from)
    }

    #[cfg(feature = "full")]
    fn start(&self, job: Result<Job>) -> Promise {
        match job {
            Err(error) => Promise::reject(&to_js(&error)),
            Ok(job) => {
                let inner = self.inner.clone();
                super::host::spawn(Box::pin(async move {
                    inner.run(job).await.map_err(JsValue::from)
                }))
            }
        }
    }
}
