//! The compactor the exported classes share (`Compactor`, `Conversation`, `ContextManager`):
//! planning a request, and reading and running one apply.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use super::bridge::{Hosted, JsGenerator, JsSummarizer};
use super::call::CallContext;
use super::convert::{self, JsRequest};
use super::history::JsHistory;
use super::js::AbortSignal;
use super::reported;
use super::timer::JsSleeper;
use crate::anchor::Report;
use crate::apply::{Applied, ApplyInput};
use crate::body::Decided;
use crate::clearing::ClearingPolicy;
use crate::compactor::{Compactor, HistoryDecision, Planned};
use crate::error::Result;
use crate::facts::RequestFacts;
use crate::formats::Format;
use crate::generator::{GeneratorSummarizer, Purpose};
use crate::message::Message;
use crate::plan::Plan;
use crate::request::PlanOptions;
use crate::summarizer::LocalFuture;
use crate::token::Estimator;

/// The core compactor (with its clearing policy) and whether its facts cache is on.
pub(super) struct Engine {
    pub(super) core: Compactor<Hosted>,
    pub(super) cache: bool,
}

/// Everything one apply needs, read synchronously before the first await.
pub(super) struct Job {
    pub(super) request: JsRequest,
    facts: RequestFacts,
    plan: Option<Plan>,
    history: Vec<Message>,
    prefix: Vec<Message>,
    context: CallContext,
    /// The messages a compaction keeps (read before the first await).
    pub(super) kept: Array,
    /// Whether [`Engine::run`] makes a draft (`compactor.draft`) rather than applying.
    pub(super) draft_only: bool,
}

impl Engine {
    /// The facts of `request`, from the cache when it is on, calibrated and anchored to what
    /// the provider reported (`crate::anchor`).
    pub(super) fn facts(&self, request: &JsRequest) -> Result<RequestFacts> {
        self.facts_learned(request, &[])
    }

    /// [`Engine::facts`] with reports a `ContextManager` learned besides the request's own.
    pub(super) fn facts_learned(
        &self,
        request: &JsRequest,
        learned: &[Report],
    ) -> Result<RequestFacts> {
        // The preview module's cache is always on (`cacheFacts` refused): said so, the reading
        // without it is left out.
        let cache = self.cache || !cfg!(feature = "plan-api");
        reported::request_facts(request, cache, learned)
    }

    /// The summary plan of a request with `facts`, its `message_tokens` left empty.
    pub(super) fn summary_plan(
        &self,
        facts: &RequestFacts,
        options: PlanOptions,
    ) -> Result<Option<Plan>> {
        let (keep, ratio) = (self.core.keep_recent_tokens(), self.core.trigger_ratio());
        crate::plan::plan_without_tokens(facts, options, keep, ratio)
    }

    /// What `Compactor.plan` shows for `request` ([`Compactor::decide_history`]).
    pub(super) fn preview(&self, request: &JsRequest) -> Result<HistoryDecision> {
        let history = JsHistory {
            request,
            cache: self.cache,
        };
        let (messages, format, estimator) = (&request.messages, request.format, &request.estimator);
        let mut find = |policy: &ClearingPolicy, facts: &RequestFacts| {
            super::clearing::find(messages, &facts.messages, format, estimator, policy, false)
        };
        self.core
            .decide_history(&history, request.options(), &mut find)
    }

    /// What to do with `request` (facts `facts`): clear first, else the summary plan
    /// `summarize` gives ([`Compactor::decide_with`]).
    pub(super) fn decide(
        &self,
        request: &JsRequest,
        facts: &RequestFacts,
        summarize: &mut dyn FnMut() -> Result<Option<Plan>>,
    ) -> Result<Option<Planned>> {
        let (messages, format, estimator) = (&request.messages, request.format, &request.estimator);
        self.decide_of(
            messages,
            format,
            estimator,
            facts,
            request.options(),
            summarize,
        )
    }

    /// [`Engine::decide`] for host `messages` of `format` whose facts are `facts`.
    pub(super) fn decide_of(
        &self,
        messages: &Array,
        format: Format,
        estimator: &dyn Estimator,
        facts: &RequestFacts,
        options: PlanOptions,
        summarize: &mut dyn FnMut() -> Result<Option<Plan>>,
    ) -> Result<Option<Planned>> {
        let mut find = |policy: &ClearingPolicy| {
            super::clearing::find(messages, &facts.messages, format, estimator, policy, false)
        };
        self.core
            .decide_with(facts, options, estimator, &mut find, summarize)
    }

    /// What to do with the request whose messages are `body` ([`crate::body::decide`]).
    pub(super) fn plan_body(&self, body: &[u8], request: &JsRequest) -> Result<Decided> {
        let (format, parts) = (request.format, request.parts());
        crate::body::decide(&self.core, body, format, &parts, request.options())
    }

