//! What a `ContextManager` reports: its events, the outcome of maintenance and of a run.

use super::{Sink, any_record, records};
use crate::clearing::Clearing;
use crate::manager::{Event, Maintained, Outcome, Ran, RunError};
use crate::pending::Origin;

/// A manager's event for its listener: `{ type: "compactionStart", reason, estimate, plan }`
/// (the plan is slot 0) or `{ type: "compactionEnd", reason, record, error? }` (of a
/// clearing, `cleared`'s record; the error is slot 0).
pub fn event<W: Sink>(w: &mut W, event: &Event<'_>, cleared: Option<&Clearing>) {
    w.open("", false);
    match event {
        Event::Start {
            reason, estimate, ..
        } => {
            w.text("type", "compactionStart");
            w.text("reason", reason.as_str());
            w.count("estimate", *estimate);
            w.slot("plan", 0);
        }
        Event::End {
            reason,
            record,
            error,
        } => {
            w.text("type", "compactionEnd");
            w.text("reason", reason.as_str());
            any_record(w, "record", *record, cleared);
            if error.is_some() {
                w.slot("error", 0);
            }
        }
    }
    w.close();
}

/// What maintenance did: `{ state, compacted, reason, record, origins?, error?, pending? }`
/// (the state is slot 0, the error slot 1; `origins`, when it compacted, `{ index, part }` for
/// each message of the new state: where it came from in the state given).
pub fn maintained<W: Sink, S>(w: &mut W, done: &Maintained<S>) {
    let record = done.record.as_ref();
    w.open("", false);
    w.slot("state", 0);
    w.bool("compacted", record.is_some());
    w.text("reason", done.outcome.as_str());
    // After a committed draft the record is the commit's, whatever the clearing did.
    let cleared = done
        .cleared
        .as_ref()
        .filter(|_| done.outcome == Outcome::Cleared);
    any_record(w, "record", record, cleared);
    if record.is_some() {
        origins(w, &done.origins);
    }
    if done.error.is_some() {
        w.slot("error", 1);
    }
    if let Some(pending) = done.pending.as_str() {
        w.text("pending", pending);
    }
    w.close();
}

/// `origins`: `[{ index, part }]`, in order.
fn origins<W: Sink>(w: &mut W, origins: &[Origin]) {
    w.open("origins", true);
    for origin in origins {
        w.open("", false);
        w.count("index", origin.index as u64);
        w.count("part", origin.part as u64);
        w.close();
    }
    w.close();
}

/// What a run resolves to: `{ response, state, compactions, failedAttempts }` (the response is
/// slot 0, the state slot 1, the array of failed attempts slot 2).
pub fn ran<W: Sink, S, R, E>(w: &mut W, ran: &Ran<S, R, E>) {
    w.open("", false);
    w.slot("response", 0);
    w.slot("state", 1);
    records(w, "compactions", &ran.compactions);
    w.slot("failedAttempts", 2);
    w.close();
}

/// What the error of a failed run carries, so that nothing is lost: `{ state, compactions,
/// failedAttempts }` (the state with every committed rewrite is slot 0, the array of failed
/// attempts slot 1). The host puts them on its error object, not enumerable.
pub fn run_error<W: Sink, S, E>(w: &mut W, failed: &RunError<S, E>) {
    w.open("", false);
    w.slot("state", 0);
    records(w, "compactions", &failed.compactions);
    w.slot("failedAttempts", 1);
    w.close();
}
