//! Compact categorical records: how the generator summarizer shows messages to the model.
//!
//! Visible user and assistant text stays complete; images become counts; failed and aborted
//! attempts are left out; thinking, tool arguments and tool results are truncated to
//! [`MAX_LINES`] lines or [`MAX_BYTES`] bytes. Ids, signatures, metadata and payloads are dropped.

use crate::hash::HashMap;
use std::ops::Range;

use crate::message::{AssistantBlock, ContentBlock, Message};

/// The most lines a truncated part keeps.
pub const MAX_LINES: usize = 100;
/// The most bytes a truncated part keeps.
pub const MAX_BYTES: usize = 2048;

/// Which end of a long text survives truncation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The beginning.
    Head,
    /// The end.
    Tail,
}

/// Serializes `messages` into records separated by blank lines.
pub fn serialize(messages: &[Message]) -> String {
    let mut records = Writer::default();
    for message in messages {
        match message {
            Message::User(user) => {
                records.user();
                content(&mut records, &user.content);
            }
            Message::Assistant(assistant) => {
                records.assistant(message.is_failed_attempt());
                for block in &assistant.content {
                    match block {
                        AssistantBlock::Text(text) => records.text(&text.as_str()),
                        AssistantBlock::Thinking(text) => records.thinking(&text.as_str()),
                        AssistantBlock::ToolCall(call) => {
                            records.call(&call.id, &call.name.as_str(), &call.arguments)
                        }
                        AssistantBlock::Opaque(_) | AssistantBlock::Sealed { .. } => {}
                    }
                }
            }
            Message::ToolResult(result) => {
                let name = result.tool_name.as_deref();
                records.tool_result(&result.tool_call_id, name, result.is_error);
                content(&mut records, &result.content);
            }
        }
    }
    records.finish()
}

fn content(records: &mut Writer, content: &[ContentBlock]) {
    for block in content {
        match block {
            ContentBlock::Text(text) => records.text(&text.as_str()),
            ContentBlock::Image => records.image(),
            ContentBlock::Opaque(_) => {}
        }
    }
}

/// A text a record is made of: a `str`, tool-call arguments as a [`crate::Json`] (compact JSON
/// already), or a value a format's reader reads in place.
pub(crate) trait Piece {
    /// Appends the text to `out`.
    fn write_to(&self, out: &mut String);
}

impl Piece for &str {
    fn write_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for crate::json::Json {
    fn write_to(&self, out: &mut String) {
        out.push_str(self.as_str());
    }
}

/// Writes records one unit at a time, in order, as the events of a unit come (what
/// [`serialize`] does with canonical messages, and the records sink of the format readers with
/// host messages read in place): visible text straight into the records, what may be
/// truncated first into scratch space.
///
/// A tool result without a name takes the name of the last call with its id anywhere in the
/// messages, so it is held and written when all of them are read.
#[derive(Default)]
pub(crate) struct Writer {
    /// The records so far, each after a blank line (the first one's is dropped at the end).
    out: String,
    /// What the open unit may truncate: thinking, arguments, a tool result's content.
    scratch: String,
    open: Open,
    /// The ids and names of the calls so far, as ranges of `calls_text`.
    calls: Vec<(Range<usize>, Range<usize>)>,
    calls_text: String,
    /// The tool results without a name, their ids and content in `held_text`.
    held: Vec<Held>,
    held_text: String,
    /// Whether a unit has started.
    any: bool,
}

/// The unit being written.
#[derive(Default)]
enum Open {
    #[default]
    Nothing,
    User(Content),
    Assistant {
        failed: bool,
    },
    ToolResult {
        /// Which end of its content survives; `None` for a held one.
        keep: Option<Keep>,
        content: Content,
    },
}

/// The text parts and images of a user or tool-result content so far.
#[derive(Default, Clone, Copy)]
struct Content {
    parts: usize,
    images: usize,
}

/// A tool result whose record is written at the end.
struct Held {
    /// Where its record goes in `out`.
    at: usize,
    id: Range<usize>,
    content: Range<usize>,
    is_error: bool,
}

/// Where a [`Writer`] was between two host messages (see [`Writer::mark`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Mark {
    out: usize,
    calls: usize,
    calls_text: usize,
    held: usize,
    held_text: usize,
    any: bool,
}

