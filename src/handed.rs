//! A plan as a host hands it back and the messages a plan hands over: how a plan object
//! (possibly edited, or built by hand) becomes a [`Plan`] again, which messages of a range are
//! summarized (all but the system messages, never cut), and which a compaction keeps.

use std::ops::Range;

use crate::error::Result;
use crate::facts::MessageFacts;
use crate::pinned::{Found, Summarized};
use crate::plan::Plan;

/// What a plan object handed back says, as a binding reads it: its `firstKeptIndex`,
/// `firstKeptPart` and `turnPrefixStart` (where the turn prefix starts, counting the system
/// messages its lists leave out), each missing or not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanFields {
    /// Its `firstKeptIndex` (missing: 0).
    pub first_kept_index: Option<usize>,
    /// Its `firstKeptPart` (missing: 0).
    pub first_kept_part: Option<usize>,
    /// Its `turnPrefixStart`.
    pub turn_prefix_start: Option<usize>,
}

impl Plan {
    /// The plan a host handed back. Without `turnPrefixStart` (a plan built by hand) the
    /// lengths of its `messagesToSummarize` and `turnPrefixMessages` (`listed`, asked for only
    /// then) give the ranges, the trimmed copy of a message cut inside ending the turn prefix
    /// list; without `splitTurn` (asked for last) the turn is split when the prefix holds
    /// anything. Estimates are 0 (applying recomputes them); whether it fits its request is
    /// [`Plan::check_fits`]'s.
    pub fn from_fields(
        fields: PlanFields,
        listed: impl FnOnce() -> Result<(usize, usize)>,
        split_turn: impl FnOnce() -> Result<Option<bool>>,
    ) -> Result<Plan> {
        let first_kept_index = fields.first_kept_index.unwrap_or(0);
        let first_kept_part = fields.first_kept_part.unwrap_or(0);
        let (history, prefix_end) = match fields.turn_prefix_start {
            Some(start) => (start, first_kept_index.max(start)),
            None => {
                let (history, prefix) = listed()?;
                let partial = usize::from(first_kept_part > 0);
                (history, history + prefix.saturating_sub(partial))
            }
        };
        let split_turn = split_turn()?;
        Ok(Plan {
            first_kept_index,
            first_kept_part,
            messages_to_summarize: 0..history,
            turn_prefix_messages: history..prefix_end,
            split_turn: split_turn.unwrap_or(prefix_end > history || first_kept_part > 0),
            estimate_before: 0,
            estimate_after_without_summary: 0,
            message_tokens: Vec::new(),
        })
    }

    /// The messages the turn prefix reads: its whole messages, then the one cut inside (if
    /// any); and the part where that cut falls (0 when none).
    pub fn prefix_range(&self) -> (Range<usize>, usize) {
        let prefix = &self.turn_prefix_messages;
        let end = prefix.end + usize::from(self.first_kept_part > 0);
        (prefix.start..end, self.first_kept_part)
    }

    /// The messages a compaction keeps, in order: the pinned messages before the cut, then
    /// every message from the cut on (of `len`), the first marked `true` when the cut falls
    /// inside it (it keeps its parts from `first_kept_part` on).
    pub fn kept<'a>(
        &self,
        facts: &'a [MessageFacts],
        len: usize,
    ) -> impl Iterator<Item = (usize, bool)> + 'a {
        let (first, part) = (self.first_kept_index, self.first_kept_part);
        // One range filtered rather than two chained: less generic code in the module.
        let kept = move |&i: &usize| {
            if i < first {
                is_pinned(facts, i)
            } else {
                i < len
            }
        };
        (0..len.max(first))
            .filter(kept)
            .map(move |i| (i, part > 0 && i == first))
    }
}

/// Whether messages `range` hold a pinned message: a system message or one the host pinned
/// (never cut, never summarized).
pub fn holds_pinned(facts: &[MessageFacts], range: &Range<usize>) -> bool {
    range.clone().any(|i| is_pinned(facts, i))
}

