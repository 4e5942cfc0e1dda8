//! The facts of one message as one short text, what the bindings keep per message object in
//! their cache. A JavaScript array of numbers and id strings took about 290 bytes of heap a
//! message (the array, its elements, a string per id); one string holds the same in about a
//! third, and reads back in one crossing instead of one per element.
//!
//! The text: `tokens,role,startsTurn,marks,resultIdsLength,stepCount` (`marks`: 1 when failed,
//! plus 2 when pinned, plus 4 when it holds a provider's summary) and four numbers a step
//! (`part,tokens,calls,results`), all decimal and separated by commas, then `;`, then the
//! result ids and the call ids as [`Ids`] write them (the first `resultIdsLength` bytes are the
//! result ids). Ids may hold any character, `;` included: the header never does.

use crate::facts::{MessageFacts, MessageFlags, Step};
use crate::ids::{Ids, push_decimal};
use crate::message::Role;

/// `facts` as text (see the module docs).
pub(crate) fn write(facts: &MessageFacts) -> String {
    let (results, calls) = (facts.tool_result_ids.text(), facts.tool_call_ids.text());
    let mut out = String::with_capacity(24 + 16 * facts.steps.len() + results.len() + calls.len());
    let role = match facts.role {
        Role::User => 0,
        Role::Assistant => 1,
        Role::ToolResult => 2,
        Role::System => 3,
    };
    let numbers = [
        facts.tokens,
        role,
        u64::from(facts.starts_turn()),
        u64::from(facts.failed())
            | u64::from(facts.pinned()) << 1
            | u64::from(facts.provider_summary()) << 2,
        results.len() as u64,
        facts.steps.len() as u64,
    ];
    let steps = facts
        .steps
        .iter()
        .flat_map(|s| [s.part as u64, s.tokens, s.calls as u64, s.results as u64]);
    for (i, n) in numbers.into_iter().chain(steps).enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_decimal(&mut out, n);
    }
    out.push(';');
    out.push_str(results);
    out.push_str(calls);
    out
}

/// The facts `text` holds, or `None` when it is not a text [`write`] wrote.
pub(crate) fn read(text: &str) -> Option<MessageFacts> {
    let (header, ids) = text.split_once(';')?;
    let mut numbers = header.split(',');
    let mut next = || numbers.next().and_then(|n| n.parse::<u64>().ok());
    let tokens = next()?;
    let role = match next()? {
        0 => Role::User,
        1 => Role::Assistant,
        2 => Role::ToolResult,
        3 => Role::System,
        _ => return None,
    };
    let starts_turn = flag(next()?)?;
    let (failed, pinned, provider_summary) = match next()? {
        marks @ 0..=7 => (marks & 1 == 1, marks & 2 == 2, marks & 4 == 4),
        _ => return None,
    };
    let results_len = usize::try_from(next()?).ok()?;
    let step_count = next()?;
    let mut steps = Vec::new();
    for _ in 0..step_count {
        let (part, tokens, calls, results) = (next()?, next()?, next()?, next()?);
        let count = |n: u64| usize::try_from(n).ok();
        let (part, calls, results) = (count(part)?, count(calls)?, count(results)?);
        steps.push(Step {
            part,
            tokens,
            calls,
            results,
        });
    }
    if next().is_some() {
        return None;
    }
    let (results, calls) = (ids.get(..results_len)?, ids.get(results_len..)?);
    Some(MessageFacts {
        tokens,
        role,
        flags: MessageFlags::NONE
            .with(MessageFlags::STARTS_TURN, starts_turn)
            .with(MessageFlags::FAILED, failed)
            .with(MessageFlags::PINNED, pinned)
            .with(MessageFlags::PROVIDER_SUMMARY, provider_summary),
        tool_call_ids: Ids::from_text(calls)?,
        tool_result_ids: Ids::from_text(results)?,
        steps: steps.into(),
    })
}

fn flag(n: u64) -> Option<bool> {
    match n {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn facts(
        tokens: u64,
        role: u8,
        flags: (bool, bool, bool, bool),
        steps: Vec<(usize, u64, usize, usize)>,
        ids: (Vec<String>, Vec<String>),
    ) -> MessageFacts {
        MessageFacts {
            tokens,
            role: [Role::User, Role::Assistant, Role::ToolResult, Role::System][role as usize % 4],
            flags: MessageFlags::NONE
                .with(MessageFlags::STARTS_TURN, flags.0)
                .with(MessageFlags::FAILED, flags.1)
                .with(MessageFlags::PINNED, flags.2)
                .with(MessageFlags::PROVIDER_SUMMARY, flags.3),
            tool_call_ids: ids.0.iter().collect(),
            tool_result_ids: ids.1.iter().collect(),
            steps: steps
                .into_iter()
                .map(|(part, tokens, calls, results)| Step {
                    part,
                    tokens,
                    calls,
                    results,
                })
                .collect(),
        }
    }

    proptest! {
        #[test]
        fn facts_read_back_as_written(
            tokens in any::<u64>(),
            role in 0u8..4,
            flags in any::<(bool, bool, bool, bool)>(),
            steps in prop::collection::vec(any::<(usize, u64, usize, usize)>(), 0..4),
            calls in prop::collection::vec(".{0,12}", 0..4),
            results in prop::collection::vec(".{0,12}", 0..4),
        ) {
            let facts = facts(tokens, role, flags, steps, (calls, results));
            let text = write(&facts);
            prop_assert_eq!(read(&text), Some(facts));
        }
    }

    #[test]
    fn ids_with_separators_and_other_scripts_read_back() {
        let ids = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let facts = facts(
            7,
            1,
            (false, true, true, true),
            vec![(2, 5, 1, 0)],
            (ids(&["a;1,2", "9:x", "调用"]), ids(&[";", ""])),
        );
        assert_eq!(read(&write(&facts)), Some(facts));
    }

    #[test]
    fn anything_else_is_none() {
        let good = write(&facts(
            3,
            0,
            (true, false, false, false),
            vec![],
            (vec!["c".into()], vec![]),
        ));
        assert_eq!(good, "3,0,1,0,0,0;1:c");
        for bad in [
            "",
            "3,0,1,0,0,0",
            "3,0,1,0,0,0;1:cc",
            "3,0,1,0,0,0;2:c",
            "3,0,1,0,0,0;x:c",
            "3,4,1,0,0,0;",
            "3,0,2,0,0,0;",
            "3,0,1,8,0,0;",
            "3,0,1,0,5,0;1:c",
            "3,0,1,0,0,1;",
            "3,0,1,0,0,0,9;",
            "-3,0,1,0,0,0;",
            "3,0,1,0,0,1,1,1,1;",
        ] {
            assert_eq!(read(bad), None, "{bad:?}");
        }
    }
}
