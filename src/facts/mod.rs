//! Per-message facts: everything the planner needs about one message, computed once.
//!
//! Planning works on facts alone, so a caller that keeps them can re-plan a grown history by
//! computing facts for the new messages only.

mod flags;
mod steps;
mod tokens;

pub use flags::MessageFlags;
pub use steps::{Step, Steps};
pub(crate) use tokens::{estimator_failed, message_tokens, summary_tokens};
use tokens::{text_message_tokens, tools_tokens};

use crate::error::{BoxError, Result};
use crate::ids::Ids;
use crate::message::{Found, HostMessage, Message, Role, ToolDefinition};
use crate::report::Calibration;
use crate::token::Estimator;

/// The estimate of each of `messages`, in order: one copy of the loop for every plan's
/// `message_tokens` (bench/README.md, Package size).
#[inline(never)]
pub(crate) fn tokens_each(messages: &[MessageFacts]) -> Vec<u64> {
    messages.iter().map(|f| f.tokens).collect()
}

/// The facts of one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageFacts {
    /// Estimated tokens, framing included.
    pub tokens: u64,
    /// The message's role.
    pub role: Role,
    /// What is true of the message, one bit each: [`MessageFacts::starts_turn`],
    /// [`MessageFacts::failed`], [`MessageFacts::pinned`], [`MessageFacts::provider_summary`].
    pub flags: MessageFlags,
    /// Ids of the tool calls this message makes.
    pub tool_call_ids: Ids,
    /// The ids of the tool calls this message answers.
    pub tool_result_ids: Ids,
    /// The steps after the first one, where a cut may fall inside the message (an AI SDK
    /// UIMessage's step boundaries); empty for most formats.
    pub steps: Steps,
}

// A long history keeps the facts of every message: 32 bytes each on 32-bit targets (wasm32),
// which four separate flags had made 40 (a fifth one-byte field past the 8-byte alignment).
#[cfg(target_pointer_width = "32")]
const _: () = assert!(std::mem::size_of::<MessageFacts>() <= 32);

impl Default for MessageFacts {
    /// No tokens, a user message with no calls: what a reader starts from.
    fn default() -> MessageFacts {
        MessageFacts {
            tokens: 0,
            role: Role::User,
            flags: MessageFlags::NONE,
            tool_call_ids: Ids::new(),
            tool_result_ids: Ids::new(),
            steps: Steps::default(),
        }
    }
}

impl MessageFacts {
    /// Whether a turn starts here (a user message).
    pub fn starts_turn(&self) -> bool {
        self.flags.contains(MessageFlags::STARTS_TURN)
    }

    /// Whether this is an assistant attempt that failed or was aborted (the format says so).
    /// The local estimate counts it, as the reference does; request builders drop it (pi-ai
    /// skips such messages), so the provider never counts it and a calibrated estimate leaves
    /// it out ([`crate::anchor`]).
    pub fn failed(&self) -> bool {
        self.flags.contains(MessageFlags::FAILED)
    }

    /// Whether the host pinned the message (its format's marker, `docs/behaviour.md`): never
    /// summarized or cleared, sent as it is after the summary. See [`MessageFacts::is_pinned`].
    pub fn pinned(&self) -> bool {
        self.flags.contains(MessageFlags::PINNED)
    }

    /// Whether it holds a summary the provider made of everything before it (an Anthropic
    /// `compaction` block, a Responses `compaction` item): the provider reads nothing before
    /// the newest such message (`RequestFacts::open_window`).
    pub fn provider_summary(&self) -> bool {
        self.flags.contains(MessageFlags::PROVIDER_SUMMARY)
    }

    /// Sets whether a turn starts here.
    pub fn set_starts_turn(&mut self, on: bool) {
        self.flags.set(MessageFlags::STARTS_TURN, on);
    }

    /// Sets whether this is a failed or aborted attempt.
    pub fn set_failed(&mut self, on: bool) {
        self.flags.set(MessageFlags::FAILED, on);
    }

    /// Sets whether the host pinned the message.
    pub fn set_pinned(&mut self, on: bool) {
        self.flags.set(MessageFlags::PINNED, on);
    }

    /// Sets whether it holds a provider's summary.
    pub fn set_provider_summary(&mut self, on: bool) {
        self.flags.set(MessageFlags::PROVIDER_SUMMARY, on);
    }

    /// What the facts say of the message's pins: their `pinned` flag holds the marker and the
    /// request's indices.
    pub fn found(&self) -> Found {
        Found {
            pinned: self.pinned(),
            system: self.role == Role::System,
        }
    }

    /// Whether the message is never cut: a system message, or one the host pinned.
    pub fn is_pinned(&self) -> bool {
        self.found().is_pinned()
    }

