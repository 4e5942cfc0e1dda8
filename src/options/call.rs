//! The options of one call of a `ContextManager` (`maintain`, `prepareAhead`, `run`) and of a
//! `HeuristicEstimator`; a call's `signal` is the host's to read.

use super::{Got, Host, draft, focus, function, whole};
use crate::draft::Draft;
use crate::error::{Error, Result};
use crate::manager::MaintainOptions;
use crate::token::{DEFAULT_IMAGE_TOKENS, Heuristic};

/// A maintenance call's `{ maxOutputTokens, skillTokens, focus, pending }`, as read.
pub struct MaintainCall<H> {
    /// `maxOutputTokens` (default 0).
    pub max_output_tokens: u64,
    /// `skillTokens` (default 0).
    pub skill_tokens: u64,
    /// `focus`, blank being none.
    pub focus: Option<String>,
    /// `pending`: the draft, and the caller's own object (handed back while it still covers
    /// the state).
    pub pending: Option<(Draft, H)>,
}

impl<H> MaintainCall<H> {
    /// The core manager's options for this call.
    pub fn options(&self) -> MaintainOptions<'_> {
        MaintainOptions {
            max_output_tokens: self.max_output_tokens,
            skill_tokens: self.skill_tokens,
            focus: self.focus.as_deref(),
            pending: self.pending.as_ref().map(|(draft, _)| draft),
        }
    }
}

/// Reads a maintenance call's options (`focus`, `pending`, then the numbers).
pub fn maintain_call<M, H: Host<M>>(options: &H) -> Result<MaintainCall<H>> {
    let focus = focus(options, "options")?;
    let given = options.field("pending", "options")?;
    let pending = match given.got() {
        Got::Absent => None,
        _ => Some((draft(&given)?, given)),
    };
    Ok(MaintainCall {
        max_output_tokens: whole(options, "maxOutputTokens", "options")?.unwrap_or(0),
        skill_tokens: whole(options, "skillTokens", "options")?.unwrap_or(0),
        focus,
        pending,
    })
}

/// `run(state, send, { isContextOverflow, focus })`, as read.
pub struct RunCall<H> {
    /// `send`, a function.
    pub send: H,
    /// `isContextOverflow`, a function (`None`: the default test).
    pub is_overflow: Option<H>,
    /// `focus`, blank being none.
    pub focus: Option<String>,
}

/// Reads `run`'s `send` and options.
pub fn run_call<M, H: Host<M>>(send: &H, options: &H) -> Result<RunCall<H>> {
    let wrong = |place: String| Error::invalid_request(text!(place, ": expected a function"));
    if send.got() != Got::Function {
        return Err(wrong("send".to_owned()));
    }
    Ok(RunCall {
        send: send.clone(),
        is_overflow: function(options, "isContextOverflow", "options", wrong)?,
        focus: focus(options, "options")?,
    })
}

/// `new HeuristicEstimator({ imageTokens })`: `imageTokens` a whole number, default
/// [`DEFAULT_IMAGE_TOKENS`] (config errors).
pub fn heuristic<M, H: Host<M>>(options: &H) -> Result<Heuristic> {
    let image_tokens = whole(options, "imageTokens", "options").map_err(Error::into_config)?;
    Ok(Heuristic {
        image_tokens: image_tokens.unwrap_or(DEFAULT_IMAGE_TOKENS),
    })
}
