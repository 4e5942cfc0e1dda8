//! Histories larger than the summarizer's own window: the records are split into chunks,
//! oldest first, each small enough for one summary call beside the summary so far.
//!
//! A chunk never separates an assistant message from the tool results that follow it (their
//! records name the call they answer), and a chunk boundary falls before a user or assistant
//! message only. One block of messages larger than a whole call's room is shortened in its
//! middle, with a note saying how much was left out: the summary is never refused for size.

use std::ops::Range;

use crate::error::{Error, Result};
use crate::message::Message;
use crate::records;
use crate::token::Estimator;

/// Where one summary call's tokens go, in estimated tokens of the compactor's estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The summary model's whole context window (`contextWindowTokens`).
    pub tokens: u64,
    /// What is kept free for the answer: `maxOutputTokens`, else a quarter of the window.
    pub output: u64,
}

impl Window {
    /// The window of a summarizer whose model holds `tokens`, answering in at most
    /// `max_output` tokens when that is set.
    pub fn new(tokens: u64, max_output: Option<u64>) -> Window {
        Window {
            tokens,
            output: max_output.unwrap_or(tokens / 4),
        }
    }

    /// The tokens one call's prompt may hold besides its fixed text (`fixed`: the system
    /// instruction and the prompt's framing).
    fn input(&self, fixed: u64) -> u64 {
        self.tokens
            .saturating_sub(self.output)
            .saturating_sub(fixed)
    }

    /// Checks that the window holds a summary so far and its answer with room to spare; the
    /// message names the options (`path` is where they are set).
    pub fn validate(&self, path: &str) -> std::result::Result<(), String> {
        // Every chunk after the first carries the summary so far (at most `output` tokens) and
        // asks for a new one (`output` more): at least as much again must be left for records.
        if self.tokens < 3 * self.output.max(1) {
            return Err(text!(
                path,
                ".contextWindowTokens (",
                self.tokens,
                ") must be at least three times the answer's limit (",
                self.output,
                " tokens)"
            ));
        }
        Ok(())
    }
}

/// How much one chunk's records may hold, in estimated tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rooms {
    /// The first chunk, beside the request's previous summary.
    pub first: u64,
    /// Every later chunk, beside the summary so far (at most the window's output).
    pub later: u64,
}

impl Rooms {
    /// The rooms of `window` for prompts whose fixed text is `fixed` tokens, the first beside a
    /// previous summary of `previous` tokens. Fails when not even a later chunk has room.
    pub fn new(window: Window, fixed: u64, previous: u64) -> Result<Rooms> {
        let input = window.input(fixed);
        let later = input.saturating_sub(window.output);
        if later == 0 {
            return Err(Error::invalid_config(text!(
                "summarizer.contextWindowTokens (",
                window.tokens,
                ") leaves no room for records beside the summary instruction (",
                fixed,
                " tokens) and a summary of up to ",
                window.output,
                " tokens"
            )));
        }
        // A previous summary larger than a summary so far may be (written by another model,
        // or edited) still leaves the first chunk a later chunk's room at the least.
        let first = input.saturating_sub(previous).max(later);
        Ok(Rooms { first, later })
    }

    fn of(&self, chunk: usize) -> u64 {
        if chunk == 0 { self.first } else { self.later }
    }
}

/// The records of `messages` in chunks that fit `rooms` by `estimator`, oldest first: one
/// chunk, `whole` (the records [`records::serialize`] wrote for them), when it fits the first
/// room.
pub fn split(
    messages: &[Message],
    whole: String,
    rooms: Rooms,
    estimator: &dyn Estimator,
) -> Result<Vec<String>> {
    let count = |text: &str| count(estimator, text);
    if count(&whole)? <= rooms.first {
        return Ok(vec![whole]);
    }
    // Each block's records and tokens, newest first (taken from the end); one larger than any
    // chunk's room is shortened to fit.
    let mut pieces = Vec::new();
    for block in blocks(messages).into_iter().rev() {
        let text = records::serialize(messages.get(block).unwrap_or_default());
        if text.is_empty() {
            continue;
        }
        let tokens = count(&text)?;
        pieces.push(if tokens <= rooms.later {
            (text, tokens)
        } else {
            shorten(&text, tokens, rooms.later, &count)?
        });
    }
    let mut chunks = Vec::new();
    while !pieces.is_empty() {
        let room = rooms.of(chunks.len());
        let mut taken = Vec::new();
        let mut sum = 0;
        while let Some((_, tokens)) = pieces.last() {
            // Records are separated by a blank line, about a token.
            let more = tokens + u64::from(!taken.is_empty());
            if !taken.is_empty() && sum + more > room {
                break;
            }
            sum += more;
            taken.extend(pieces.pop());
        }
        // The pieces' counts need not add up to the joined text's: give the last ones back
        // until it fits (one piece always does).
        loop {
            let joined = join(&taken);
            if taken.len() <= 1 || count(&joined)? <= room {
                chunks.push(joined);
                break;
            }
            pieces.extend(taken.pop());
        }
    }
    Ok(chunks)
}

