//! The yes/no facts of one message, in one byte.

/// The yes/no facts of one message in one byte (see [`MessageFacts`]'s accessors).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct MessageFlags(u8);

impl MessageFlags {
    /// No flag set.
    pub const NONE: MessageFlags = MessageFlags(0);
    /// A turn starts at the message (a user message).
    pub const STARTS_TURN: MessageFlags = MessageFlags(1);
    /// An assistant attempt that failed or was aborted.
    pub const FAILED: MessageFlags = MessageFlags(2);
    /// The host pinned the message.
    pub const PINNED: MessageFlags = MessageFlags(4);
    /// The message holds a summary the provider made of everything before it.
    pub const PROVIDER_SUMMARY: MessageFlags = MessageFlags(8);
    const NAMES: [(MessageFlags, &'static str); 4] = [
        (MessageFlags::STARTS_TURN, "starts_turn"),
        (MessageFlags::FAILED, "failed"),
        (MessageFlags::PINNED, "pinned"),
        (MessageFlags::PROVIDER_SUMMARY, "provider_summary"),
    ];

    /// Whether every flag of `other` is set.
    pub fn contains(self, other: MessageFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Sets the flags of `other` when `on`, clears them otherwise.
    pub fn set(&mut self, other: MessageFlags, on: bool) {
        if on {
            self.0 |= other.0;
        } else {
            self.0 &= !other.0;
        }
    }

    /// These flags with those of `other` set when `on`.
    pub fn with(mut self, other: MessageFlags, on: bool) -> MessageFlags {
        self.set(other, on);
        self
    }
}

impl std::ops::BitOr for MessageFlags {
    type Output = MessageFlags;

    fn bitor(self, other: MessageFlags) -> MessageFlags {
        MessageFlags(self.0 | other.0)
    }
}

impl std::fmt::Debug for MessageFlags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = MessageFlags::NAMES
            .iter()
            .filter(|(flag, _)| self.contains(*flag));
        f.debug_set().entries(set.map(|(_, name)| name)).finish()
    }
}
