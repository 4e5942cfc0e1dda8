//! A summary made but not applied yet: a [`Draft`]. A host shows it, edits it, keeps it while
//! the conversation goes on (ahead-of-time compaction), and commits it onto a history that
//! still holds, unchanged, everything it covers ([`Draft::check_covers`]). What a summary
//! covers is named by a [`Digest`] of the summarized content, which a receipt carries too.

use std::ops::Range;

use crate::error::{Error, Result};
use crate::message::{AssistantBlock, ContentBlock, Message};
use crate::usage::Usage;

/// A 64-bit FNV-1a digest of what a summary covers: the content the summarizer was given
/// (roles, texts, thinking, tool calls with their arguments, tool results with their status,
/// images by presence), in order. It changes when any of that changes; ids, usage and other
/// metadata a format carries do not enter it. Shown as 16 lowercase hexadecimal digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest(pub u64);

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Feeds the digest: each field is a tag byte then, for text, its length and its bytes, so
/// that no two different contents feed the same bytes.
struct Feed(u64);

impl Feed {
    fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
    }

    fn tag(&mut self, tag: u8) {
        self.bytes(&[tag]);
    }

    // Not inlined: one copy for the many fields (module size).
    #[inline(never)]
    fn text(&mut self, tag: u8, text: &str) {
        self.tag(tag);
        self.bytes(&(text.len() as u64).to_le_bytes());
        self.bytes(text.as_bytes());
    }

    fn content(&mut self, blocks: &[ContentBlock]) {
        for block in blocks {
            match block {
                ContentBlock::Text(text) => self.text(b't', text),
                ContentBlock::Image => self.tag(b'i'),
                ContentBlock::Opaque(text) => self.text(b'o', text),
            }
        }
    }

    fn message(&mut self, message: &Message) {
        match message {
            Message::User(user) => {
                self.tag(b'U');
                self.content(&user.content);
            }
            Message::Assistant(assistant) => {
                self.tag(b'A');
                for block in &assistant.content {
                    self.assistant_block(block);
                }
                let stop = assistant.stop_reason.map_or(0, |s| s as u8 + 1);
                self.tag(stop);
            }
            Message::ToolResult(result) => {
                self.tag(b'R');
                self.text(b'c', &result.tool_call_id);
                self.text(b'n', result.tool_name.as_deref().unwrap_or(""));
                self.tag(u8::from(result.is_error));
                self.content(&result.content);
            }
        }
        // Ends the message, so that moving a block across a message boundary changes it.
        self.tag(b'.');
    }

    fn assistant_block(&mut self, block: &AssistantBlock) {
        match block {
            AssistantBlock::Text(text) => self.text(b't', text),
            AssistantBlock::Thinking(text) => self.text(b'h', text),
            AssistantBlock::ToolCall(call) => {
                self.text(b'c', &call.id);
                self.text(b'n', &call.name);
                self.text(b'a', call.arguments.as_str());
            }
            AssistantBlock::Opaque(text) => self.text(b'o', text),
            AssistantBlock::Sealed { chars } => {
                self.tag(b's');
                self.bytes(&(*chars as u64).to_le_bytes());
            }
        }
    }
}

impl Digest {
    /// The digest of what a summary covers: the units a summarizer is given, in order (the
    /// history before the cut, then the beginning of a split turn: `parts` in order).
    pub fn of_summarized(parts: &[&[Message]]) -> Digest {
        let mut feed = Feed(FNV_OFFSET);
        for message in parts.iter().flat_map(|part| part.iter()) {
            feed.message(message);
        }
        Digest(feed.0)
    }

    /// The digest of a text (a previous summary).
    pub fn of_text(text: &str) -> Digest {
        let mut feed = Feed(FNV_OFFSET);
        feed.text(b's', text);
        Digest(feed.0)
    }

    /// The 16 lowercase hexadecimal digits. (Written out: the formatting machinery's hex
    /// and radix parsing are not otherwise in the module.)
    pub fn to_hex(self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        (0..16)
            .map(|i| char::from(DIGITS[((self.0 >> (60 - 4 * i)) & 0xf) as usize]))
            .collect()
    }

    /// Reads [`Digest::to_hex`]'s form (either case); `None` for anything else.
    pub fn from_hex(text: &str) -> Option<Digest> {
        if text.len() != 16 {
            return None;
        }
        text.chars()
            .try_fold(0u64, |value, c| {
                c.to_digit(16).map(|d| (value << 4) | u64::from(d))
            })
            .map(Digest)
    }
}

