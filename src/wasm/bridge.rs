//! Host callbacks: the summarizer's `generate` and `summarize` functions, how their failures
//! are classified for retries, and what they may return.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::call::CallContext;
use super::convert::{self, object};
use super::error::{HostError, describe};
use super::timer::JsSleeper;
use crate::draft::{Draft, Verdict};
use crate::error::{Error, Result};
use crate::generator::{GenerateRequest, Generated, Generator, GeneratorSummarizer};
use crate::retry::{FailureKind, GenerateError};
use crate::summarizer::{LocalFuture, SummarizeRequest, Summarizer, SummaryText};
use crate::thrown::Callback;

/// Calls `this.f(a, b)`: a synchronous throw at once, else what it returned as a promise to
/// await (a rejection and a plain, non-promise value are handled too, [`super::host::settle`]).
/// A plain function, not an async one: each caller's state machine awaits the promise itself.
fn call_host(f: &Function, this: &JsValue, a: &JsValue, b: &JsValue) -> Result<JsFuture, JsValue> {
    super::host::settle(&f.call2(this, a, b)?)
}

/// Sorts a host failure for the retry rules (`crate::retry`), as the core does.
pub(crate) fn classify(thrown: &JsValue, context: &CallContext) -> FailureKind {
    super::error::thrown(thrown).failure_kind(context.aborted())
}

/// What a throw of host `callback` fails the compaction with ([`Callback::failed`]).
fn failed(callback: Callback, thrown: JsValue, context: &CallContext) -> Error {
    let message = describe(&thrown);
    let source = Box::new(HostError::new(thrown.clone()));
    callback.failed(classify(&thrown, context), message, source)
}

/// The host's `generate(request, { signal })`.
pub(crate) struct JsGenerator {
    pub this: JsValue,
    pub generate: Function,
}

impl JsGenerator {
    async fn call(
        &self,
        request: &GenerateRequest,
        context: &CallContext,
    ) -> Result<Generated, GenerateError> {
        let slots = [convert::long_string(&request.prompt), JsValue::UNDEFINED];
        let js_request = convert::out(&slots, |w| crate::out::generate_request(w, request));
        let answer = call_host(&self.generate, &self.this, &js_request, &context.options());
        let returned = match answer {
            Ok(answer) => answer.await,
            Err(thrown) => Err(thrown),
        };
        let returned = returned.map_err(|thrown| GenerateError {
            kind: classify(&thrown, context),
            message: describe(&thrown),
            source: Some(Box::new(HostError::new(thrown))),
        })?;
        let text = crate::options::answer(&returned, "summarizer.generate")
            .map_err(|message| GenerateError::new(FailureKind::InvalidResponse, message))?;
        Ok(Generated {
            text: text.text,
            usage: text.usage,
        })
    }
}

impl Generator for JsGenerator {
    type Context = CallContext;

    fn generate<'a>(
        &'a self,
        request: &'a GenerateRequest,
        context: &'a CallContext,
    ) -> LocalFuture<'a, Result<Generated, GenerateError>> {
        Box::pin(self.call(request, context))
    }
}

/// The host's application summarizer `summarize(request, { signal })`, called once.
pub(crate) struct JsApplication {
    pub this: JsValue,
    pub summarize: Function,
}

impl JsApplication {
    async fn call(
        &self,
        request: SummarizeRequest<'_>,
        context: &CallContext,
    ) -> Result<SummaryText> {
        let js_request = object(&[
            ("previousSummary", request.previous_summary.into()),
            ("messages", context.history.clone().into()),
            ("turnPrefixMessages", context.prefix.clone().into()),
            (
                "focus",
                request.focus.map_or(JsValue::UNDEFINED, JsValue::from),
            ),
        ]);
        let answer = call_host(&self.summarize, &self.this, &js_request, &context.options());
        let returned = match answer {
            Ok(answer) => answer.await,
            Err(thrown) => Err(thrown),
        };
        let returned = returned.map_err(|thrown| failed(Callback::Summarize, thrown, context))?;
        crate::options::answer(&returned, "summarizer.summarize").map_err(|message| {
            Error::Summarization {
                message,
                source: None,
            }
        })
    }
}

/// The summarizer a JavaScript config describes, and its `beforeCommit` hook.
pub(crate) struct Hosted {
    /// `summarizer`.
    pub summarizer: JsSummarizer,
    /// `beforeCommit(draft, { signal })`, when configured.
    pub before_commit: Option<Function>,
}

impl Summarizer for Hosted {
    type Context = CallContext;

    fn summarize<'a>(
        &'a self,
        request: SummarizeRequest<'a>,
        context: &'a CallContext,
    ) -> LocalFuture<'a, Result<SummaryText>> {
        self.summarizer.summarize(request, context)
    }

    fn validate(&self) -> std::result::Result<(), String> {
        self.summarizer.validate()
    }

    fn review<'a>(
        &'a self,
        draft: &'a Draft,
        context: &'a CallContext,
    ) -> LocalFuture<'a, Result<Verdict>> {
        match &self.before_commit {
            None => Box::pin(std::future::ready(Ok(Verdict::Keep))),
            Some(hook) => Box::pin(review(hook, draft, context)),
        }
    }
}

/// Asks `beforeCommit(draft, { signal })`: a string replaces the summary, `false` declines
/// it, nothing (or `true`) keeps it; a throw or rejection fails the compaction (`declined`,
/// or `aborted` when the caller's signal fired).
async fn review(hook: &Function, draft: &Draft, context: &CallContext) -> Result<Verdict> {
    let object = super::convert::draft_to_js(draft, context.kept_id.clone());
    let answer = call_host(hook, &JsValue::UNDEFINED, &object, &context.options());
    let returned = match answer {
        Ok(answer) => answer.await,
        Err(thrown) => Err(thrown),
    };
    let returned = returned.map_err(|thrown| failed(Callback::BeforeCommit, thrown, context))?;
    crate::options::verdict(&returned)
}

/// The summarizer half of a JavaScript config.
pub(crate) enum JsSummarizer {
    /// `{ model, generate, ... }`: the built-in summarizer over a host model call (never
    /// made in the plan-only module, which reads no summarizer).
    #[cfg_attr(not(feature = "full"), allow(dead_code))]
    Generator(GeneratorSummarizer<JsGenerator, JsSleeper>),
    /// `{ summarize }`: the host writes the summary itself.
    Application(JsApplication),
}

impl Summarizer for JsSummarizer {
    type Context = CallContext;

    fn summarize<'a>(
        &'a self,
        request: SummarizeRequest<'a>,
        context: &'a CallContext,
    ) -> LocalFuture<'a, Result<SummaryText>> {
        match self {
            JsSummarizer::Generator(generator) => generator.summarize(request, context),
            JsSummarizer::Application(application) => Box::pin(application.call(request, context)),
        }
    }

    fn validate(&self) -> std::result::Result<(), String> {
        match self {
            // The plan-only module makes none (it reads no summarizer, config.rs): the checks
            // stay out of it.
            JsSummarizer::Generator(generator) if cfg!(feature = "full") => generator.validate(),
            JsSummarizer::Generator(_) | JsSummarizer::Application(_) => Ok(()),
        }
    }
}