    /// Computes the facts of `message` with `estimator`.
    pub fn of(message: &Message, estimator: &dyn Estimator) -> Result<Self, BoxError> {
        let (role, starts_turn) = match message {
            Message::User(_) => (Role::User, true),
            Message::Assistant(_) => (Role::Assistant, false),
            Message::ToolResult(_) => (Role::ToolResult, false),
        };
        Self::of_parts(
            std::slice::from_ref(message),
            None,
            role,
            starts_turn,
            estimator,
        )
    }

    /// The tokens of the message from part `part` on (`part` 0 or the start of a step).
    pub fn tokens_from(&self, part: usize) -> u64 {
        if part == 0 {
            return self.tokens;
        }
        self.steps
            .iter()
            .filter(|s| s.part >= part)
            .map(|s| s.tokens)
            .sum()
    }

    /// Computes the facts of a host message (any format) with `estimator`.
    pub fn of_host(host: &HostMessage, estimator: &dyn Estimator) -> Result<Self, BoxError> {
        // Each step is counted once, and the message is their sum (a host estimator is called
        // once per text).
        let first_step = host.steps.first().map_or(host.units.len(), |s| s.unit);
        let mut facts = Self::of_parts(
            host.units.get(..first_step).unwrap_or(&host.units),
            host.system.as_deref(),
            host.role,
            host.starts_turn,
            estimator,
        )?;
        for (k, start) in host.steps.iter().enumerate() {
            let end = host.steps.get(k + 1).map_or(host.units.len(), |s| s.unit);
            let units = host.units.get(start.unit..end).unwrap_or(&[]);
            let step = Self::of_parts(units, None, host.role, false, estimator)?;
            facts.steps.push(Step {
                part: start.part,
                tokens: step.tokens,
                calls: step.tool_call_ids.len(),
                results: step.tool_result_ids.len(),
            });
            facts.tokens += step.tokens;
            facts.tool_call_ids.extend(&step.tool_call_ids);
            facts.tool_result_ids.extend(&step.tool_result_ids);
        }
        facts.set_pinned(host.pinned);
        if host.provider_summary {
            facts.set_provider_summary(true);
        }
        Ok(facts)
    }

    fn of_parts(
        units: &[Message],
        system: Option<&str>,
        role: Role,
        starts_turn: bool,
        estimator: &dyn Estimator,
    ) -> Result<Self, BoxError> {
        let mut tokens = match system {
            Some(text) => text_message_tokens(text, estimator)?,
            None => 0,
        };
        for unit in units {
            tokens += message_tokens(unit, estimator)?;
        }
        let flags = MessageFlags::NONE
            .with(MessageFlags::STARTS_TURN, starts_turn)
            .with(
                MessageFlags::FAILED,
                units.iter().any(Message::is_failed_attempt),
            )
            .with(
                MessageFlags::PROVIDER_SUMMARY,
                units.iter().any(Message::is_provider_summary),
            );
        Ok(MessageFacts {
            tokens,
            role,
            flags,
            tool_call_ids: units
                .iter()
                .flat_map(Message::calls)
                .map(|c| c.id.as_str())
                .collect(),
            tool_result_ids: units
                .iter()
                .filter_map(|u| match u {
                    Message::ToolResult(result) => Some(result.tool_call_id.as_str()),
                    _ => None,
                })
                .collect(),
            steps: Steps::default(),
        })
    }
}

/// The facts of a whole request: the fixed parts and every message.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestFacts {
    /// Tokens of the system prompt.
    pub system_prompt: u64,
    /// Tokens of the projected summary message.
    pub summary: u64,
    /// Tokens of all tool definitions.
    pub tools: u64,
    /// Facts of each raw message, in order.
    pub messages: Vec<MessageFacts>,
    /// How the estimates above were calibrated and anchored to what the provider reported
    /// (`crate::anchor`); the default when nothing was reported.
    pub calibration: Calibration,
    /// Whether the messages before the newest provider summary count ([`crate::window`]).
    pub provider_compaction: crate::provider_compaction::ProviderCompaction,
}

impl RequestFacts {
    /// The facts of a request whose messages are host messages of any format.
    pub fn of_hosts(
        system_prompt: &str,
        summary: &str,
        tools: &[ToolDefinition],
        hosts: &[HostMessage],
        estimator: &dyn Estimator,
    ) -> Result<Self> {
        let mut facts = Self::fixed(system_prompt, summary, tools, estimator)?;
        facts.messages = hosts
            .iter()
            .enumerate()
            .map(|(i, host)| {
                MessageFacts::of_host(host, estimator)
                    .map_err(|e| estimator_failed(&text!("messages[", i, "]"), e))
            })
            .collect::<Result<_>>()?;
        Ok(facts)
    }

