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
//!
//! Texts cross in batches (`src/wasm/cache.rs`): stored as a JSON array of them
//! ([`push_json`]), found joined into one string with where each ends ([`split`]).

use context_compaction_scan::escape_into;

use crate::facts::{MessageFacts, MessageFlags, Step};
use crate::ids::Ids;
use crate::message::Role;

/// `facts` as text (see the module docs).
#[cfg(test)]
pub(crate) fn write(facts: &MessageFacts) -> String {
    let mut out = String::new();
    push_header(&mut out, facts);
    out.push_str(facts.tool_result_ids.text());
    out.push_str(facts.tool_call_ids.text());
    out
}

/// Appends the text of `facts` to `out` as a JSON string (quoted, its ids escaped): the
/// bindings hand many to JavaScript as one JSON array, whose `JSON.parse` makes a string of
/// each (a slice of one string for all would keep all of it alive while any lives).
pub(crate) fn push_json(out: &mut String, facts: &MessageFacts) {
    let (results, calls) = (facts.tool_result_ids.text(), facts.tool_call_ids.text());
    out.reserve(26 + 16 * facts.steps.len() + results.len() + calls.len());
    out.push('"');
    // The header is digits and separators; only ids can hold what JSON escapes.
    push_header(out, facts);
    escape_into(results, out);
    escape_into(calls, out);
    out.push('"');
}

/// Appends the header of `facts` (see the module docs) and the `;` after it.
fn push_header(out: &mut String, facts: &MessageFacts) {
    let role = match facts.role {
        Role::User => 0,
        Role::Assistant => 1,
        Role::ToolResult => 2,
        Role::System => 3,
    };
    let marks = u64::from(facts.failed())
        | u64::from(facts.pinned()) << 1
        | u64::from(facts.provider_summary()) << 2;
    let mut header = Header::default();
    header.number(out, facts.tokens);
    header.number(out, role);
    header.number(out, u64::from(facts.starts_turn()));
    header.number(out, marks);
    header.number(out, facts.tool_result_ids.text().len() as u64);
    header.number(out, facts.steps.len() as u64);
    for step in facts.steps.iter() {
        header.number(out, step.part as u64);
        header.number(out, step.tokens);
        header.number(out, step.calls as u64);
        header.number(out, step.results as u64);
    }
    header.end(out);
}

/// Numbers written in decimal, each followed by a comma, into a buffer on the stack that is
/// appended to the string when full and at the end: pushed into the string digit by digit,
/// or through iterators, the header took 190 ns a message natively, now 100 (bench/README.md).
struct Header {
    buffer: [u8; 128],
    len: usize,
}

impl Default for Header {
    fn default() -> Header {
        Header {
            buffer: [0; 128],
            len: 0,
        }
    }
}

impl Header {
    fn number(&mut self, out: &mut String, n: u64) {
        // Room for 20 digits (`u64::MAX`) and a comma.
        if self.len + 21 > self.buffer.len() {
            out.push_str(ascii(&self.buffer, self.len));
            self.len = 0;
        }
        let start = self.len;
        let mut at = start + decimal_len(n);
        if let Some(comma) = self.buffer.get_mut(at) {
            *comma = b',';
        }
        self.len = at + 1;
        let mut rest = n;
        while at > start {
            at -= 1;
            if let Some(d) = self.buffer.get_mut(at) {
                *d = b'0' + (rest % 10) as u8;
            }
            rest /= 10;
        }
    }

    /// Appends what is left, its last comma made the `;` (only the `;` after no numbers).
    fn end(mut self, out: &mut String) {
        match self
            .len
            .checked_sub(1)
            .and_then(|last| self.buffer.get_mut(last))
        {
            Some(last) => {
                *last = b';';
                out.push_str(ascii(&self.buffer, self.len));
            }
            None => out.push(';'),
        }
    }
}

/// How many decimal digits `n` takes.
fn decimal_len(n: u64) -> usize {
    let (mut digits, mut bound) = (1, 10u64);
    while digits < 20 && n >= bound {
        digits += 1;
        bound = bound.saturating_mul(10);
    }
    digits
}

