//! The sink that writes a host message's records (what the generator summarizer shows the
//! model, [`crate::records`]) straight from the values its reader reads, without building units.

use std::borrow::Cow;
use std::cell::RefCell;

use context_compaction_scan::Node;

use super::sink::{Args, Sink, Text, Unit};
use crate::message::StopReason;
use crate::pinned::Found;
use crate::records::{Mark, Piece, Writer};

/// Writes the records of host messages, one after another.
#[derive(Default)]
pub(crate) struct Records {
    writer: Writer,
    /// Scratch space for arguments given as JSON text.
    nodes: RefCell<Vec<Node>>,
    /// The part whose step ends the records of the message being read (a plan that keeps the
    /// rest of that message), when there is one.
    cut: Option<usize>,
    /// Whether the events now come from past the cut (and are not written).
    past: bool,
    /// What the message being read says of its pins (its marker, a system role).
    found: Found,
    /// Where the message being read began, when it may be pinned (its records are dropped at
    /// its end when it is: it is kept after the summary, not summarized).
    start: Option<Mark>,
}

impl Records {
    /// Writes the next message read only up to the step that starts at part `part`.
    pub(crate) fn stop_at_step(&mut self, part: usize) {
        self.cut = Some(part);
    }

    /// Whether the step given to [`Records::stop_at_step`] was found.
    pub(crate) fn reached_cut(&self) -> bool {
        self.past
    }

    /// What the message being read said of its pins so far, for [`crate::pinned::Summarized::includes`].
    pub(crate) fn found(&self) -> Found {
        self.found
    }

    /// The end of one host message: its last unit is complete, and its records are kept when
    /// it is `summarized` (as [`crate::pinned::Summarized::includes`] decides), dropped otherwise.
    pub(crate) fn end_message(&mut self, summarized: bool) {
        self.found = Found::default();
        match (summarized, self.start.take()) {
            (false, Some(start)) => self.writer.rewind(start),
            _ => self.writer.close(),
        }
    }

    /// Where the message being read began (taken before its first unit): a pin or a system
    /// role may drop what it writes.
    fn mark_start(&mut self) {
        if self.start.is_none() {
            self.start = Some(self.writer.mark());
        }
    }

    /// The records of every message read, separated by blank lines; `None` when they held
    /// no units (nothing to summarize).
    pub(crate) fn finish(self) -> Option<String> {
        (!self.writer.is_empty()).then(|| self.writer.finish())
    }
}

impl Piece for Text<'_> {
    fn write_to(&self, out: &mut String) {
        Text::write_to(self, out);
    }
}

/// Arguments with the scratch space their JSON text is scanned into.
struct Arguments<'s, 'a> {
    args: Args<'a>,
    nodes: &'s RefCell<Vec<Node>>,
}

impl Piece for Arguments<'_, '_> {
    fn write_to(&self, out: &mut String) {
        self.args.write_to(&mut self.nodes.borrow_mut(), out);
    }
}

impl<'a> Sink<'a> for Records {
    fn unit(&mut self, unit: Unit<'a>) {
        if self.past {
            return;
        }
        match unit {
            Unit::User => self.writer.user(),
            Unit::Assistant(stop) => self.writer.assistant(matches!(
                stop,
                Some(StopReason::Error | StopReason::Aborted)
            )),
            Unit::ToolResult { id, name, is_error } => {
                self.writer.tool_result(&id, name.as_deref(), is_error)
            }
        }
    }

    fn text(&mut self, text: Text<'a>) {
        if self.past {
            return;
        }
        self.writer.text(&text);
    }

    fn image(&mut self) {
        if self.past {
            return;
        }
        self.writer.image();
    }

    fn thinking(&mut self, text: Text<'a>) {
        if self.past {
            return;
        }
        self.writer.thinking(&text);
    }

    fn opaque(&mut self, _: Text<'a>) {}

    fn call(&mut self, id: Cow<'a, str>, name: Text<'a>, args: Args<'a>) {
        if self.past {
            return;
        }
        let nodes = &self.nodes;
        self.writer.call(&id, &name, &Arguments { args, nodes });
    }

    fn system(&mut self, _: String) {
        self.mark_start();
        self.found.system = true;
    }

    // Readers pin a message before its first unit: where the writer is now is where the
    // message began.
    fn pin(&mut self) {
        self.mark_start();
        self.found.pinned = true;
    }

    fn step(&mut self, part: usize) {
        if self.cut == Some(part) {
            self.past = true;
        }
    }
}