    /// The facts of the parts that are never cut, with no messages yet (a caller that keeps
    /// message facts fills `messages` itself).
    pub fn fixed(
        system_prompt: &str,
        summary: &str,
        tools: &[ToolDefinition],
        estimator: &dyn Estimator,
    ) -> Result<Self> {
        Ok(RequestFacts {
            system_prompt: text_message_tokens(system_prompt, estimator)
                .map_err(|e| estimator_failed("systemPrompt", e))?,
            summary: summary_tokens(summary, estimator)
                .map_err(|e| estimator_failed("summary", e))?,
            tools: tools_tokens(tools, estimator).map_err(|e| estimator_failed("tools", e))?,
            messages: Vec::new(),
            calibration: Calibration::default(),
            provider_compaction: Default::default(),
        })
    }

    /// The estimate of the whole request: anchored to what the provider reported when it
    /// was (see [`crate::anchor`]).
    pub fn total(&self) -> u64 {
        self.total_parts()
            .saturating_add_signed(self.calibration.adjustment)
    }

    /// The sum of the estimates of the parts (no anchor).
    pub fn total_parts(&self) -> u64 {
        self.system_prompt + self.summary + self.tools + self.message_tokens(0)
    }

    /// The tokens of the pinned messages before `end` (system messages and those the host
    /// pinned), which are never cut.
    pub fn pinned_tokens(&self, end: usize) -> u64 {
        let before = self.messages.get(..end).unwrap_or(&self.messages);
        before
            .iter()
            .filter(|f| f.is_pinned())
            .map(|f| f.tokens)
            .sum()
    }

    /// The tokens of what a cut at part `part` of message `index` keeps (the message from
    /// that part on, and every later message).
    pub fn kept_tokens(&self, index: usize, part: usize) -> u64 {
        let partial = self
            .messages
            .get(index)
            .map_or(0, |f| f.tokens.saturating_sub(f.tokens_from(part)));
        self.message_tokens(index).saturating_sub(partial)
    }

    /// The tokens of messages from `start` on.
    pub fn message_tokens(&self, start: usize) -> u64 {
        self.messages
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .map(|f| f.tokens)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_facts_keep_steps_behind_one_pointer() {
        // A long history holds the facts of every message: with the steps as a `Vec`, 48 bytes
        // each on wasm32 (72 on 64-bit targets); behind one pointer and the flags in one byte,
        // 32 (56). A const assertion holds 32-bit targets to 32.
        let word = std::mem::size_of::<usize>();
        assert!(std::mem::size_of::<MessageFacts>() <= 8 + 6 * word);
        assert_eq!(std::mem::size_of::<MessageFlags>(), 1);
        let mut steps = Steps::default();
        assert!(steps.is_empty());
        let step = Step {
            part: 3,
            tokens: 7,
            calls: 1,
            results: 0,
        };
        steps.push(step);
        for s in &mut steps {
            s.tokens += 1;
        }
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].tokens, 8);
        assert_eq!(Steps::from(Vec::new()), Steps::default());
        assert_eq!(
            format!("{steps:?}"),
            format!("{:?}", vec![Step { tokens: 8, ..step }])
        );
    }

    #[test]
    fn each_flag_is_set_and_cleared_alone() {
        type Get = fn(&MessageFacts) -> bool;
        type Set = fn(&mut MessageFacts, bool);
        let flags: [(Get, Set, &str); 4] = [
            (
                MessageFacts::starts_turn,
                MessageFacts::set_starts_turn,
                "starts_turn",
            ),
            (MessageFacts::failed, MessageFacts::set_failed, "failed"),
            (MessageFacts::pinned, MessageFacts::set_pinned, "pinned"),
            (
                MessageFacts::provider_summary,
                MessageFacts::set_provider_summary,
                "provider_summary",
            ),
        ];
        for (i, (get, set, name)) in flags.iter().enumerate() {
            let mut facts = MessageFacts::default();
            set(&mut facts, true);
            for (j, (other, _, _)) in flags.iter().enumerate() {
                assert_eq!(other(&facts), i == j, "{name} set, flag {j}");
            }
            assert_eq!(format!("{:?}", facts.flags), format!("{{{name:?}}}"));
            // Every other flag on, then this one off: only this one changes.
            for (_, other, _) in &flags {
                other(&mut facts, true);
            }
            set(&mut facts, false);
            assert!(!get(&facts));
            let on = flags.iter().filter(|(other, _, _)| other(&facts)).count();
            assert_eq!(on, 3, "{name} cleared");
        }
        let both = MessageFlags::PINNED | MessageFlags::FAILED;
        assert!(both.contains(MessageFlags::PINNED) && !both.contains(MessageFlags::STARTS_TURN));
        assert_eq!(MessageFlags::default(), MessageFlags::NONE);
    }
}
