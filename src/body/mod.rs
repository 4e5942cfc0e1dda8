//! Facts straight from a request body's bytes: a JSON array of messages, or JSON lines (one
//! message per line), as a Worker receives them, with no JSON objects built on the way.
//!
//! The scanner (`tape`) records each message as nodes pointing into the bytes, and the format's
//! reader (the one the objects path uses) reads its facts from them: with the default heuristic
//! strings are counted in place, with any other estimator from the units it makes.

mod decide;

use std::ops::Range;

use crate::error::{Error, Result};
use crate::facts::MessageFacts;
use crate::formats::{Format, Path};
use crate::ids::RecentCalls;
use crate::token::Estimator;
use context_compaction_scan::{self as tape, Tape};

pub use decide::{Decided, decide, message_id, message_text};

/// The facts of every message of a body, and where each message's text is in it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BodyFacts {
    /// Facts of each message, in order.
    pub messages: Vec<MessageFacts>,
    /// The byte range of each message's JSON text in the body.
    pub spans: Vec<Range<usize>>,
}

/// Reads `bytes` (a JSON array of messages in `format`, or JSON lines) into facts with
/// `estimator`. Errors name the message (`messages[3].role: …`) or, for malformed JSON, the line
/// and column.
pub fn facts(bytes: &[u8], format: Format, estimator: &dyn Estimator) -> Result<BodyFacts> {
    // The scanner's check crosses ASCII 16 bytes at a time; the standard one finds where a
    // body that is not UTF-8 goes wrong.
    let text = tape::utf8(bytes).ok_or_else(|| {
        let at = std::str::from_utf8(bytes)
            .err()
            .map_or(0, |e| e.valid_up_to());
        Error::invalid_request(text!("messages: the body is not UTF-8 (at byte ", at, ")"))
    })?;
    let mut scan = BodyScan {
        text,
        format,
        estimator,
        nodes: Vec::new(),
        out: BodyFacts::default(),
        recent: RecentCalls::default(),
    };
    let start = tape::skip_space(bytes, 0);
    if bytes.get(start) == Some(&b'[') {
        scan.array(start + 1)?;
    } else {
        scan.lines(start)?;
    }
    Ok(scan.out)
}

/// One read of a body: its text, what reads it, and the facts so far.
struct BodyScan<'a> {
    text: &'a str,
    format: Format,
    estimator: &'a dyn Estimator,
    nodes: Vec<tape::Node>,
    out: BodyFacts,
    /// The latest calls, whose ids the results read after them share.
    recent: RecentCalls,
}

impl BodyScan<'_> {
    fn bytes(&self) -> &[u8] {
        self.text.as_bytes()
    }

    /// The elements of the array whose `[` is just before `pos`.
    fn array(&mut self, mut pos: usize) -> Result<()> {
        pos = tape::skip_space(self.bytes(), pos);
        if self.bytes().get(pos) == Some(&b']') {
            return self.end(pos + 1);
        }
        loop {
            let Some(end) = self.message(pos)? else {
                return Err(self.malformed(self.text, "messages"));
            };
            pos = tape::skip_space(self.bytes(), end);
            match self.bytes().get(pos) {
                Some(b',') => pos = tape::skip_space(self.bytes(), pos + 1),
                Some(b']') => return self.end(pos + 1),
                _ => return Err(self.malformed(self.text, "messages")),
            }
        }
    }

    /// Only whitespace may follow the array.
    fn end(&self, pos: usize) -> Result<()> {
        if tape::skip_space(self.bytes(), pos) == self.bytes().len() {
            Ok(())
        } else {
            Err(self.malformed(self.text, "messages"))
        }
    }

    /// One message per line; blank lines are skipped.
    fn lines(&mut self, mut pos: usize) -> Result<()> {
        while pos < self.bytes().len() {
            let i = self.out.messages.len();
            let mut end = self.message(pos)?;
            // Nothing but spaces may follow a message on its line.
            if let Some(end) = end.as_mut() {
                while matches!(self.bytes().get(*end), Some(b' ' | b'\t' | b'\r')) {
                    *end += 1;
                }
            }
            match end {
                Some(end) if matches!(self.bytes().get(end), None | Some(b'\n')) => {
                    pos = tape::skip_space(self.bytes(), end);
                }
                // The line is found only now: looking for it first would read every byte twice.
                _ => return Err(self.malformed(self.line(pos), &text!("messages[", i, "]"))),
            }
        }
        Ok(())
    }

    /// The line that starts at `pos`.
    fn line(&self, pos: usize) -> &str {
        let rest = self.text.get(pos..).unwrap_or("");
        rest.split('\n').next().unwrap_or(rest)
    }

    /// Scans the message at `pos`, records its facts and span, and returns where it ends
    /// (`None` when its JSON is malformed).
    fn message(&mut self, pos: usize) -> Result<Option<usize>> {
        let Ok(end) = tape::value(self.text.as_bytes(), pos, &mut self.nodes) else {
            return Ok(None);
        };
        let path = Path::message(self.out.messages.len());
        let tape = Tape::new(self.text, &self.nodes);
        let message = tape.root();
        let mut facts = self.format.facts(message, path, self.estimator)?;
        (self.recent).note(&facts.tool_call_ids, &mut facts.tool_result_ids);
        self.out.messages.push(facts);
        self.out.spans.push(pos..end);
        Ok(Some(end))
    }

    /// The error for malformed JSON in `text` (the body, or one line of it), as `serde_json`
    /// describes it; `label` names the place.
    fn malformed(&self, text: &str, label: &str) -> Error {
        // The scanner refuses only what serde_json refuses; this is a fallback message.
        let what = crate::json::syntax_error(text)
            .unwrap_or_else(|| "not a JSON array of messages or JSON lines".to_owned());
        Error::invalid_request(text!(label, ": invalid JSON: ", what))
    }
}
