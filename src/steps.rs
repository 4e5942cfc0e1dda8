//! Cuts inside a host message. An AI SDK UIMessage holds a whole tool loop (one step per model
//! call), so a cut may fall between its steps as well as between messages. Planning then works
//! on *positions*: one per message, plus one per later step of a message that has steps; a
//! plan over positions is turned back into one over messages whose kept suffix may start
//! inside a message (`Plan::first_kept_part`).

use crate::facts::{MessageFacts, MessageFlags};
use crate::ids::Ids;

/// The planning positions of a history with steps, and where each one starts.
#[derive(Debug, Clone, Default)]
pub(crate) struct Positions {
    /// The facts of each position.
    pub(crate) facts: Vec<MessageFacts>,
    /// Where each position starts: the message's index and the part's (0 for a whole message).
    pub(crate) starts: Vec<(usize, usize)>,
}

impl Positions {
    /// The positions of `messages`, or `None` when no message has steps (the positions are the
    /// messages themselves).
    pub(crate) fn of(messages: &[MessageFacts]) -> Option<Positions> {
        if messages.iter().all(|f| f.steps.is_empty()) {
            return None;
        }
        let mut positions = Positions::default();
        for (i, f) in messages.iter().enumerate() {
            positions.push(i, f);
        }
        Some(positions)
    }

    /// Adds the positions of message `i`.
    pub(crate) fn push(&mut self, i: usize, message: &MessageFacts) {
        for (part, facts) in split(message) {
            self.facts.push(facts);
            self.starts.push((i, part));
        }
    }

    /// Sets each position's tokens from `messages` again, after their tokens changed (a
    /// calibration): as [`Positions::of`] would split them.
    pub(crate) fn retoken(&mut self, messages: &[MessageFacts]) {
        for (facts, &(i, part)) in self.facts.iter_mut().zip(&self.starts) {
            facts.tokens = messages.get(i).map_or(0, |m| part_tokens(m, part));
        }
    }

    /// Where position `position` starts: the message's index and the part's; past the last
    /// position, the end of `messages` messages.
    pub(crate) fn start(&self, position: usize, messages: usize) -> (usize, usize) {
        self.starts.get(position).copied().unwrap_or((messages, 0))
    }
}

/// The tokens of the position of `message` that starts at part `part`: the first step holds
/// what the later ones do not.
fn part_tokens(message: &MessageFacts, part: usize) -> u64 {
    match part {
        0 if message.pinned() => message.tokens,
        0 => message
            .tokens
            .saturating_sub(message.steps.iter().map(|s| s.tokens).sum()),
        _ => message
            .steps
            .iter()
            .find(|s| s.part == part)
            .map_or(0, |s| s.tokens),
    }
}

/// The steps of one message as facts of their own, each with the part it starts at: the first
/// step (everything before the first later step), then each later one.
fn split(message: &MessageFacts) -> Vec<(usize, MessageFacts)> {
    // A pinned message is kept whole, as it is: no cut falls inside it.
    if message.steps.is_empty() || message.pinned() {
        let whole = MessageFacts {
            steps: Default::default(),
            ..message.clone()
        };
        return vec![(0, whole)];
    }
    let later = |count: fn(&crate::facts::Step) -> usize| -> usize {
        message.steps.iter().map(count).sum()
    };
    let mut calls = message
        .tool_call_ids
        .len()
        .saturating_sub(later(|s| s.calls));
    let mut results = message
        .tool_result_ids
        .len()
        .saturating_sub(later(|s| s.results));
    let first = MessageFacts {
        tokens: part_tokens(message, 0),
        role: message.role,
        // The first position stands for the message: a provider's summary starts it.
        flags: message.flags,
        tool_call_ids: ids(&message.tool_call_ids, 0, calls),
        tool_result_ids: ids(&message.tool_result_ids, 0, results),
        steps: Default::default(),
    };
    let mut out = vec![(0, first)];
    for step in &message.steps {
        out.push((
            step.part,
            MessageFacts {
                tokens: step.tokens,
                role: message.role,
                flags: MessageFlags::NONE
                    .with(MessageFlags::FAILED, message.failed())
                    .with(MessageFlags::PINNED, message.pinned()),
                tool_call_ids: ids(&message.tool_call_ids, calls, step.calls),
                tool_result_ids: ids(&message.tool_result_ids, results, step.results),
                steps: Default::default(),
            },
        ));
        calls += step.calls;
        results += step.results;
    }
    out
}

fn ids(all: &Ids, start: usize, count: usize) -> Ids {
    all.slice(start, count)
}