impl Writer {
    /// Where the records are now, all units closed: [`Writer::rewind`] forgets what was
    /// written after it (a pinned message's records: it is kept, not summarized).
    pub(crate) fn mark(&mut self) -> Mark {
        self.close();
        Mark {
            out: self.out.len(),
            calls: self.calls.len(),
            calls_text: self.calls_text.len(),
            held: self.held.len(),
            held_text: self.held_text.len(),
            any: self.any,
        }
    }

    /// Forgets everything written since `mark`.
    pub(crate) fn rewind(&mut self, mark: Mark) {
        self.close();
        self.out.truncate(mark.out);
        self.calls.truncate(mark.calls);
        self.calls_text.truncate(mark.calls_text);
        self.held.truncate(mark.held);
        self.held_text.truncate(mark.held_text);
        self.any = mark.any;
    }

    /// A user unit starts.
    pub(crate) fn user(&mut self) {
        self.close();
        self.any = true;
        self.out.push_str("\n\n[User]: ");
        self.open = Open::User(Content::default());
    }

    /// An assistant unit starts; a failed attempt has no records (its calls still name
    /// results).
    pub(crate) fn assistant(&mut self, failed: bool) {
        self.close();
        self.any = true;
        self.open = Open::Assistant { failed };
    }

    /// A tool result starts.
    pub(crate) fn tool_result(&mut self, id: &str, name: Option<&str>, is_error: bool) {
        self.close();
        self.any = true;
        let keep = name.map(|name| {
            self.out.push_str("\n\n");
            result_heading(&mut self.out, name, is_error);
            keep(name, is_error)
        });
        if keep.is_none() {
            let start = self.held_text.len();
            self.held_text.push_str(id);
            self.held.push(Held {
                at: 0,
                id: start..self.held_text.len(),
                content: 0..0,
                is_error,
            });
        }
        self.scratch.clear();
        self.open = Open::ToolResult {
            keep,
            content: Content::default(),
        };
    }

    /// Visible text of the open unit.
    pub(crate) fn text(&mut self, text: &dyn Piece) {
        match &mut self.open {
            Open::User(content) => {
                content.part(&mut self.out);
                text.write_to(&mut self.out);
            }
            Open::ToolResult { keep, content } => {
                let target = match keep {
                    Some(_) => &mut self.scratch,
                    None => &mut self.held_text,
                };
                content.part(target);
                text.write_to(target);
            }
            Open::Assistant { failed: false } => {
                self.out.push_str("\n\n[Assistant]: ");
                text.write_to(&mut self.out);
            }
            Open::Assistant { failed: true } | Open::Nothing => {}
        }
    }

    /// An image of the open unit (assistants send none).
    pub(crate) fn image(&mut self) {
        if let Open::User(content) | Open::ToolResult { content, .. } = &mut self.open {
            content.images += 1;
        }
    }

    /// Reasoning text of the open assistant unit.
    pub(crate) fn thinking(&mut self, text: &dyn Piece) {
        if let Open::Assistant { failed: false } = self.open {
            self.scratch.clear();
            text.write_to(&mut self.scratch);
            self.out.push_str("\n\n[Assistant thinking]: ");
            truncate_into(&self.scratch, Keep::Tail, &mut self.out);
        }
    }

    /// A tool call of the open assistant unit.
    pub(crate) fn call(&mut self, id: &str, name: &dyn Piece, arguments: &dyn Piece) {
        let Open::Assistant { failed } = self.open else {
            return;
        };
        let start = self.calls_text.len();
        self.calls_text.push_str(id);
        let middle = self.calls_text.len();
        name.write_to(&mut self.calls_text);
        self.calls
            .push((start..middle, middle..self.calls_text.len()));
        if failed {
            return;
        }
        self.scratch.clear();
        arguments.write_to(&mut self.scratch);
        self.out.push_str("\n\n[Tool call] ");
        self.out
            .push_str(self.calls_text.get(middle..).unwrap_or_default());
        self.out.push_str(": ");
        truncate_into(&self.scratch, Keep::Head, &mut self.out);
    }

    /// Ends the open unit (at the end of a host message).
    pub(crate) fn close(&mut self) {
        match std::mem::take(&mut self.open) {
            Open::User(content) => content.end(&mut self.out),
            Open::ToolResult {
                keep: Some(keep),
                content,
            } => {
                content.end(&mut self.scratch);
                truncate_into(&self.scratch, keep, &mut self.out);
            }
            Open::ToolResult {
                keep: None,
                content,
            } => {
                content.end(&mut self.held_text);
                if let Some(held) = self.held.last_mut() {
                    held.at = self.out.len();
                    held.content = held.id.end..self.held_text.len();
                }
            }
            Open::Assistant { .. } | Open::Nothing => {}
        }
    }

