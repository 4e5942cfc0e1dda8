//! Messages the host pinned: never summarized or cleared, kept as they are after the summary.
//!
//! A message is pinned by its format's marker (`pinned: true` on a canonical message,
//! `metadata.pinned` on a UIMessage, `providerOptions.contextCompaction.pinned` on a
//! ModelMessage: [`crate::formats::Format::pin_path`]) or by the request's list of pinned
//! indices (any format: a provider's own messages have no place a marker could go). Both end
//! up as [`MessageFacts::pinned`]; this module holds the rules on that flag.

use std::ops::Range;

use crate::error::{Error, Result};
use crate::facts::MessageFacts;
use crate::hash::{HashMap, map_with_capacity};

pub use crate::message::Found;

/// Which messages of a range a plan summarizes: every one but the pinned ones (by the
/// request's `pinned` indices or predicate, by their format's marker, or as system messages).
/// The one rule for everything a summarizer is given, whichever way the messages are read: an
/// application summarizer's slices (from facts, [`crate::unpinned`]), and the built-in
/// summarizer's records and units and a draft's digest (from the messages as they are read,
/// where no facts are computed). The messages the request pins are known before reading
/// ([`Summarized::to_read`]); a marker or a role only once a message is read
/// ([`Summarized::includes`]).
#[derive(Debug, Clone)]
pub struct Summarized<'a> {
    range: Range<usize>,
    requested: &'a [u32],
}

impl<'a> Summarized<'a> {
    /// The messages of `range` a plan summarizes when the request pins `requested` (sorted
    /// indices, as [`checked`] gives them).
    pub fn new(range: Range<usize>, requested: &'a [u32]) -> Summarized<'a> {
        Summarized { range, requested }
    }

    /// The messages to read, in order: the range without those the request pins (they are
    /// not summarized whatever they hold).
    pub fn to_read(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.range.len());
        for i in self.range.start as u32..self.range.end as u32 {
            if self.requested.binary_search(&i).is_err() {
                out.push(i);
            }
        }
        out
    }

    /// Whether message `i`, read (`found`: what its reader found), is summarized: it is in
    /// the range, the request does not pin it, and it is not pinned otherwise.
    pub fn includes(&self, i: usize, found: Found) -> bool {
        let requested = u32::try_from(i).is_ok_and(|i| self.requested.binary_search(&i).is_ok());
        self.range.contains(&i) && !requested && !found.is_pinned()
    }
}

/// The request's pinned indices, checked: each below `len` (`path` names the list in errors);
/// returned in order, without repeats.
pub fn checked(indices: Vec<u32>, len: usize, path: &str) -> Result<Vec<u32>> {
    match largest(&indices) {
        Some(last) if last as usize >= len => Err(Error::invalid_request(text!(
            path,
            ": index ",
            last,
            " is out of range for ",
            len,
            " messages"
        ))),
        _ => Ok(in_order(&indices, len)),
    }
}

/// The largest of `indices`. (Loops rather than iterator adapters in this module: each chain
/// of adapters is code of its own in the module.)
fn largest(indices: &[u32]) -> Option<u32> {
    let mut largest = None;
    for &i in indices {
        if largest.is_none_or(|l| i > l) {
            largest = Some(i);
        }
    }
    largest
}

/// `indices` (each below `len`) in order, without repeats: marked in a table rather than
/// sorted, so that no sort is compiled into the module for this.
fn in_order(indices: &[u32], len: usize) -> Vec<u32> {
    let mut marked = vec![false; len];
    for &i in indices {
        if let Some(slot) = marked.get_mut(i as usize) {
            *slot = true;
        }
    }
    let mut out = Vec::new();
    for (i, &m) in marked.iter().enumerate() {
        if m {
            out.push(i as u32);
        }
    }
    out
}

