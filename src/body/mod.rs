//! Facts straight from a request body's bytes: a JSON array of messages, or JSON lines (one
//! message per line), as a Worker receives them, with no JSON objects built on the way.
//!
//! The scanner (`tape`) records each message as nodes pointing into the bytes; with the default
//! heuristic, canonical, OpenAI Chat and Anthropic messages have their facts read from those
//! nodes directly (`canonical`, `openai_chat`, `anthropic`), strings counted in place. Any
//! other format or estimator, and any message a direct reader is not sure of, goes through the
//! general reader (`serde_json` and [`Format::read`]), so the facts and the errors are always
//! those of the objects path.

mod anthropic;
mod canonical;
mod count;
mod numbers;
mod openai_chat;
mod parts;
pub mod walked;

use std::ops::Range;

use crate::error::{Error, Result};
use crate::facts::{MessageFacts, estimator_failed};
use crate::formats::Format;
use crate::parse::json_text;
use crate::token::Estimator;
use context_compaction_scan::{self as tape, Val};
use count::Counter;

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
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Error::invalid_request(format!(
            "messages: the body is not UTF-8 (at byte {})",
            e.valid_up_to()
        ))
    })?;
    let mut reader = Reader {
        text,
        format,
        estimator,
        counter: estimator
            .as_heuristic()
            .map(|heuristic| Counter { heuristic }),
        nodes: Vec::new(),
        out: BodyFacts::default(),
    };
    let start = tape::skip_space(bytes, 0);
    if bytes.get(start) == Some(&b'[') {
        reader.array(start + 1)?;
    } else {
        reader.lines(start)?;
    }
    Ok(reader.out)
}

struct Reader<'a> {
    text: &'a str,
    format: Format,
    estimator: &'a dyn Estimator,
    /// Set when facts can be read directly (the default heuristic).
    counter: Option<Counter>,
    nodes: Vec<tape::Node>,
    out: BodyFacts,
}

impl Reader<'_> {
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
                _ => return Err(self.malformed(self.line(pos), &format!("messages[{i}]"))),
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
        let i = self.out.messages.len();
        let root = Val::root(self.text, &self.nodes);
        // A message without `content` is left to the general reader, which refuses it.
        let direct = match (&self.counter, self.format) {
            _ if root.field("content").is_none() => None,
            (Some(counter), Format::Canonical) => {
                canonical::facts(Val::root(self.text, &self.nodes), counter)
            }
            (Some(counter), Format::OpenAIChat) => {
                openai_chat::facts(Val::root(self.text, &self.nodes), counter)
            }
            (Some(counter), Format::Anthropic) => {
                anthropic::facts(Val::root(self.text, &self.nodes), counter)
            }
            _ => None,
        };
        let facts = match direct {
            Some(facts) => facts,
            None => self.general(pos..end, i)?,
        };
        self.out.messages.push(facts);
        self.out.spans.push(pos..end);
        Ok(Some(end))
    }

    /// The facts of message `i` through `serde_json` and the format's reader.
    fn general(&self, span: Range<usize>, i: usize) -> Result<MessageFacts> {
        let path = format!("messages[{i}]");
        let text = self.text.get(span.clone()).unwrap_or("");
        let value = numbers::parse(text, span.start, &self.nodes)
            .map_err(|e| Error::invalid_request(format!("{path}: invalid JSON: {e}")))?;
        let host = self.format.read(&value, &path)?;
        MessageFacts::of_host(&host, self.estimator).map_err(|e| estimator_failed(&path, e))
    }

    /// The error for malformed JSON in `text` (the body, or one line of it), as `serde_json`
    /// describes it; `label` names the place.
    fn malformed(&self, text: &str, label: &str) -> Error {
        let what = match json_text(text) {
            Err(e) => e.to_string(),
            // The scanner refuses only what serde_json refuses; this is a fallback message.
            Ok(_) => "not a JSON array of messages or JSON lines".to_owned(),
        };
        Error::invalid_request(format!("{label}: invalid JSON: {what}"))
    }
}
