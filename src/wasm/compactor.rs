//! The exported `Compactor` class: `plan`, `apply`, `compact`, `summarizerInput`.
//!
//! The core compactor sits behind an `Rc`, so an apply in flight keeps it alive and `plan`
//! can run while applies wait: no method holds a borrow across an await.

use std::ops::Range;
use std::rc::Rc;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::bridge::{CallContext, JsSummarizer};
use super::convert::{self, JsRequest};
use super::js::AbortSignal;
use super::{cache, config, error::to_js, walk};
use crate::apply::{Applied, ApplyInput};
use crate::compactor::Compactor;
use crate::error::Result;
use crate::facts::RequestFacts;
use crate::message::Message;
use crate::plan::Plan;
use crate::request::PlanOptions;
use crate::summarizer::SummarizeRequest;

pub(super) struct Inner {
    pub(super) core: Compactor<JsSummarizer>,
    cache: bool,
}

/// Plans and applies compactions (see the package README).
#[wasm_bindgen(js_name = Compactor)]
pub struct JsCompactor {
    inner: Rc<Inner>,
}

/// Everything one apply needs, read synchronously before the first await.
pub(super) struct Job {
    pub(super) request: JsRequest,
    facts: RequestFacts,
    plan: Option<Plan>,
    history: Vec<Message>,
    prefix: Vec<Message>,
    context: CallContext,
}

impl JsCompactor {
    /// The shared core, for a `ContextManager` built on this compactor.
    pub(super) fn inner(&self) -> Rc<Inner> {
        self.inner.clone()
    }
}

#[wasm_bindgen(js_class = Compactor)]
impl JsCompactor {
    /// `new Compactor({ keepRecentTokens, triggerRatio, summarizer, cacheFacts })`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<JsCompactor, JsValue> {
        let (core, cache) = config::read(&config).map_err(|e| to_js(&e))?;
        Ok(JsCompactor {
            inner: Rc::new(Inner { core, cache }),
        })
    }

    /// The plan for `request`, or `null` when there is nothing to do.
    pub fn plan(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let request = convert::request(&request).map_err(|e| to_js(&e))?;
        let (facts, plan) = self.inner.plan(&request).map_err(|e| to_js(&e))?;
        Ok(plan.map_or(JsValue::NULL, |plan| {
            convert::plan_to_js(&plan, &request.messages, &facts.messages)
        }))
    }

    /// The plan for a request whose messages are `body`: the bytes of a JSON array of messages
    /// or of JSON lines (`Uint8Array`, `ArrayBuffer` or string), read inside wasm. The plan has
    /// `messageSpans` instead of message arrays; `null` when there is nothing to do.
    #[wasm_bindgen(js_name = planBytes)]
    pub fn plan_bytes(&self, body: JsValue, request: JsValue) -> Result<JsValue, JsValue> {
        let planned = convert::body(&body).and_then(|bytes| {
            let request = convert::request_without_messages(&request)?;
            self.inner.plan_body(&bytes, &request)
        });
        let (spans, plan) = planned.map_err(|e| to_js(&e))?;
        Ok(plan.map_or(JsValue::NULL, |plan| {
            convert::bytes_plan_to_js(&plan, &spans)
        }))
    }

    /// Executes `plan` (a plan from `plan()`, or `null` for a no-op); resolves to
    /// `{ summary, messages, record }`.
    pub fn apply(&self, request: JsValue, plan: JsValue, options: JsValue) -> Promise {
        let job = convert::request(&request).and_then(|request| {
            let plan = convert::plan(&plan)?;
            self.inner.job(request, plan, &options)
        });
        self.start(job)
    }

    /// Plans, then applies.
    pub fn compact(&self, request: JsValue, options: JsValue) -> Promise {
        let job = convert::request(&request).and_then(|request| {
            let signal = convert::signal(&options)?;
            let (facts, plan) = self.inner.plan(&request)?;
            self.inner.job_with_facts(request, facts, plan, signal)
        });
        self.start(job)
    }

    /// A history to append to and plan cheaply: `compactor.conversation({ format, estimator,
    /// messages })`.
    pub fn conversation(
        &self,
        options: JsValue,
    ) -> Result<super::conversation::JsHistory, JsValue> {
        super::conversation::JsHistory::new(self.inner.clone(), &options).map_err(|e| to_js(&e))
    }

    /// The summary requests a generator summarizer would send for `plan`:
    /// `[{ purpose, systemPrompt, prompt }]` (`null` for an application summarizer).
    #[wasm_bindgen(js_name = summarizerInput)]
    pub fn summarizer_input(&self, request: JsValue, plan: JsValue) -> Result<JsValue, JsValue> {
        let request = convert::request(&request).map_err(|e| to_js(&e))?;
        let plan = convert::plan(&plan).map_err(|e| to_js(&e))?;
        self.inner
            .summarizer_input(&request, plan.as_ref())
            .map_err(|e| to_js(&e))
    }

    fn start(&self, job: Result<Job>) -> Promise {
        match job {
            Err(error) => Promise::reject(&to_js(&error)),
            Ok(job) => {
                let inner = self.inner.clone();
                future_to_promise(async move { inner.run(job).await.map_err(|e| to_js(&e)) })
            }
        }
    }
}

