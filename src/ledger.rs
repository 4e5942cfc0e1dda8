//! A history that grows: message facts kept across calls, with what planning needs maintained
//! as messages are appended, so a steady-state plan costs O(kept messages), not O(history).

use std::collections::HashMap;

use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts};
use crate::message::Role;
use crate::plan::{History, Plan, plan_history};
use crate::request::PlanOptions;

/// Facts of a growing history and the tool-call pairing between its messages.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    facts: Vec<MessageFacts>,
    /// Tool-call id → index of the latest message that made the call.
    calls: HashMap<String, usize>,
    /// `blocked[c]`: how many call/result pairs a cut at `c` would separate (cuts `0..=len`).
    blocked: Vec<u32>,
    message_tokens: u64,
    pinned_tokens: u64,
}

impl Ledger {
    /// An empty history.
    pub fn new() -> Self {
        Ledger {
            blocked: vec![0],
            ..Ledger::default()
        }
    }

    /// A history of `facts`, in order.
    pub fn from_facts(facts: impl IntoIterator<Item = MessageFacts>) -> Self {
        let mut ledger = Ledger::new();
        for f in facts {
            ledger.push(f);
        }
        ledger
    }

    /// Appends the facts of the next message. A result pairs with the latest earlier call of
    /// its id; results whose call is unknown constrain nothing.
    pub fn push(&mut self, facts: MessageFacts) {
        let j = self.facts.len();
        self.blocked.push(0);
        for id in &facts.tool_result_ids {
            let Some(&i) = self.calls.get(id) else {
                continue;
            };
            // Cuts i+1..=j would keep the result and summarize the call.
            for count in self.blocked.iter_mut().take(j + 1).skip(i + 1) {
                *count += 1;
            }
        }
        for id in &facts.tool_call_ids {
            self.calls.insert(id.clone(), j);
        }
        self.message_tokens += facts.tokens;
        if facts.role == Role::System {
            self.pinned_tokens += facts.tokens;
        }
        self.facts.push(facts);
    }

    /// The facts so far.
    pub fn facts(&self) -> &[MessageFacts] {
        &self.facts
    }

    /// How many messages.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// Plans over this history; `fixed` gives the system prompt, summary and tools (its own
    /// messages are not read). The same plan as [`crate::Compactor::plan`] on the same facts.
    pub(crate) fn plan(
        &self,
        fixed: &RequestFacts,
        options: PlanOptions,
        keep_recent_tokens: u64,
        trigger_ratio: f64,
    ) -> Result<Option<Plan>> {
        let history = History {
            facts: &self.facts,
            blocked: &|cut| self.blocked.get(cut).is_some_and(|n| *n > 0),
            message_tokens: self.message_tokens,
            pinned_tokens: self.pinned_tokens,
        };
        plan_history(fixed, &history, options, keep_recent_tokens, trigger_ratio)
    }
}
