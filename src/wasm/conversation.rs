//! The exported `Conversation`: a history the host appends to, planned in O(kept messages).
//! Made by `compactor.conversation({ format, estimator })`; each message crosses into wasm
//! once, when it is appended, and the core `Ledger` keeps what planning needs. The usage on
//! the latest assistant messages is read as they are appended and calibrates the plan, as
//! `compactor.plan` reads it from the same messages.

use std::rc::Rc;

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::engine::Engine;
use super::estimator::AnyEstimator;
use super::fields::{field, optional_string};
use super::host;
use super::pinned::All;
use super::walk;
use super::{clearing, convert};
use crate::anchor::Report;
use crate::apply::CommitInput;
use crate::clearing::ClearingPolicy;
use crate::compactor::{LedgerDecision, Planned};
use crate::draft::Draft;
use crate::error::{Error, Result};
use crate::facts::{MessageFacts, RequestFacts};
use crate::formats::Format;
use crate::ledger::Ledger;
use crate::plan::Plan;
use crate::reported::Carried;
use crate::request::PlanOptions;
use crate::window::ProviderCompaction;

/// The system prompt, summary and tools the fixed facts were computed for.
struct FixedKey {
    system_prompt: String,
    summary: String,
    tools: JsValue,
}

/// A growing history and its facts.
#[wasm_bindgen(js_name = Conversation)]
pub struct JsConversation {
    engine: Rc<Engine>,
    format: Format,
    estimator: AnyEstimator,
    ledger: Ledger,
    messages: Array,
    fixed: Option<(FixedKey, RequestFacts)>,
    /// What the latest assistant messages report.
    usage: Carried,
    /// Its `providerCompaction`.
    provider_compaction: ProviderCompaction,
}

/// Messages read for appending: each with its facts, and the usage the latest assistant ones
/// among them carry.
struct Read {
    messages: Vec<(JsValue, MessageFacts)>,
    usage: Vec<Option<Report>>,
}

impl JsConversation {
    /// A conversation for `engine` with `{ format, estimator, messages, providerCompaction }`.
    pub(super) fn new(engine: Rc<Engine>, options: &JsValue) -> Result<JsConversation> {
        let format =
            crate::options::format(&field(options, "format", "options")?, "options.format")?;
        let provider_compaction =
            crate::options::provider_compaction(&field(options, "providerCompaction", "options")?)?;
        let mut history = JsConversation {
            engine,
            format,
            estimator: AnyEstimator::from_js(&field(options, "estimator", "options")?)?,
            ledger: Ledger::with_mode(provider_compaction),
            messages: Array::new(),
            fixed: None,
            usage: Carried::default(),
            provider_compaction,
        };
        let pinned = field(options, "pinned", "options")?;
        history.append_all(&field(options, "messages", "options")?, &pinned)?;
        Ok(history)
    }

    /// Appends a message or an array of them, those `pinned` names pinned; nothing is
    /// appended when one is invalid.
    fn append_all(&mut self, value: &JsValue, pinned: &JsValue) -> Result<()> {
        let read = self.read(value, self.ledger.len(), pinned)?;
        self.push(read);
        Ok(())
    }

    /// Appends what [`JsHistory::read`] read.
    fn push(&mut self, read: Read) {
        for (message, facts) in read.messages {
            self.messages.push(&message);
            self.ledger.push(facts);
        }
        self.usage.extend(read.usage);
    }

    /// Reads a message or an array of them, numbered from `start` in errors, with the usage
    /// of the latest assistant ones; `pinned` (the `pinned` option: indices into them, a
    /// predicate, or `true` for all) pins some.
    fn read(&self, value: &JsValue, start: usize, pinned: &JsValue) -> Result<Read> {
        if value.is_undefined() || value.is_null() {
            return Ok(Read {
                messages: Vec::new(),
                usage: Vec::new(),
            });
        }
        // A copy of the caller's array (or the one message), read once.
        let incoming = match host::list(value, "messages")? {
            Some(list) => list,
            None => Array::of1(value),
        };
        let pins = super::pinned::read(pinned, Some(&incoming), "options.pinned", All::Allowed)?;
        let mut messages = self.read_messages(&incoming, start)?;
        for &k in &pins {
            if let Some((_, facts)) = messages.get_mut(k as usize) {
                facts.set_pinned(true);
            }
        }
        let usage = self.usage_of(&incoming, &messages, start)?;
        Ok(Read { messages, usage })
    }

    /// The reports the latest assistant messages of `messages` (read from
    /// `incoming`, numbered from `start`) carry, oldest first.
    fn usage_of(
        &self,
        incoming: &Array,
        messages: &[(JsValue, MessageFacts)],
        start: usize,
    ) -> Result<Vec<Option<Report>>> {
        let key = self.format.usage_key();
        let keyed = |k: usize| {
            let path = text!("messages[", start + k, "]");
            // A throwing getter is walked too, so that it fails as `compactor.plan` fails.
            let absent = |m| matches!(field(m, key, &path), Ok(v) if v.is_undefined());
            messages.get(k).is_some_and(|(m, _)| !absent(m))
        };
        let usages = |keyed: &[u32]| walk::usages(incoming, keyed, start, self.format);
        Carried::appended(messages.iter().map(|(_, f)| f), start, keyed, usages)
    }

