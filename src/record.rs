//! What a compaction did, as the host stores it: the [`Record`]. Plain data, shared by
//! `crate::apply` (a summary) and `crate::clearing` (a clearing).

use crate::summarizer::Usage;

/// What a successful compaction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The new summary.
    pub summary: String,
    /// Where the retained suffix starts in the request's messages.
    pub first_kept_index: usize,
    /// The request's estimate before compaction.
    pub estimate_before: u64,
    /// The estimate of the compacted state, by the same estimator.
    pub estimate_after: u64,
    /// The summarizer's usage (both calls of a split turn added up).
    pub usage: Option<Usage>,
    /// Whether this is no summary but a trim of the newest tool result (overflow recovery with
    /// clearing on, [`crate::clearing::trim`]); the summary is then the previous one.
    pub trimmed: bool,
}