    /// Whether no unit has started (there is nothing to summarize).
    pub(crate) fn is_empty(&self) -> bool {
        !self.any
    }

    /// The records, separated by blank lines.
    pub(crate) fn finish(mut self) -> String {
        self.close();
        let mut out = if self.held.is_empty() {
            self.out
        } else {
            self.with_held()
        };
        if out.starts_with("\n\n") {
            out.drain(..2);
        }
        out
    }

    /// The records with the held tool results written in their places.
    fn with_held(&self) -> String {
        let text = |range: &Range<usize>| self.calls_text.get(range.clone()).unwrap_or_default();
        // Id → the latest call with it (an index, not the name: the map type `plan` has already).
        let calls: HashMap<&str, usize> = self
            .calls
            .iter()
            .enumerate()
            .map(|(k, (id, _))| (text(id), k))
            .collect();
        let held = |range: &Range<usize>| self.held_text.get(range.clone()).unwrap_or_default();
        let mut out = String::with_capacity(self.out.len() + self.held_text.len() + 64);
        let mut copied = 0;
        for result in &self.held {
            out.push_str(self.out.get(copied..result.at).unwrap_or_default());
            copied = result.at;
            let name = calls
                .get(held(&result.id))
                .and_then(|&k| self.calls.get(k))
                .map_or("unknown", |(_, name)| text(name));
            out.push_str("\n\n");
            result_heading(&mut out, name, result.is_error);
            truncate_into(held(&result.content), keep(name, result.is_error), &mut out);
        }
        out.push_str(self.out.get(copied..).unwrap_or_default());
        out
    }
}

impl Content {
    /// A text part starts (after a line break, unless it is the first).
    fn part(&mut self, out: &mut String) {
        if self.parts > 0 {
            out.push('\n');
        }
        self.parts += 1;
    }

    /// The number of images after the text, if any.
    fn end(mut self, out: &mut String) {
        if self.images > 0 {
            self.part(out);
            match self.images {
                1 => out.push_str("[1 image]"),
                n => out.push_str(&text!("[", n, " images]")),
            }
        }
    }
}

/// `[Tool result] name (status): `.
fn result_heading(out: &mut String, name: &str, is_error: bool) {
    out.push_str("[Tool result] ");
    out.push_str(name);
    out.push_str(if is_error { " (error): " } else { " (ok): " });
}

/// Which end of a tool result survives: the end of errors and of shell output.
fn keep(name: &str, is_error: bool) -> Keep {
    if is_error || name == "bash" {
        Keep::Tail
    } else {
        Keep::Head
    }
}

/// Shortens `text` to [`MAX_LINES`] lines and [`MAX_BYTES`] bytes, keeping `keep`, and marks
/// what was cut.
pub fn truncate(text: &str, keep: Keep) -> String {
    let mut out = String::new();
    truncate_into(text, keep, &mut out);
    out
}

/// Appends [`truncate`]`(text, keep)` to `out`.
fn truncate_into(text: &str, keep: Keep, out: &mut String) {
    let kept = match keep {
        Keep::Head => head(text),
        Keep::Tail => tail(text),
    };
    if kept.len() == text.len() {
        out.push_str(text);
        return;
    }
    let note = text!(
        "[… ",
        text.len() - kept.len(),
        " of ",
        text.len(),
        " bytes truncated]"
    );
    let (first, second) = match keep {
        Keep::Head => (kept, note.as_str()),
        Keep::Tail => (note.as_str(), kept),
    };
    out.push_str(first);
    out.push('\n');
    out.push_str(second);
}