    /// Reads the messages of `incoming`, numbered from `start` in errors.
    fn read_messages(
        &self,
        incoming: &Array,
        start: usize,
    ) -> Result<Vec<(JsValue, MessageFacts)>> {
        // A long history (the first call, or a reset) is read together, as a cold plan is.
        let mut walked: Vec<Option<MessageFacts>> = Vec::new();
        if incoming.length() as usize >= walk::BULK {
            let indices: Vec<u32> = (0..incoming.length()).collect();
            walked.resize(indices.len(), None);
            let estimator = &self.estimator;
            walk::facts(
                incoming,
                &indices,
                start,
                self.format,
                estimator,
                &mut |k, read| {
                    if let Some(slot) = walked.get_mut(k) {
                        *slot = Some(read);
                    }
                },
            )?;
        }
        incoming
            .iter()
            .enumerate()
            .map(|(k, message)| {
                if let Some(facts) = walked.get_mut(k).and_then(Option::take) {
                    return Ok((message, facts));
                }
                let facts =
                    convert::message_facts(&message, start + k, self.format, &self.estimator)?;
                Ok((message, facts))
            })
            .collect()
    }

    /// The facts of the parts that are never cut, recomputed only when they change (the same
    /// strings and the same tools array).
    fn fixed(&mut self, options: &JsValue) -> Result<&RequestFacts> {
        let key = FixedKey {
            system_prompt: crate::options::system_prompt(&field(
                options,
                "systemPrompt",
                "options",
            )?)?,
            summary: optional_string(&field(options, "summary", "options")?, "summary")?
                .unwrap_or_default(),
            tools: field(options, "tools", "options")?,
        };
        let same = self.fixed.as_ref().is_some_and(|(old, _)| {
            old.system_prompt == key.system_prompt
                && old.summary == key.summary
                && Object::is(&old.tools, &key.tools)
        });
        if !same {
            let tools = crate::options::tools(&key.tools, "tools")?.unwrap_or_default();
            let facts =
                RequestFacts::fixed(&key.system_prompt, &key.summary, &tools, &self.estimator)?;
            self.fixed = Some((key, facts));
        }
        self.fixed
            .as_ref()
            .map(|(_, facts)| facts)
            .ok_or_else(|| Error::invalid_request("conversation: no fixed facts"))
    }
}

impl JsConversation {
    /// [`JsConversation::plan`]: what the compactor decides for this history (clear first,
    /// else summarize; with `options.pending`, what maintenance does with that draft), as a
    /// plan object or `null`.
    fn plan_js(&mut self, options: &JsValue) -> Result<JsValue> {
        let fixed = self.fixed(options)?.clone();
        let reports = self.usage.reports();
        let fixed = self.ledger.calibrate(&fixed, &reports);
        let pending = pending_option(options)?;
        let options = crate::options::plan_options(options, "options")?;
        if !(pending.is_undefined() || pending.is_null()) {
            let draft = crate::options::draft(&pending)?;
            return match self.pending_plan(&fixed, options, &draft)? {
                Some(plan) => convert::plan_to_js(&plan, &self.messages, self.ledger.facts()),
                None => Ok(JsValue::NULL),
            };
        }
        let (messages, format, estimator) = (&self.messages, self.format, &self.estimator);
        let mut find = |policy: &ClearingPolicy, facts: &RequestFacts| {
            clearing::find(messages, &facts.messages, format, estimator, policy, false)
        };
        let ledger = &self.ledger;
        match (self.engine.core).decide_ledger(&fixed, ledger, options, estimator, &mut find)? {
            LedgerDecision::Summarize(None) => Ok(JsValue::NULL),
            LedgerDecision::Summarize(Some(plan)) => {
                convert::plan_to_js(&plan, messages, ledger.facts())
            }
            LedgerDecision::Clear(decided) => {
                let (facts, cleared) = &*decided;
                // ChatPreview reads a clear plan's results, not its rewritten messages: the
                // preview module (without `plan-api`) leaves them out, and the rewrite with them.
                let rewritten = if cfg!(feature = "plan-api") {
                    Some(clearing::rewritten(messages, format, cleared)?)
                } else {
                    None
                };
                Ok(clearing::plan_to_js(facts, cleared, rewritten))
            }
        }
    }

    /// The facts of every message, with the fixed parts `fixed`.
    fn facts(&self, fixed: &RequestFacts) -> RequestFacts {
        RequestFacts {
            messages: self.ledger.facts().to_vec(),
            ..fixed.clone()
        }
    }

