//! What a plan or a compaction is asked about: the conversation state and how strictly to act.

use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts, estimator_failed};
use crate::message::{Message, ToolDefinition};
use crate::report::Report;
use crate::token::{Estimator, Heuristic};
use crate::window::ProviderCompaction;

static DEFAULT_ESTIMATOR: Heuristic = Heuristic::new();

/// The conversation state being compacted, the estimate's inputs, and the policy for this call.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// The system prompt (counted, never cut).
    pub system_prompt: &'a str,
    /// The current summary ("" when there is none yet).
    pub summary: &'a str,
    /// The raw messages after the summary.
    pub messages: &'a [Message],
    /// Tool definitions, counted in the estimate.
    pub tools: &'a [ToolDefinition],
    /// The input budget the trigger ratio multiplies; `None` disables threshold planning.
    pub input_token_budget: Option<u64>,
    /// Bypass the threshold and require a strict estimate decrease.
    pub require_reduction: bool,
    /// Drives every estimate of this request.
    pub estimator: &'a dyn Estimator,
    /// What the provider counted for earlier requests this one extends (anchoring and
    /// calibration, [`crate::anchor`]); empty: estimate locally.
    pub reports: &'a [Report],
    /// What the host asks a summary made for this request to focus on (added to the summary
    /// prompt); `None`: nothing in particular.
    pub focus: Option<&'a str>,
    /// How a summary the provider made on its side is read ([`ProviderCompaction`]; the
    /// default: it starts the provider's window).
    pub provider_compaction: ProviderCompaction,
}

impl<'a> Request<'a> {
    /// A request for `messages` with no system prompt, summary, tools or budget, estimated by the
    /// default [`Heuristic`].
    pub fn new(messages: &'a [Message]) -> Self {
        Request {
            system_prompt: "",
            summary: "",
            messages,
            tools: &[],
            input_token_budget: None,
            require_reduction: false,
            estimator: &DEFAULT_ESTIMATOR,
            reports: &[],
            focus: None,
            provider_compaction: ProviderCompaction::Window,
        }
    }

    /// The planning options of this request.
    pub fn options(&self) -> PlanOptions {
        PlanOptions {
            input_token_budget: self.input_token_budget,
            require_reduction: self.require_reduction,
        }
    }
}

impl std::fmt::Debug for Request<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("system_prompt", &self.system_prompt)
            .field("summary", &self.summary)
            .field("messages", &self.messages.len())
            .field("tools", &self.tools.len())
            .field("input_token_budget", &self.input_token_budget)
            .field("require_reduction", &self.require_reduction)
            .field("reports", &self.reports)
            .field("provider_compaction", &self.provider_compaction)
            .finish_non_exhaustive()
    }
}

/// The part of a request that steers planning, for callers that plan from kept facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlanOptions {
    /// See [`Request::input_token_budget`].
    pub input_token_budget: Option<u64>,
    /// See [`Request::require_reduction`].
    pub require_reduction: bool,
}

// Here rather than in `crate::facts`: the facts of a request are calibrated by its reports
// (`crate::anchor`), which itself works on facts.
impl RequestFacts {
    /// Computes the facts of every part of `request`.
    pub fn of(request: &Request) -> Result<Self> {
        let estimator = request.estimator;
        let mut facts = Self::fixed(
            request.system_prompt,
            request.summary,
            request.tools,
            estimator,
        )?;
        facts.provider_compaction = request.provider_compaction;
        facts.messages = request
            .messages
            .iter()
            .enumerate()
            .map(|(i, message)| {
                MessageFacts::of(message, estimator)
                    .map_err(|e| estimator_failed(&text!("messages[", i, "]"), e))
            })
            .collect::<Result<_>>()?;
        if request.reports.is_empty() {
            facts.open_window();
        } else {
            crate::anchor::calibrate(&mut facts, request.reports);
        }
        Ok(facts)
    }
}