fn head(text: &str) -> &str {
    // A trailing line break does not start a line of its own (as in `tail`).
    let body = text.strip_suffix('\n').unwrap_or(text).as_bytes();
    // Only line breaks within the first MAX_BYTES bytes can end the kept part before
    // MAX_BYTES, so the search stops there (arguments are one line of any length).
    let window = body.get(..MAX_BYTES).unwrap_or(body);
    let end = context_compaction_scan::nth_line_break(window, MAX_LINES - 1).unwrap_or(text.len());
    let mut end = end.min(MAX_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn tail(text: &str) -> &str {
    // A trailing line break does not start a line of its own.
    let body = text.strip_suffix('\n').unwrap_or(text).as_bytes();
    // Only line breaks within the last MAX_BYTES bytes can start the kept part after
    // `from`.
    let from = text.len().saturating_sub(MAX_BYTES);
    let window = body.get(from..).unwrap_or_default();
    let start = context_compaction_scan::nth_line_break_back(window, MAX_LINES - 1)
        .map_or(0, |i| from + i + 1);
    let mut start = start.max(from);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_unchanged() {
        assert_eq!(truncate("a\nb", Keep::Head), "a\nb");
        assert_eq!(truncate("a\nb\n", Keep::Tail), "a\nb\n");
    }

    #[test]
    fn keeps_a_hundred_lines() {
        let text: String = (0..150).map(|i| format!("{i}\n")).collect();
        let head = truncate(&text, Keep::Head);
        assert!(head.starts_with("0\n1\n"));
        assert!(head.contains("\n99\n[… "));
        assert!(!head.contains("100"));
        let tail = truncate(&text, Keep::Tail);
        assert!(tail.ends_with("\n149\n"));
        assert!(tail.contains("truncated]\n50\n51\n"), "{tail}");
        assert!(!tail.contains("\n49\n"));
    }

    #[test]
    fn a_final_line_break_is_not_a_line() {
        let text: String = (0..100).map(|i| format!("{i}\n")).collect();
        assert_eq!(truncate(&text, Keep::Head), text);
        assert_eq!(truncate(&text, Keep::Tail), text);
        let longer = format!("{text}100\n");
        assert!(truncate(&longer, Keep::Head).ends_with("\n99\n[… 5 of 294 bytes truncated]"));
    }

    /// `truncate` as it was before it searched for line breaks only within `MAX_BYTES` of the
    /// kept end: every line break of the text counted, one character at a time.
    fn truncate_everywhere(text: &str, keep: Keep) -> String {
        let body = text.strip_suffix('\n').unwrap_or(text);
        let kept = match keep {
            Keep::Head => {
                let end = body.match_indices('\n').nth(MAX_LINES - 1);
                let mut end = end.map_or(text.len(), |(i, _)| i).min(MAX_BYTES);
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                &text[..end]
            }
            Keep::Tail => {
                let start = body.rmatch_indices('\n').nth(MAX_LINES - 1);
                let start = start.map_or(0, |(i, _)| i + 1);
                let mut start = start.max(text.len().saturating_sub(MAX_BYTES));
                while !text.is_char_boundary(start) {
                    start += 1;
                }
                &text[start..]
            }
        };
        if kept.len() == text.len() {
            return text.to_owned();
        }
        let note = format!(
            "[… {} of {} bytes truncated]",
            text.len() - kept.len(),
            text.len()
        );
        match keep {
            Keep::Head => format!("{kept}\n{note}"),
            Keep::Tail => format!("{note}\n{kept}"),
        }
    }

    proptest::proptest! {
        /// Texts around 100 lines and 2 KiB, of one- to four-byte characters, with line breaks
        /// on either side of the byte limit.
        #[test]
        fn cuts_where_counting_every_line_break_cuts(
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["\n", "\n\n", "a", "abcdefghijklmnopqrstuvwxyz0123", "\u{e9}", "\u{65e5}\u{672c}", "\u{1f600}"]),
                0..600,
            ),
            tail_break in proptest::bool::ANY,
        ) {
            let mut text = parts.concat();
            if tail_break {
                text.push('\n');
            }
            for keep in [Keep::Head, Keep::Tail] {
                proptest::prop_assert_eq!(truncate(&text, keep), truncate_everywhere(&text, keep));
            }
        }
    }

    #[test]
    fn keeps_two_kib_on_a_char_boundary() {
        let text = "é".repeat(2000); // 4000 bytes, one line
        let head = truncate(&text, Keep::Head);
        assert!(head.starts_with(&"é".repeat(1024)));
        assert!(head.ends_with("[… 1952 of 4000 bytes truncated]"), "{head}");
        let tail = truncate(&text, Keep::Tail);
        assert!(tail.starts_with("[… 1952 of 4000 bytes truncated]\n"));
        assert!(tail.ends_with(&"é".repeat(1024)));
    }
}