/// A summary made for a cut and not applied: what commit stores, and what it checks first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// The summary commit stores (cleaned, the file lists appended); a host may edit it.
    pub summary: String,
    /// Where the kept messages start.
    pub first_kept_index: usize,
    /// The part of message `first_kept_index` they start at (0: the whole message).
    pub first_kept_part: usize,
    /// The digest of what the summary covers ([`Digest::of_summarized`]).
    pub digest: Digest,
    /// The digest of the summary it replaces ([`Digest::of_text`]).
    pub previous: Digest,
    /// The summarizer's usage.
    pub usage: Option<Usage>,
}

impl Draft {
    /// The messages this draft covers, for [`Digest::of_summarized`]: `0..end`, the last one
    /// only up to part `part` when the cut falls inside it (`part` > 0).
    pub fn cover(&self) -> (Range<usize>, usize) {
        cover(self.first_kept_index, self.first_kept_part)
    }

    /// Checks that this draft may be committed onto a request whose summary is `summary` and
    /// which has `messages` messages: the summary is the one the draft replaced, its cut is
    /// inside the request, and `digest` (of the request's messages [`Draft::cover`], asked
    /// only then) is the draft's: nothing it covers changed. Otherwise [`Error::Stale`],
    /// saying what differs.
    pub fn check_covers(
        &self,
        summary: &str,
        messages: usize,
        digest: impl FnOnce(Range<usize>, usize) -> Result<Digest>,
    ) -> Result<()> {
        let stale = |what: &str| Err(Error::Stale(what.to_owned()));
        if Digest::of_text(summary) != self.previous {
            return stale("the request's summary is not the one the draft replaces");
        }
        let (range, part) = self.cover();
        if range.end > messages {
            let first = self.first_kept_index;
            return stale(&text!(
                "the draft keeps messages from messages[",
                first,
                "], beyond the request's ",
                messages,
                " messages"
            ));
        }
        if digest(range, part)? != self.digest {
            return stale("a message the draft summarizes changed (its digest differs)");
        }
        Ok(())
    }

    /// Whether this draft may still be committed onto such a request: [`Draft::check_covers`]
    /// as a yes or no (`false` where it says [`Error::Stale`]; other errors, such as a message
    /// that cannot be read, are errors).
    pub fn covers(
        &self,
        summary: &str,
        messages: usize,
        digest: impl FnOnce(Range<usize>, usize) -> Result<Digest>,
    ) -> Result<bool> {
        match self.check_covers(summary, messages, digest) {
            Ok(()) => Ok(true),
            Err(Error::Stale(_)) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// This draft carried onto another request that holds what it covers converted (the
    /// UIMessages it was made of, sent as model messages): checked to cover the request it was
    /// made of first ([`Draft::check_covers`] with `summary`, `messages` and `digest`;
    /// [`Error::Stale`] otherwise), then cut at `cut` (`(first_kept_index, first_kept_part)`
    /// in the other request: where the same message starts there) with the digest `onto` takes
    /// of what that cut covers there. Committing it onto the other request then checks that
    /// digest: a conversion that changes before the cut makes it stale there too.
    pub fn rebased(
        &self,
        (summary, messages): (&str, usize),
        digest: impl FnOnce(Range<usize>, usize) -> Result<Digest>,
        cut: (usize, usize),
        onto: impl FnOnce(Range<usize>, usize) -> Result<Digest>,
    ) -> Result<Draft> {
        self.check_covers(summary, messages, digest)?;
        let (range, part) = cover(cut.0, cut.1);
        Ok(Draft {
            first_kept_index: cut.0,
            first_kept_part: cut.1,
            digest: onto(range, part)?,
            ..self.clone()
        })
    }
}

/// The messages a cut at part `part` of message `first` covers: `0..first`, and message
/// `first` itself (up to `part`) when the cut falls inside it.
pub(crate) fn cover(first: usize, part: usize) -> (Range<usize>, usize) {
    let end = if part > 0 { first + 1 } else { first };
    (0..end, part)
}

/// What a host's review of a summary decided, before it is committed
/// ([`crate::Summarizer::review`]: `beforeCommit` in JavaScript).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Commit it as it is.
    Keep,
    /// Commit this text instead.
    Replace(String),
    /// Do not commit it: the compaction fails with [`Error::Declined`] and changes nothing.
    Decline,
}

/// Applies a host's verdict to `draft`: a replacement is taken as written (trimmed: the host
/// may keep or drop the file lists), and an empty one is [`Error::EmptySummary`].
pub(crate) fn judged(mut draft: Draft, verdict: Verdict) -> Result<Draft> {
    match verdict {
        Verdict::Keep => Ok(draft),
        Verdict::Decline => Err(Error::Declined {
            message: "the host's review declined the summary".to_owned(),
            source: None,
        }),
        Verdict::Replace(text) => {
            draft.summary = text.trim().to_owned();
            if draft.summary.is_empty() {
                return Err(Error::EmptySummary);
            }
            Ok(draft)
        }
    }
}