/// Marks the facts of messages `indices` (in the order of `facts`) pinned when the request's
/// sorted list `pinned` holds them.
pub fn mark(pinned: &[u32], indices: &[u32], facts: &mut [MessageFacts]) {
    if pinned.is_empty() {
        return;
    }
    for (i, f) in indices.iter().zip(facts.iter_mut()) {
        if pinned.binary_search(i).is_ok() {
            f.set_pinned(true);
        }
    }
}

/// Marks the facts of the first messages (`facts` from message 0 on) the request's `pinned`
/// indices name.
pub fn mark_first(pinned: &[u32], facts: &mut [MessageFacts]) {
    for &i in pinned {
        if let Some(f) = facts.get_mut(i as usize) {
            f.set_pinned(true);
        }
    }
}

/// `system` (sorted message indices, or places in `only` when it is given) with the places of
/// the request's `pinned` indices added: what a size pass reads exactly, wherever it is.
pub fn with_system(system: Vec<u32>, pinned: &[u32], only: Option<&[u32]>) -> Vec<u32> {
    if pinned.is_empty() {
        return system;
    }
    let mut all = system;
    match only {
        None => all.extend_from_slice(pinned),
        Some(only) => {
            for (k, i) in only.iter().enumerate() {
                if pinned.binary_search(i).is_ok() {
                    all.push(k as u32);
                }
            }
        }
    }
    let len = largest(&all).map_or(0, |last| last as usize + 1);
    in_order(&all, len)
}

/// The messages before `end` kept because the host pinned them (system messages, kept too,
/// are not listed): what a plan reports as `pinnedIndices`.
pub fn kept_before(facts: &[MessageFacts], end: usize) -> Vec<usize> {
    let before = facts.get(..end).unwrap_or(facts);
    let mut out = Vec::new();
    for (i, f) in before.iter().enumerate() {
        if f.pinned() {
            out.push(i);
        }
    }
    out
}

/// The request's `pinned` indices renumbered for the messages `plan` keeps (of `facts`): their
/// places among the kept messages, in order (a pinned message is always kept). What a caller
/// that holds the next request (a `ContextManager`'s state) passes next time.
pub fn renumbered(pinned: &[u32], plan: &crate::Plan, facts: &[MessageFacts]) -> Vec<u32> {
    let mut out = Vec::new();
    for (place, (i, _)) in plan.kept(facts, facts.len()).enumerate() {
        if pinned.binary_search(&(i as u32)).is_ok() {
            out.push(place as u32);
        }
    }
    out
}

/// Checks that no tool pair is split between a pinned message and one that is not: a pinned
/// message is sent as it is after the summary, so the other half of each of its pairs must
/// be sent too (pinned with it, or in the same message, as a UIMessage's tool parts are).
/// A call with no result yet is fine. Reads nothing unless the host pinned a message.
pub fn check_pairs(facts: &[MessageFacts]) -> Result<()> {
    if !facts.iter().any(|f| f.pinned()) {
        return Ok(());
    }
    // The latest message to call each id: a result answers the latest call with its id.
    let mut calls: HashMap<&str, usize> = map_with_capacity(facts.len());
    for (j, f) in facts.iter().enumerate() {
        for id in &f.tool_call_ids {
            calls.insert(id, j);
        }
        for id in &f.tool_result_ids {
            let Some(&i) = calls.get(id) else { continue };
            let call = facts.get(i).is_some_and(|c| c.pinned());
            if call != f.pinned() {
                return Err(split_pair(i, j, id, call));
            }
        }
    }
    Ok(())
}

