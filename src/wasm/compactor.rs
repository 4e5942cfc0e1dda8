//! The exported `Compactor` class: `plan`, `apply`, `compact`, `summarizerInput`.
//!
//! The core compactor sits behind an `Rc`, so an apply in flight keeps it alive and `plan`
//! can run while applies wait: no method holds a borrow across an await.

use std::rc::Rc;

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::bridge::{CallContext, JsSummarizer};
use super::convert::{self, JsRequest};
use super::{cache, config, error::to_js};
use crate::apply::ApplyInput;
use crate::compactor::Compactor;
use crate::error::Result;
use crate::facts::RequestFacts;
use crate::message::Message;
use crate::plan::Plan;
use crate::request::PlanOptions;

struct Inner {
    core: Compactor<JsSummarizer>,
    cache: bool,
}

/// Plans and applies compactions (see the package README).
#[wasm_bindgen(js_name = Compactor)]
pub struct JsCompactor {
    inner: Rc<Inner>,
}

/// Everything one apply needs, read synchronously before the first await.
struct Job {
    request: JsRequest,
    facts: RequestFacts,
    plan: Option<Plan>,
    history: Vec<Message>,
    prefix: Vec<Message>,
    context: CallContext,
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
        let (_, plan) = self.inner.plan(&request).map_err(|e| to_js(&e))?;
        Ok(plan.map_or(JsValue::NULL, |plan| {
            convert::plan_to_js(&plan, &request.messages)
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
            let (_, plan) = self.inner.plan(&request)?;
            self.inner.job(request, plan, &options)
        });
        self.start(job)
    }

    /// The summary requests a generator summarizer would send for `plan`:
    /// `[{ purpose, systemPrompt, prompt }]` (`null` for an application summarizer).
    #[wasm_bindgen(js_name = summarizerInput)]
    pub fn summarizer_input(&self, request: JsValue, plan: JsValue) -> Result<JsValue, JsValue> {
        let input = (|| {
            let request = convert::request(&request)?;
            let Some(plan) = convert::plan(&plan)? else {
                return Ok(Array::new().into());
            };
            let JsSummarizer::Generator(generator) = self.inner.core.summarizer() else {
                return Ok(JsValue::NULL);
            };
            plan.check_fits(request.messages.length() as usize)?;
            let history = convert::messages(&request.messages, 0, plan.messages_to_summarize.end)?;
            let prefix = convert::messages(
                &request.messages,
                plan.turn_prefix_messages.start,
                plan.turn_prefix_messages.end,
            )?;
            let asked = crate::SummarizeRequest {
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
        })();
        input.map_err(|e: crate::Error| to_js(&e))
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

impl Inner {
    fn plan(&self, request: &JsRequest) -> Result<(RequestFacts, Option<Plan>)> {
        let facts = cache::request_facts(request, self.cache)?;
        let options = PlanOptions {
            input_token_budget: request.input_token_budget,
            require_reduction: request.require_reduction,
        };
        let plan = self.core.plan_with_facts(&facts, options)?;
        Ok((facts, plan))
    }

    fn job(&self, request: JsRequest, plan: Option<Plan>, options: &JsValue) -> Result<Job> {
        let signal = convert::signal(options)?;
        let facts = cache::request_facts(&request, self.cache)?;
        let (history, prefix, context) = match &plan {
            None => (
                Vec::new(),
                Vec::new(),
                CallContext {
                    signal,
                    history: Array::new(),
                    prefix: Array::new(),
                },
            ),
            Some(plan) => {
                plan.check_fits(facts.messages.len())?;
                let (h, p) = (&plan.messages_to_summarize, &plan.turn_prefix_messages);
                let messages = &request.messages;
                let context = CallContext {
                    signal,
                    history: messages.slice(h.start as u32, h.end as u32),
                    prefix: messages.slice(p.start as u32, p.end as u32),
                };
                (
                    convert::messages(messages, h.start, h.end)?,
                    convert::messages(messages, p.start, p.end)?,
                    context,
                )
            }
        };
        Ok(Job {
            request,
            facts,
            plan,
            history,
            prefix,
            context,
        })
    }

    async fn run(&self, job: Job) -> Result<JsValue> {
        let messages = &job.request.messages;
        let Some(plan) = &job.plan else {
            return Ok(convert::outcome(
                &job.request.summary,
                messages.slice(0, messages.length()),
                None,
            ));
        };
        let input = ApplyInput {
            facts: &job.facts,
            summary: &job.request.summary,
            history: &job.history,
            turn_prefix: &job.prefix,
            require_reduction: job.request.require_reduction,
            estimator: &job.request.estimator,
        };
        let applied = self
            .core
            .apply_with_facts(input, plan, &job.context)
            .await?;
        let kept = messages.slice(plan.first_kept_index as u32, messages.length());
        Ok(convert::outcome(
            &applied.summary,
            kept,
            Some(&applied.record),
        ))
    }
}
