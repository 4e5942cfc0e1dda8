//! The `providerCompaction` mode: what a provider's own compaction means for the estimate and
//! the cut (the rules that follow from it are in `window`).

use crate::error::{Error, Result};

/// What a provider's own compaction means for the estimate and the cut (`providerCompaction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProviderCompaction {
    /// The newest provider summary starts the request: the messages before it count nothing
    /// (the system and pinned ones still count: they are sent), and a cut falls after it.
    #[default]
    Window,
    /// Every message counts and a cut may fall anywhere, as if there were none: for a provider
    /// that reads what came before its summary.
    Ignore,
}

impl ProviderCompaction {
    /// The mode named `name` (`"window"` or `"ignore"`); `place` names the option in errors.
    pub fn from_name(name: &str, place: &str) -> Result<Self> {
        match name {
            "window" => Ok(ProviderCompaction::Window),
            "ignore" => Ok(ProviderCompaction::Ignore),
            other => Err(Error::invalid_request(text!(
                place,
                ": unknown mode \"",
                other,
                "\" (expected \"window\" or \"ignore\")"
            ))),
        }
    }
}