/// Messages `range` without the pinned messages among them: those a plan summarizes, by the
/// rule the messages read without facts follow too ([`Summarized`]; the facts' `pinned` flag
/// already holds the request's indices).
pub fn unpinned(facts: &[MessageFacts], range: Range<usize>) -> impl Iterator<Item = usize> + '_ {
    let summarized = Summarized::new(range.clone(), &[]);
    range.filter(move |&i| {
        let found = facts
            .get(i)
            .map_or_else(Found::default, MessageFacts::found);
        summarized.includes(i, found)
    })
}

fn is_pinned(facts: &[MessageFacts], i: usize) -> bool {
    facts.get(i).is_some_and(MessageFacts::is_pinned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::message::Role;

    fn handed(
        kept: usize,
        part: usize,
        start: Option<usize>,
        listed: (usize, usize),
        split: Option<bool>,
    ) -> Plan {
        let fields = PlanFields {
            first_kept_index: Some(kept),
            first_kept_part: Some(part),
            turn_prefix_start: start,
        };
        Plan::from_fields(fields, || Ok(listed), || Ok(split)).unwrap()
    }

    #[test]
    fn a_handed_plan_takes_its_ranges_from_the_prefix_start_or_else_its_lists() {
        let plan = handed(6, 0, Some(4), (99, 99), None);
        assert_eq!(
            (plan.messages_to_summarize, plan.turn_prefix_messages),
            (0..4, 4..6)
        );
        assert!(plan.split_turn);
        // By hand: the lists, the trimmed copy of a message cut inside left out of the prefix.
        let plan = handed(6, 2, None, (4, 3), None);
        assert_eq!(
            (plan.messages_to_summarize, plan.turn_prefix_messages),
            (0..4, 4..6)
        );
        assert!(plan.split_turn);
        let plan = handed(4, 0, None, (4, 0), None);
        assert_eq!(plan.turn_prefix_messages, 4..4);
        assert!(!plan.split_turn);
        // A stated splitTurn stands (check_fits judges it).
        assert!(!handed(6, 0, Some(4), (0, 0), Some(false)).split_turn);
        // The turn prefix reads the message cut inside too.
        assert_eq!(
            handed(6, 2, Some(4), (0, 0), None).prefix_range(),
            (4..7, 2)
        );
        assert_eq!(
            handed(6, 0, Some(4), (0, 0), None).prefix_range(),
            (4..6, 0)
        );
    }

    #[test]
    fn the_lists_are_not_read_when_the_prefix_start_is_given() {
        let from = |start| {
            let fields = PlanFields {
                turn_prefix_start: start,
                ..PlanFields::default()
            };
            Plan::from_fields(
                fields,
                || Err(Error::invalid_request("lists read")),
                || Ok(None),
            )
        };
        assert!(from(Some(0)).is_ok());
        assert!(from(None).is_err());
    }

    #[test]
    fn system_messages_are_kept_in_front_and_never_summarized() {
        let of = |role| MessageFacts {
            role,
            ..MessageFacts::default()
        };
        let facts = [
            of(Role::User),
            of(Role::System),
            of(Role::Assistant),
            of(Role::User),
            of(Role::Assistant),
        ];
        let plan = handed(3, 0, Some(3), (0, 0), Some(false));
        let kept: Vec<_> = plan.kept(&facts, facts.len()).collect();
        assert_eq!(kept, vec![(1, false), (3, false), (4, false)]);
        let cut_inside = handed(3, 2, Some(3), (0, 0), None);
        let kept: Vec<_> = cut_inside.kept(&facts, facts.len()).collect();
        assert_eq!(kept, vec![(1, false), (3, true), (4, false)]);
        assert!(holds_pinned(&facts, &(0..3)));
        assert_eq!(unpinned(&facts, 0..3).collect::<Vec<_>>(), vec![0, 2]);
        assert!(!holds_pinned(&facts, &(2..5)));
    }
}