/// Records separated by blank lines, as [`records::serialize`] separates them.
fn join(pieces: &[(String, u64)]) -> String {
    let mut joined = String::new();
    for (text, _) in pieces {
        if !joined.is_empty() {
            joined.push_str("\n\n");
        }
        joined.push_str(text);
    }
    joined
}

/// `text`'s tokens by the compactor's estimator, as the summarizer's window is counted.
pub(crate) fn count(estimator: &dyn Estimator, text: &str) -> Result<u64> {
    estimator
        .count_tokens(text)
        .map_err(|e| crate::facts::estimator_failed("summarizer records", e))
}

/// Ranges of messages that stay in one chunk: a message and the tool results after it.
fn blocks(messages: &[Message]) -> Vec<Range<usize>> {
    let mut blocks: Vec<Range<usize>> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        match (message, blocks.last_mut()) {
            (Message::ToolResult(_), Some(last)) => last.end = i + 1,
            _ => blocks.push(i..i + 1),
        }
    }
    blocks
}

/// `text` (`tokens` by the estimator) with its middle left out so that it fits `room`, and
/// its new count. The kept share shrinks until it fits; a note says how much was left out.
fn shorten(
    text: &str,
    tokens: u64,
    room: u64,
    count: &dyn Fn(&str) -> Result<u64>,
) -> Result<(String, u64)> {
    let mut share = room as f64 / tokens.max(1) as f64;
    for _ in 0..8 {
        share *= 0.9;
        let keep = (text.len() as f64 * share) as usize;
        let shortened = without_middle(text, keep);
        let n = count(&shortened)?;
        if n <= room {
            return Ok((shortened, n));
        }
    }
    // An estimator far from proportional to length: keep only the note.
    let note = without_middle(text, 0);
    let n = count(&note)?;
    Ok((note, n))
}

/// `text` keeping `keep` bytes (half from each end, at character boundaries) around a note.
fn without_middle(text: &str, keep: usize) -> String {
    let mut head = keep / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len().saturating_sub(keep - keep / 2).max(head);
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    let (start, end) = (text.get(..head), text.get(tail..));
    text!(
        start.unwrap_or_default(),
        "\n[… ",
        tail - head,
        " of ",
        text.len(),
        " bytes left out here to fit the summary model's window]\n",
        end.unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_middle_keeps_both_ends_at_character_boundaries() {
        let text = "ééééabcdééé";
        let short = without_middle(text, 5);
        assert!(short.starts_with('é'), "{short}");
        assert!(short.ends_with('é'), "{short}");
        assert!(short.contains("left out"));
    }

    #[test]
    fn a_block_is_a_message_and_the_tool_results_after_it() {
        let said = |text: &str| Message::user(text);
        let result = |id: &str| Message::tool_result(id, "read", "ok");
        let messages = [said("a"), said("b"), result("1"), result("2"), said("c")];
        assert_eq!(blocks(&messages), vec![0..1, 1..4, 4..5]);
        // A result with nothing before it is a block of its own.
        assert_eq!(blocks(&[result("1"), said("a")]), vec![0..1, 1..2]);
    }

    #[test]
    fn a_window_must_hold_three_outputs() {
        assert!(Window::new(10_000, Some(4_000)).validate("s").is_err());
        assert!(Window::new(12_000, Some(4_000)).validate("s").is_ok());
        assert!(Window::new(32_000, None).validate("s").is_ok());
    }
}