    /// The plan with pending draft `draft` (its cut in this history's terms; the caller
    /// checked that it covers the history): what maintenance does, the draft committed and
    /// what is left planned again ([`crate::pending::plan`]), or `None` below the threshold.
    /// `fixed` are the calibrated fixed facts.
    fn pending_plan(
        &self,
        fixed: &RequestFacts,
        options: PlanOptions,
        draft: &Draft,
    ) -> Result<Option<Plan>> {
        let budget = options.input_token_budget.ok_or_else(|| {
            Error::invalid_request(
                "options.pending: a plan with a pending draft needs options.inputTokenBudget",
            )
        })?;
        let (engine, format, estimator) = (&self.engine, self.format, &self.estimator);
        let ratio = engine.core.trigger_ratio();
        // Below the threshold the draft is not looked at: no copy of every message's facts.
        if !crate::pending::due(self.ledger.total(fixed), budget, ratio) {
            return Ok(None);
        }
        let facts = self.facts(fixed);
        let options = PlanOptions {
            input_token_budget: Some(budget),
            require_reduction: false,
        };
        // What is left, decided as maintenance decides it: planned through a ledger of its
        // facts; with clearing, over the messages the commit keeps.
        let decide = |left: &RequestFacts| {
            let mut ledger = Ledger::with_mode(left.provider_compaction);
            left.messages.iter().for_each(|f| ledger.push(f.clone()));
            // The kept messages are made only when clearing reads them.
            let mut find = |policy: &ClearingPolicy, of: &RequestFacts| {
                let cut =
                    crate::pending::cut_plan(&facts, draft.first_kept_index, draft.first_kept_part);
                let kept = convert::kept(&self.messages, &facts, &cut)?;
                clearing::find(&kept, &of.messages, format, estimator, policy, false)
            };
            let core = &engine.core;
            Ok(
                match core.decide_ledger(left, &ledger, options, estimator, &mut find)? {
                    LedgerDecision::Summarize(plan) => plan.map(Planned::Summarize),
                    LedgerDecision::Clear(decided) => Some(Planned::Clear(decided.1)),
                },
            )
        };
        let input = CommitInput {
            facts: &facts,
            require_reduction: false,
            estimator,
        };
        crate::pending::plan(input, draft, budget, ratio, decide)
    }
}

#[wasm_bindgen(js_class = Conversation)]
impl JsConversation {
    /// Appends a message or an array of messages (in the conversation's format); returns the
    /// new length. Messages are treated as immutable once appended.
    /// `options.pinned` pins some of them (indices into those given, a predicate
    /// `(message, index) => boolean`, or `true` for all): they are never summarized.
    pub fn append(&mut self, messages: JsValue, options: JsValue) -> Result<f64, JsValue> {
        let pinned = pinned_option(&options)?;
        self.append_all(&messages, &pinned)?;
        Ok(self.ledger.len() as f64)
    }

    /// Starts over with `messages` (after a compaction: the kept ones), `options.pinned`
    /// pinning some as [`JsConversation::append`] does; unchanged when one is invalid.
    pub fn reset(&mut self, messages: JsValue, options: JsValue) -> Result<(), JsValue> {
        let pinned = pinned_option(&options)?;
        let read = self.read(&messages, 0, &pinned)?;
        self.ledger = Ledger::with_mode(self.provider_compaction);
        self.messages = Array::new();
        self.usage = Carried::default();
        self.push(read);
        Ok(())
    }

    /// The plan for this history with `{ systemPrompt, summary, tools, inputTokenBudget,
    /// requireReduction }`, or `null`: the same plan `compactor.plan` gives for these messages
    /// (calibrated to the usage they carry, as it is; with the compactor's clearing on, a
    /// clear plan when clearing alone is enough).
    pub fn plan(&mut self, options: JsValue) -> Result<JsValue, JsValue> {
        self.plan_js(&options).map_err(JsValue::from)
    }

    /// The messages appended so far, in order (the conversation's own array: do not change it).
    #[wasm_bindgen(getter)]
    pub fn messages(&self) -> Array {
        self.messages.clone()
    }

    /// How many messages. (`ChatPreview` reads neither this nor `format`: the preview module,
    /// without `plan-api`, leaves both out.)
    #[cfg(feature = "plan-api")]
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> f64 {
        self.ledger.len() as f64
    }

    /// The conversation's format.
    #[cfg(feature = "plan-api")]
    #[wasm_bindgen(getter)]
    pub fn format(&self) -> String {
        self.format.name().to_owned()
    }
}

thread_local! {
    /// The key `pending`, made once: `plan` runs on every keystroke, and a key string made
    /// for each call cost a tenth of a plan below the threshold.
    static PENDING: JsValue = JsValue::from_str("pending");
}

/// `options.pending` of `plan` (`undefined` when `options` is no object), a throwing getter an
/// error naming it, as [`field`] reads.
fn pending_option(options: &JsValue) -> Result<JsValue> {
    if !options.is_object() {
        return Ok(JsValue::UNDEFINED);
    }
    PENDING
        .with(|key| js_sys::Reflect::get(options, key))
        .map_err(|e| Error::InvalidRequest {
            message: text!(
                "options.pending: reading it threw: ",
                super::error::describe(&e)
            ),
            source: Some(Box::new(super::error::HostError::new(e))),
        })
}

/// The `pinned` of `append` / `reset` options (`undefined` when none are given).
fn pinned_option(options: &JsValue) -> Result<JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(JsValue::UNDEFINED);
    }
    field(options, "pinned", "options")
}
