//! Maintenance's trim of an oversized user message (`trimOversized`, [`crate::oversized`]),
//! and what a rewrite resolves to.

use super::{Maintained, Outcome, PendingUse, Reason, StateCompactor, with_events};
use crate::apply::Record;
use crate::clearing::Clearing;
use crate::error::{Error, Result};
use crate::facts::RequestFacts;
use crate::pending;
use crate::plan::Plan;

/// What maintenance resolves to once a rewrite of a state with `facts` was `done` (or failed:
/// the state unchanged): a summary keeps the messages its record's cut keeps, a clearing or a
/// trim rewrites them in place.
pub(super) fn finish<S>(
    (state, facts): (S, &RequestFacts),
    done: Result<(S, Record)>,
    outcome: Outcome,
    cleared: Option<Clearing>,
) -> Result<Maintained<S>> {
    match done {
        Ok((state, record)) => Ok(Maintained {
            state,
            outcome,
            origins: match outcome {
                Outcome::Compacted => pending::origins(facts, &record),
                _ => pending::in_place(facts.messages.len()),
            },
            record: Some(record),
            error: None,
            cleared,
            pending: PendingUse::None,
        }),
        Err(error @ Error::Cancelled { .. }) => Err(error),
        Err(error) => Ok(Maintained {
            state,
            outcome: Outcome::RewriteFailed,
            record: None,
            error: Some(error),
            cleared: None,
            pending: PendingUse::None,
            origins: Vec::new(),
        }),
    }
}

/// With trimming on (`trimOversized`), `state` with its oversized user message trimmed
/// ([`crate::oversized::oversized`] over `plan`, the one a compaction would make), between a
/// start and an end event; `None` when trimming is off or no message can be trimmed enough.
pub(super) fn trim_oversized<C: StateCompactor>(
    compactor: &C,
    state: &C::State,
    facts: &RequestFacts,
    plan: Option<&Plan>,
    budget: u64,
) -> Option<Result<(C::State, Record)>> {
    if !compactor.trims_messages() {
        return None;
    }
    let over = crate::oversized::oversized(facts, plan, budget, compactor.trigger_ratio())?;
    match compactor.trim_message(state, facts, &over) {
        Ok(None) => None,
        Ok(Some(done)) => Some(Ok(with_events(
            compactor,
            state,
            facts,
            done,
            Reason::Threshold,
        ))),
        Err(error) => Some(Err(error)),
    }
}