    /// Reads an apply of `plan` with `options` (`{ signal }`) before its first await.
    pub(super) fn job(
        &self,
        request: JsRequest,
        plan: Option<Plan>,
        options: &JsValue,
    ) -> Result<Job> {
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
            kept_id: JsValue::NULL,
        };
        let (mut history, mut prefix, mut kept) = (Vec::new(), Vec::new(), Array::new());
        if let Some(plan) = &plan {
            plan.check_apply(&facts.messages)?;
            let (h, p) = (&plan.messages_to_summarize, &plan.turn_prefix_messages);
            let messages = &request.messages;
            context.history = convert::slice_without_pinned(messages, &facts.messages, h);
            context.prefix = convert::slice_without_pinned(messages, &facts.messages, p);
            if let Some(partial) = convert::summarized_part(messages, plan)? {
                context.prefix.push(&partial);
            }
            (history, prefix) = request.apply_units(plan)?;
            kept = convert::kept(messages, &facts, plan)?;
            context.kept_id = convert::id_at(messages, plan.first_kept_index);
        }
        Ok(Job {
            request,
            facts,
            plan,
            history,
            prefix,
            context,
            kept,
            draft_only: false,
        })
    }

    /// The summary requests a generator summarizer would send for `plan` (`null` for an
    /// application summarizer).
    pub(super) fn summarizer_input(
        &self,
        request: &JsRequest,
        plan: Option<&Plan>,
    ) -> Result<JsValue> {
        let JsSummarizer::Generator(generator) = &self.core.summarizer().summarizer else {
            return Ok(JsValue::NULL);
        };
        let Some(plan) = plan else {
            return Ok(Array::new().into());
        };
        Ok(prompts_to_js(generator, request.prompts(generator, plan)?))
    }

    /// The core draft of the job's plan (`None` for a no-op): summarized, reviewed, not
    /// applied. The one wait of every apply, draft and manager rewrite (`compactor.apply`,
    /// `compact`, `draft`, the manager's maintenance, recovery and ahead-of-time draft): each
    /// commits it or hands it back itself, so the module holds one copy of the summary's
    /// state machine.
    pub(super) fn draft_of<'a>(
        &'a self,
        job: &'a Job,
    ) -> LocalFuture<'a, Result<Option<crate::draft::Draft>>> {
        Box::pin(async move {
            let Some(plan) = &job.plan else {
                return Ok(None);
            };
            let input = job.input();
            let draft = self.core.draft_with_facts(input, plan, &job.context);
            draft.await.map(Some)
        })
    }

    /// Applies the job (its draft committed) and builds the `{ summary, messages, record }`
    /// object, or (a draft job) the draft object.
    pub(super) async fn run(&self, job: Job) -> Result<JsValue> {
        let draft = self.draft_of(&job).await?;
        job.finish(draft)
    }
}

impl Job {
    /// What the job resolves to once its draft (`None` for a no-op) is made: the draft
    /// object (a draft job), or the draft committed as `{ summary, messages, record }`.
    fn finish(&self, draft: Option<crate::draft::Draft>) -> Result<JsValue> {
        if self.draft_only {
            let id = self.context.kept_id.clone();
            return Ok(draft.map_or(JsValue::NULL, |draft| convert::draft_to_js(&draft, id)));
        }
        let messages = &self.request.messages;
        Ok(match self.applied(draft)? {
            None => convert::outcome(
                &self.request.summary,
                messages.slice(0, messages.length()),
                None,
            ),
            Some(applied) => {
                convert::outcome(&applied.summary, self.kept.clone(), Some(&applied.record))
            }
        })
    }

    /// The job's `draft` committed onto its request, as the core's apply commits it (`None`
    /// for a no-op).
    pub(super) fn applied(&self, draft: Option<crate::draft::Draft>) -> Result<Option<Applied>> {
        let Some(draft) = draft else {
            return Ok(None);
        };
        crate::apply::commit_with_facts(self.input().commit(), &draft).map(Some)
    }

    /// What the core's apply and draft read of this job.
    fn input(&self) -> ApplyInput<'_> {
        ApplyInput {
            facts: &self.facts,
            summary: &self.request.summary,
            history: &self.history,
            turn_prefix: &self.prefix,
            require_reduction: self.request.require_reduction,
            estimator: &self.request.estimator,
            focus: self.request.focus.as_deref(),
        }
    }
}

/// Summary prompts as `{ purpose, systemPrompt, prompt, chunk? }` objects
/// ([`crate::out::prompts`]).
fn prompts_to_js(
    generator: &GeneratorSummarizer<JsGenerator, JsSleeper>,
    prompts: Vec<(Purpose, String)>,
) -> JsValue {
    // One instruction for every request (no request built per prompt to read it).
    let system = JsValue::from_str(generator.system_instruction());
    let texts = prompts
        .iter()
        .map(|(_, prompt)| convert::long_string(prompt));
    let slots: Vec<JsValue> = std::iter::once(system).chain(texts).collect();
    let purposes: Vec<Purpose> = prompts.iter().map(|(purpose, _)| *purpose).collect();
    convert::out(&slots, |w| crate::out::prompts(w, &purposes))
}