fn options(request: &JsRequest) -> PlanOptions {
    PlanOptions {
        input_token_budget: request.input_token_budget,
        require_reduction: request.require_reduction,
    }
}

impl Inner {
    /// The facts of `request`, from the cache when it is on.
    pub(super) fn facts(&self, request: &JsRequest) -> Result<RequestFacts> {
        cache::request_facts(request, self.cache)
    }

    fn plan(&self, request: &JsRequest) -> Result<(RequestFacts, Option<Plan>)> {
        let facts = self.facts(request)?;
        let plan = self.core.plan_with_facts(&facts, options(request))?;
        Ok((facts, plan))
    }

    /// Plans the messages of `body`; returns where each message is in it, and the plan.
    fn plan_body(
        &self,
        body: &[u8],
        request: &JsRequest,
    ) -> Result<(Vec<Range<usize>>, Option<Plan>)> {
        let estimator = &request.estimator;
        let read = crate::body::facts(body, request.format, estimator)?;
        let mut facts = RequestFacts::fixed(
            &request.system_prompt,
            &request.summary,
            &request.tools,
            estimator,
        )?;
        facts.messages = read.messages;
        let plan = self.core.plan_with_facts(&facts, options(request))?;
        Ok((read.spans, plan))
    }

    fn job(&self, request: JsRequest, plan: Option<Plan>, options: &JsValue) -> Result<Job> {
        let signal = convert::signal(options)?;
        let facts = self.facts(&request)?;
        self.job_with_facts(request, facts, plan, signal)
    }

    /// Reads everything an apply needs before its first await: the messages to summarize as
    /// core messages, and the host's own slices for an application summarizer.
    pub(super) fn job_with_facts(
        &self,
        request: JsRequest,
        facts: RequestFacts,
        plan: Option<Plan>,
        signal: Option<AbortSignal>,
    ) -> Result<Job> {
        let mut context = CallContext {
            signal,
            history: Array::new(),
            prefix: Array::new(),
        };
        let (mut history, mut prefix) = (Vec::new(), Vec::new());
        if let Some(plan) = &plan {
            plan.check_fits(facts.messages.len())?;
            let (h, p) = (&plan.messages_to_summarize, &plan.turn_prefix_messages);
            let messages = &request.messages;
            context.history = convert::slice_without_pinned(messages, &facts.messages, h);
            context.prefix = convert::slice_without_pinned(messages, &facts.messages, p);
            history = walk::units(messages, h.clone(), request.format)?;
            prefix = walk::units(messages, p.clone(), request.format)?;
        }
        Ok(Job {
            request,
            facts,
            plan,
            history,
            prefix,
            context,
        })
    }

    fn summarizer_input(&self, request: &JsRequest, plan: Option<&Plan>) -> Result<JsValue> {
        let JsSummarizer::Generator(generator) = self.core.summarizer() else {
            return Ok(JsValue::NULL);
        };
        let Some(plan) = plan else {
            return Ok(Array::new().into());
        };
        let messages = &request.messages;
        plan.check_fits(messages.length() as usize)?;
        let (h, p) = (&plan.messages_to_summarize, &plan.turn_prefix_messages);
        let history = walk::units(messages, h.clone(), request.format)?;
        let prefix = walk::units(messages, p.clone(), request.format)?;
        let asked = SummarizeRequest {
            previous_summary: &request.summary,
            messages: &history,
            turn_prefix_messages: &prefix,
        };
        let prompts: Array = generator
            .prompts(&asked)
            .into_iter()
            .map(|(purpose, prompt)| {
                let system = generator.request(purpose, String::new()).system_prompt;
                convert::object(&[
                    ("purpose", purpose.as_str().into()),
                    ("systemPrompt", system.into()),
                    ("prompt", prompt.into()),
                ])
            })
            .collect();
        Ok(prompts.into())
    }

    /// Applies the job's plan: the new summary and record, or `None` for a no-op.
    pub(super) async fn execute(&self, job: &Job) -> Result<Option<Applied>> {
        let Some(plan) = &job.plan else {
            return Ok(None);
        };
        let input = ApplyInput {
            facts: &job.facts,
            summary: &job.request.summary,
            history: &job.history,
            turn_prefix: &job.prefix,
            require_reduction: job.request.require_reduction,
            estimator: &job.request.estimator,
        };
        self.core
            .apply_with_facts(input, plan, &job.context)
            .await
            .map(Some)
    }

    async fn run(&self, job: Job) -> Result<JsValue> {
        let messages = &job.request.messages;
        Ok(match self.execute(&job).await? {
            None => convert::outcome(
                &job.request.summary,
                messages.slice(0, messages.length()),
                None,
            ),
            Some(applied) => {
                let kept = convert::kept(messages, &job.facts, applied.record.first_kept_index);
                convert::outcome(&applied.summary, kept, Some(&applied.record))
            }
        })
    }
}
