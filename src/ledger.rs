//! A history that grows: message facts kept across calls, with what planning needs maintained
//! as messages are appended, so a steady-state plan costs O(kept messages), not O(history).

use std::collections::HashMap;

use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts};
use crate::message::Role;
use crate::plan::{History, Plan, plan_history};
use crate::request::PlanOptions;
use crate::steps::Positions;

/// Facts of a growing history and the tool-call pairing between its messages.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    facts: Vec<MessageFacts>,
    /// The planning positions once a message has steps (`None`: the messages themselves).
    positions: Option<Positions>,
    /// Tool-call id → the latest position that made the call.
    calls: HashMap<String, usize>,
    /// `blocked[c]`: how many call/result pairs a cut at position `c` would separate.
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
        if !facts.steps.is_empty() && self.positions.is_none() {
            // The first message with steps: pairing is redone over positions.
            let before = std::mem::take(&mut self.facts);
            *self = Ledger {
                positions: Some(Positions::default()),
                ..Ledger::new()
            };
            for f in before {
                self.push(f);
            }
        }
        match self.positions.take() {
            None => self.pair(&facts),
            Some(mut positions) => {
                let first = positions.facts.len();
                positions.push(self.facts.len(), &facts);
                for position in positions.facts.get(first..).unwrap_or(&[]) {
                    self.pair(position);
                }
                self.positions = Some(positions);
            }
        }
        self.message_tokens += facts.tokens;
        if facts.role == Role::System {
            self.pinned_tokens += facts.tokens;
        }
        self.facts.push(facts);
    }

    /// Pairs the calls and results of the next position with the earlier ones.
    fn pair(&mut self, facts: &MessageFacts) {
        let j = self.blocked.len().saturating_sub(1);
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
            facts: self.positions.as_ref().map_or(&self.facts, |p| &p.facts),
            blocked: &|cut| self.blocked.get(cut).is_some_and(|n| *n > 0),
            message_tokens: self.message_tokens,
            pinned_tokens: self.pinned_tokens,
        };
        let plan = plan_history(fixed, &history, options, keep_recent_tokens, trigger_ratio)?;
        Ok(match &self.positions {
            Some(positions) => plan.map(|plan| plan.over_messages(positions, &self.facts)),
            None => plan,
        })
    }
}