/// The error for the pair `id` called in message `call` and answered in `result`, one of
/// them pinned (the call's when `call_pinned`).
fn split_pair(call: usize, result: usize, id: &str, call_pinned: bool) -> Error {
    let (pinned, other, what) = match call_pinned {
        true => (call, result, "its tool call"),
        false => (result, call, "its tool result"),
    };
    let half = match call_pinned {
        true => "answered in",
        false => "answers a call in",
    };
    Error::invalid_request(text!(
        "messages[",
        pinned,
        "]: pinned, but ",
        what,
        " \"",
        id,
        "\" is ",
        half,
        " messages[",
        other,
        "], which is not: pin both messages or neither (a pinned message is sent without the summarized ones)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(calls: &[&str], results: &[&str], pinned: bool) -> MessageFacts {
        MessageFacts {
            tool_call_ids: calls.iter().collect(),
            tool_result_ids: results.iter().collect(),
            flags: crate::facts::MessageFlags::NONE
                .with(crate::facts::MessageFlags::PINNED, pinned),
            ..MessageFacts::default()
        }
    }

    #[test]
    fn a_pair_inside_one_pinned_message_is_intact() {
        let all = [facts(&[], &[], false), facts(&["a"], &["a"], true)];
        assert!(check_pairs(&all).is_ok());
    }

    #[test]
    fn a_pair_split_by_the_pin_is_refused_either_way() {
        let call_pinned = [facts(&["a"], &[], true), facts(&[], &["a"], false)];
        let error = check_pairs(&call_pinned).unwrap_err().to_string();
        assert!(error.contains("messages[0]: pinned") && error.contains("messages[1]"));
        let result_pinned = [facts(&["a"], &[], false), facts(&[], &["a"], true)];
        let error = check_pairs(&result_pinned).unwrap_err().to_string();
        assert!(error.contains("messages[1]: pinned") && error.contains("tool result"));
    }

    #[test]
    fn both_halves_pinned_or_a_call_in_flight_are_fine() {
        let both = [facts(&["a"], &[], true), facts(&[], &["a"], true)];
        assert!(check_pairs(&both).is_ok());
        let in_flight = [facts(&[], &[], false), facts(&["a"], &[], true)];
        assert!(check_pairs(&in_flight).is_ok());
    }

    #[test]
    fn a_result_answers_the_latest_call_with_its_id() {
        // `call_0` in every response: the second result answers the second call.
        let all = [
            facts(&["call_0"], &[], false),
            facts(&[], &["call_0"], false),
            facts(&["call_0"], &[], true),
            facts(&[], &["call_0"], true),
        ];
        assert!(check_pairs(&all).is_ok());
    }

    #[test]
    fn pinned_indices_follow_their_messages_into_what_a_plan_keeps() {
        let mut all = vec![MessageFacts::default(); 6];
        mark_first(&[1, 4], &mut all);
        let plan = crate::Plan {
            first_kept_index: 3,
            first_kept_part: 0,
            messages_to_summarize: 0..3,
            turn_prefix_messages: 3..3,
            split_turn: false,
            estimate_before: 0,
            estimate_after_without_summary: 0,
            message_tokens: Vec::new(),
        };
        // Kept: messages 1, 3, 4, 5 (the pinned 1 first), so 1 → 0 and 4 → 2.
        assert_eq!(renumbered(&[1, 4], &plan, &all), vec![0, 2]);
    }

    #[test]
    fn request_indices_are_checked_and_placed() {
        assert_eq!(checked(vec![3, 1, 3], 4, "pinned").unwrap(), vec![1, 3]);
        assert_eq!(with_system(vec![1, 4], &[0, 4, 6], None), vec![0, 1, 4, 6]);
        let error = checked(vec![4], 4, "pinned").unwrap_err().to_string();
        assert!(error.contains("pinned: index 4 is out of range for 4 messages"));
        assert_eq!(with_system(vec![0, 5], &[2, 5], None), vec![0, 2, 5]);
        assert_eq!(with_system(vec![0], &[7], Some(&[3, 7, 9])), vec![0, 1]);
        let mut all = vec![MessageFacts::default(); 3];
        mark(&[1, 4], &[0, 1, 4], &mut all);
        let flags: Vec<bool> = all.iter().map(|f| f.pinned()).collect();
        assert_eq!(flags, [false, true, true]);
        assert_eq!(kept_before(&all, 2), vec![1]);
        let mut first = vec![MessageFacts::default(); 2];
        mark_first(&[1, 5], &mut first);
        assert!(!first[0].pinned() && first[1].pinned());
    }
}
