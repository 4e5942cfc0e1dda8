//! The provider's window. A summary the provider made on its side (an Anthropic `compaction`
//! block, a Responses `compaction` item, their AI SDK forms) stands for everything before it,
//! and the provider reads nothing before the newest one: Anthropic drops it from the request,
//! and a Responses window starts at the item. So the messages before it count nothing, and a
//! cut of ours falls after it (`docs/behaviour.md`, "Provider compaction").

use crate::facts::{MessageFacts, RequestFacts};

pub use crate::provider_compaction::ProviderCompaction;

/// The first message the provider reads: the newest holding a provider summary, or 0 (in
/// positions when `messages` are positions).
pub(crate) fn window_start(messages: &[MessageFacts], mode: ProviderCompaction) -> usize {
    match mode {
        ProviderCompaction::Ignore => 0,
        ProviderCompaction::Window => messages
            .iter()
            .rposition(|f| f.provider_summary())
            .unwrap_or(0),
    }
}

/// Whether message `f`, before the window, counts: only the system and pinned messages do
/// (they are kept and sent; the AI SDK sends system messages as the system prompt).
pub(crate) fn counts_before_window(f: &MessageFacts) -> bool {
    f.is_pinned()
}

/// Sets the tokens of a message before the window to 0 (each step's too).
pub(crate) fn close(f: &mut MessageFacts) {
    f.tokens = 0;
    for step in &mut f.steps {
        step.tokens = 0;
    }
}

impl RequestFacts {
    /// Where the provider's window starts among the messages: the newest message holding a
    /// provider summary (0 when none does, or with [`ProviderCompaction::Ignore`]).
    pub fn window_start(&self) -> usize {
        window_start(&self.messages, self.provider_compaction)
    }

    /// Leaves out of the estimate what the provider does not read: every message before the
    /// window counts 0 but the system and pinned ones. Run before calibrating, so that what the
    /// provider reported compares with what it reads. Idempotent.
    pub fn open_window(&mut self) {
        let start = self.window_start();
        for f in self.messages.get_mut(..start).unwrap_or(&mut []) {
            if !counts_before_window(f) {
                close(f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Role;

    fn message(tokens: u64, role: Role, provider_summary: bool) -> MessageFacts {
        MessageFacts {
            tokens,
            role,
            flags: crate::facts::MessageFlags::NONE.with(
                crate::facts::MessageFlags::PROVIDER_SUMMARY,
                provider_summary,
            ),
            ..MessageFacts::default()
        }
    }

    #[test]
    fn the_messages_before_the_newest_provider_summary_count_nothing_but_system_ones() {
        let mut facts = RequestFacts {
            messages: vec![
                message(5, Role::System, false),
                message(10, Role::User, false),
                message(20, Role::Assistant, true),
                message(30, Role::User, false),
                message(40, Role::Assistant, true),
                message(50, Role::User, false),
            ],
            ..RequestFacts::default()
        };
        assert_eq!(facts.window_start(), 4);
        facts.open_window();
        let tokens: Vec<u64> = facts.messages.iter().map(|f| f.tokens).collect();
        assert_eq!(tokens, [5, 0, 0, 0, 40, 50]);
        // Ignored, every message counts.
        let mut all = RequestFacts {
            provider_compaction: ProviderCompaction::Ignore,
            messages: vec![
                message(10, Role::User, false),
                message(20, Role::Assistant, true),
            ],
            ..RequestFacts::default()
        };
        all.open_window();
        assert_eq!(all.total(), 30);
        assert_eq!(all.window_start(), 0);
    }

    #[test]
    fn modes_are_named() {
        assert_eq!(
            ProviderCompaction::from_name("ignore", "providerCompaction").ok(),
            Some(ProviderCompaction::Ignore)
        );
        let error = ProviderCompaction::from_name("drop", "providerCompaction").unwrap_err();
        assert!(error.to_string().contains("providerCompaction"), "{error}");
    }
}
