//! What a `ContextManager` reports: its events and the outcome of maintenance.

use super::{Sink, any_record};
use crate::clearing::Clearing;
use crate::manager::{Event, Maintained};

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

/// What maintenance did: `{ state, compacted, reason, record, error? }` (the state is slot 0,
/// the error slot 1).
pub fn maintained<W: Sink, S>(w: &mut W, done: &Maintained<S>) {
    let record = done.record.as_ref();
    w.open("", false);
    w.slot("state", 0);
    w.bool("compacted", record.is_some());
    w.text("reason", done.outcome.as_str());
    any_record(w, "record", record, done.cleared.as_ref());
    if done.error.is_some() {
        w.slot("error", 1);
    }
    if let Some(pending) = done.pending.as_str() {
        w.text("pending", pending);
    }
    w.close();
}
