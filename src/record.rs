//! What a compaction did, as the host stores it: the [`Record`] and its [`Receipt`]. Plain
//! data, shared by `crate::apply` (a summary) and `crate::clearing` (a clearing).

use crate::draft::Digest;
use crate::summarizer::Usage;

/// What a successful compaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The new summary.
    pub summary: String,
    /// Where the retained suffix starts in the request's messages.
    pub first_kept_index: usize,
    /// The part of message `first_kept_index` it starts at (0: the whole message; a later
    /// step of an AI SDK UIMessage otherwise).
    pub first_kept_part: usize,
    /// The request's estimate before compaction.
    pub estimate_before: u64,
    /// The estimate of the compacted state, by the same estimator.
    pub estimate_after: u64,
    /// The summarizer's usage (both calls of a split turn added up).
    pub usage: Option<Usage>,
    /// Whether this is no summary but a trim of the newest tool result (overflow recovery with
    /// clearing on, [`crate::clearing::trim`]); the summary is then the previous one.
    pub trimmed: bool,
    /// Exactly what the compaction covered.
    pub receipt: Receipt,
}

/// What a compaction covered, so that an application can show it ("these 214 messages were
/// summarized") and a store can check it later ([`Receipt::digest`]). Indices are the
/// request's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Receipt {
    /// How many messages the summary covers: those before the cut that are not pinned, and
    /// the message the cut falls inside (its first steps), if any.
    pub summarized_messages: usize,
    /// Their estimated tokens (of a message cut inside, the steps before the cut).
    pub summarized_tokens: u64,
    /// The digest of what the summary covers ([`Digest::of_summarized`]); `None` when nothing
    /// was summarized (a clearing or a trim).
    pub digest: Option<Digest>,
    /// The pinned messages before the cut, kept after the summary.
    pub pinned: Vec<usize>,
    /// The messages whose tool results (or calls' arguments) a clearing rewrote, or that a
    /// trim rewrote.
    pub cleared: Vec<usize>,
}

impl Receipt {
    /// A receipt that covers nothing.
    pub const NONE: Receipt = Receipt {
        summarized_messages: 0,
        summarized_tokens: 0,
        digest: None,
        pinned: Vec::new(),
        cleared: Vec::new(),
    };
}
