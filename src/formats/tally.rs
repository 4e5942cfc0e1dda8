//! The sink that computes a host message's planning facts with the default heuristic, as
//! [`MessageFacts::of_host`] computes them from its units, scoring texts where they are in the
//! JSON (escapes and all) instead of building them.

use std::borrow::Cow;

use super::count::compact_score;
use super::sink::{Args, Sink, Text, Unit};
use crate::facts::{MessageFacts, Step};
use crate::ids::Ids;
use crate::message::{Role, StopReason};
use crate::token::{Estimator, Heuristic, rounded, score};
use context_compaction_scan::{Kind, Val, score_escaped, unescape};

/// Computes the facts of one host message.
pub(crate) struct Tally {
    heuristic: Heuristic,
    facts: MessageFacts,
    units: usize,
    user: bool,
    assistant: bool,
    system: bool,
    /// Whether the unit that started last is an assistant one (which drops images).
    in_assistant: bool,
}

impl Tally {
    /// A tally with `heuristic`.
    pub(crate) fn new(heuristic: Heuristic) -> Tally {
        Tally {
            heuristic,
            facts: MessageFacts::default(),
            units: 0,
            user: false,
            assistant: false,
            system: false,
            in_assistant: false,
        }
    }

    /// The facts read, with role and turn start decided from the units as
    /// [`crate::message::HostMessage::of_units`] decides them.
    pub(crate) fn finish(mut self) -> MessageFacts {
        let facts = &mut self.facts;
        let starts_turn;
        (facts.role, starts_turn) = if self.system {
            (Role::System, false)
        } else if self.assistant {
            (Role::Assistant, false)
        } else if self.user || self.units == 0 {
            (Role::User, self.user)
        } else {
            (Role::ToolResult, false)
        };
        facts.set_starts_turn(starts_turn);
        self.facts
    }

    /// Adds `tokens` to the message and to the step it is in.
    fn add(&mut self, tokens: u64) {
        self.facts.tokens += tokens;
        if let Some(step) = self.facts.steps.last_mut() {
            step.tokens += tokens;
        }
    }

    fn tokens(&self, text: &Text) -> u64 {
        match text {
            Text::Str(value) => string_tokens(*value),
            Text::Json(value) => self.json_tokens(*value),
            Text::Value(Some(value)) if value.kind() == Kind::String => string_tokens(*value),
            Text::Value(value) => self.json_tokens(*value),
            Text::Made(text) => self.heuristic.count(text),
        }
    }

    /// The tokens of a value written as compact JSON (`null` when missing).
    fn json_tokens(&self, value: Option<Val>) -> u64 {
        match value {
            None => self.heuristic.count("null"),
            Some(value) => match compact_score(value) {
                Some(score) => rounded(score),
                // Not known without writing it (an object with a repeated key): written once.
                None => self
                    .heuristic
                    .count(super::json::value_json(Some(value)).as_str()),
            },
        }
    }
}

/// The tokens of a JSON string's value, as `Heuristic::count` counts it, without building it
/// when the escapes allow.
fn string_tokens(value: Val) -> u64 {
    let raw = value.raw_bytes();
    if value.kind() != Kind::String || raw.is_empty() {
        return 0;
    }
    let score = match value.escaped() {
        false => score(raw),
        true => score_escaped(raw).unwrap_or_else(|| score(unescape(value.raw()).as_bytes())),
    };
    rounded(score)
}

/// Adds an id (one allocation a message: [`Ids`]).
fn push_id(ids: &mut Ids, id: Cow<str>) {
    ids.push_str(&id);
}

impl<'a> Sink<'a> for Tally {
    fn pin(&mut self) {
        self.facts.set_pinned(true);
    }

    fn provider_summary(&mut self) {
        self.facts.set_provider_summary(true);
    }

    fn unit(&mut self, unit: Unit<'a>) {
        self.units += 1;
        self.add(self.heuristic.framing_tokens());
        self.in_assistant = false;
        match unit {
            Unit::User => self.user = true,
            Unit::Assistant(stop) => {
                (self.assistant, self.in_assistant) = (true, true);
                if matches!(stop, Some(StopReason::Error | StopReason::Aborted)) {
                    self.facts.set_failed(true);
                }
            }
            Unit::ToolResult { id, .. } => {
                push_id(&mut self.facts.tool_result_ids, id);
                if let Some(step) = self.facts.steps.last_mut() {
                    step.results += 1;
                }
            }
        }
    }

    fn text(&mut self, text: Text<'a>) {
        // As in the units: content outside any unit belongs to none.
        if self.units > 0 {
            self.add(self.tokens(&text));
        }
    }

    fn image(&mut self) {
        if self.units > 0 && !self.in_assistant {
            self.add(self.heuristic.image_tokens());
        }
    }

    fn thinking(&mut self, text: Text<'a>) {
        self.text(text);
    }

    fn opaque(&mut self, text: Text<'a>) {
        self.text(text);
    }

    fn sealed(&mut self, chars: usize) {
        if self.units > 0 {
            self.add(crate::message::sealed_tokens(chars));
        }
    }

    fn call(&mut self, id: Cow<'a, str>, name: Text<'a>, arguments: Args<'a>) {
        let arguments = match arguments {
            Args::Value(value) => self.json_tokens(value),
            #[cfg(any(feature = "openai-chat", feature = "openai-responses"))]
            Args::Held(value) => rounded(super::count::held_arguments_score(value)),
        };
        self.add(self.heuristic.framing_tokens() + self.tokens(&name) + arguments);
        push_id(&mut self.facts.tool_call_ids, id);
        if let Some(step) = self.facts.steps.last_mut() {
            step.calls += 1;
        }
    }

    fn system(&mut self, text: String) {
        self.system = true;
        if !text.is_empty() {
            self.facts.tokens += self.heuristic.count(&text) + self.heuristic.framing_tokens();
        }
    }

    fn step(&mut self, part: usize) {
        self.facts.steps.push(Step {
            part,
            tokens: 0,
            calls: 0,
            results: 0,
        });
    }
}