/// The first `len` bytes of `buffer`, digits and separators.
fn ascii(buffer: &[u8], len: usize) -> &str {
    std::str::from_utf8(buffer.get(..len).unwrap_or(&[])).unwrap_or("")
}

/// The end of a message's text in a joined string that marks a message without one.
pub(crate) const MISSING: u32 = u32::MAX;

/// The texts in `joined`, one per `ends` (where each ends, in UTF-16 units: JavaScript's
/// lengths), `None` for an end that is [`MISSING`] or not at a character's boundary.
pub(crate) fn split<'a>(joined: &'a str, ends: &'a [u32]) -> impl Iterator<Item = Option<&'a str>> {
    let ascii = joined.is_ascii();
    // Where the next text starts: in bytes, and in UTF-16 units.
    let mut at = (0, 0);
    ends.iter().map(move |&end| {
        if end == MISSING {
            return None;
        }
        let start = at.0;
        if ascii {
            at = (end as usize, end);
        } else {
            let mut chars = joined.get(start..)?.chars();
            while at.1 < end {
                let c = chars.next()?;
                at = (at.0 + c.len_utf8(), at.1 + c.len_utf16() as u32);
            }
        }
        joined.get(start..at.0).filter(|_| at.1 == end)
    })
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
    fn joined_texts_split_back_at_their_utf16_ends() {
        let ids = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let all = [
            facts(
                1,
                0,
                (true, false, false, false),
                vec![],
                (ids(&["a"]), vec![]),
            ),
            facts(
                2,
                1,
                (false, false, true, false),
                vec![(0, 2, 1, 0)],
                (ids(&["调用", "😀;"]), ids(&["é"])),
            ),
            facts(
                3,
                2,
                (false, true, false, false),
                vec![],
                (vec![], ids(&["b"])),
            ),
        ];
        for ascii_only in [true, false] {
            let (mut joined, mut ends) = (String::new(), Vec::new());
            for (k, facts) in all.iter().enumerate() {
                if ascii_only && k == 1 {
                    // A message not found: its end marks it, it adds no text.
                    ends.push(MISSING);
                    continue;
                }
                joined.push_str(&write(facts));
                ends.push(joined.encode_utf16().count() as u32);
            }
            let read: Vec<_> = split(&joined, &ends)
                .map(|text| text.and_then(read))
                .collect();
            let want: Vec<_> = all
                .iter()
                .enumerate()
                .map(|(k, f)| (!(ascii_only && k == 1)).then(|| f.clone()))
                .collect();
            assert_eq!(read, want);
        }
        // Ends that are not boundaries of its characters (or go back, or past it) find nothing.
        assert_eq!(split("é", &[1]).collect::<Vec<_>>(), [Some("é")]);
        assert_eq!(split("😀", &[1]).collect::<Vec<_>>(), [None]);
        assert_eq!(
            split("ab", &[2, 1, 3]).collect::<Vec<_>>(),
            [Some("ab"), None, None]
        );
    }

    proptest! {
        #[test]
        fn a_json_array_of_texts_parses_back_to_them(
            calls in prop::collection::vec(any::<String>(), 0..4),
            results in prop::collection::vec(any::<String>(), 0..4),
            steps in prop::collection::vec(any::<(usize, u64, usize, usize)>(), 0..6),
        ) {
            let all = [
                facts(u64::MAX, 1, (true, true, true, true), steps, (calls, results)),
                facts(0, 0, (false, false, false, false), vec![], (vec![], vec![])),
            ];
            let mut json = String::from("[");
            for (k, facts) in all.iter().enumerate() {
                if k > 0 {
                    json.push(',');
                }
                push_json(&mut json, facts);
            }
            json.push(']');
            let parsed: Vec<String> = serde_json::from_str(&json).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(parsed, all.iter().map(write).collect::<Vec<_>>());
        }
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
