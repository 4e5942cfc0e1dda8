//! Planning an anchored long history from its tail.
//!
//! With a report to anchor to (`crate::anchor`), the trigger needs only the report and the
//! messages after it, and the cut only the messages from the end back to `keepRecentTokens`
//! (with the tool-call pairs and the turn start around it). So a long history can be planned
//! from the exact facts of a tail `start..` of its messages, and of its system messages (never
//! cut, they count in every estimate after a cut). The messages before the tail are not read:
//! their facts are placeholders whose tokens are their size times the tokens per unit of size
//! of the messages read, which is enough for what the whole prefix is still needed for (the
//! check that a report is not stale, and the calibration ratio). [`decides`] says whether a
//! plan made over such facts is the plan of the whole history; when it is not, a longer tail
//! is read.
//!
//! The strategy (`anchored`: what is read first, when a report is stale, when every message is
//! sized, how the tail grows) reads a history only through [`crate::history::History`], and
//! [`crate::Compactor::plan_tail`] runs it.

mod anchored;
mod sample;
pub mod size;
mod unread;

pub use crate::reported::Latest;
pub(crate) use anchored::{Asked, plan};
pub use anchored::{FromTail, Tried, Unread};
pub use unread::{fill_deferred, fill_unread};

use crate::error::Result;
use crate::facts::{MessageFacts, RequestFacts};
use crate::hash::HashMap;
use crate::message::Role;
use crate::plan::{self, Plan};
use crate::request::PlanOptions;

/// Histories from this many messages are planned from their tail when anchored; shorter ones
/// cost less to read whole than the extra pass over their sizes.
pub const FROM: usize = 2_000;

/// The fewest messages a tail starts with: their tokens per unit of size estimate every unread
/// message's, which calibration needs (within 3% of the exact ratio on the bench histories;
/// 512 messages gained about 1% for 10-15% more time).
const FIRST_TAIL: usize = 256;

/// Units of size ([`size`]: UTF-16 code units of a message's keys and strings) a tail starts with per token it
/// must keep: twice the keep at four units a token, a margin for the turn start and tool pairs.
const SIZE_PER_KEPT_TOKEN: f64 = 8.0;

/// Where the first tail starts: far enough back to hold `keep` tokens with a margin, by the
/// messages' `sizes`.
pub fn first_start(sizes: &[f64], keep: u64) -> usize {
    let wanted = keep as f64 * SIZE_PER_KEPT_TOKEN;
    let mut start = sizes.len();
    let mut size = 0.0;
    while start > 0 && (size < wanted || sizes.len() - start < FIRST_TAIL) {
        start -= 1;
        size += sizes.get(start).copied().unwrap_or(0.0);
    }
    start
}

/// Where the first tail starts when no message was sized: far enough back to hold `keep`
/// tokens with a margin at the tokens per message of the `latest` messages of a history of
/// `len` (read exactly), and at least [`FIRST_TAIL`] messages back.
pub fn first_start_by_tokens(len: usize, latest: &[MessageFacts], keep: u64) -> usize {
    let tokens: u64 = latest.iter().map(|f| f.tokens).sum();
    let per_message = (tokens as f64 / latest.len().max(1) as f64).max(1.0);
    let wanted = (keep as f64 * KEPT_MARGIN / per_message).ceil() as usize;
    len.saturating_sub(wanted.max(FIRST_TAIL))
}

/// How many times `keepRecentTokens` a first tail sized by tokens holds (the turn start and
/// tool pairs around the cut, and a calibration ratio above 1, need more than the keep).
const KEPT_MARGIN: f64 = 2.0;

/// Where the next, longer tail starts after one from `start` did not decide the plan: twice
/// as long.
pub fn next_start(start: usize, len: usize) -> usize {
    start.saturating_sub((len - start.min(len)).max(FIRST_TAIL))
}

/// The plan over `facts` (calibrated) of which only messages `start..` and the system messages
/// before were read, the others placeholders: `None` when that tail does not decide the plan
/// of the whole history (nor its error, which a longer tail may not have).
pub fn plan_from_tail(
    facts: &RequestFacts,
    start: usize,
    options: PlanOptions,
    keep_recent_tokens: u64,
    trigger_ratio: f64,
) -> Result<Option<Option<Plan>>> {
    let planned = plan::plan(facts, options, keep_recent_tokens, trigger_ratio);
    if start == 0 {
        return planned.map(Some);
    }
    Ok(planned.ok().filter(|planned| {
        decides(
            facts,
            start,
            planned.as_ref(),
            options,
            keep_recent_tokens,
            trigger_ratio,
        )
    }))
}

/// Whether `planned`, made over `facts` (calibrated) whose messages before `start` are
/// placeholders except the system ones, is the plan of the whole history: anchored to a report
/// the tail holds, and every decision taken on messages read exactly.
pub fn decides(
    facts: &RequestFacts,
    start: usize,
    planned: Option<&Plan>,
    options: PlanOptions,
    keep_recent_tokens: u64,
    trigger_ratio: f64,
) -> bool {
    if start == 0 {
        return true;
    }
    // The trigger: the report plus what follows it, all read.
    if facts
        .calibration
        .anchor
        .is_none_or(|anchor| anchor.messages < start)
    {
        return false;
    }
    let Some(planned) = planned else {
        // Under the trigger: nothing to do. Over it with no cut found: the cut may be earlier.
        return !plan::over_trigger(facts.total(), options, trigger_ratio);
    };
    let tail = facts.messages.get(start..).unwrap_or(&[]);
    let cut = planned.first_kept_index;
    // The keep boundary, the cut and the turn it splits all among the messages read.
    cut > start
        && facts.message_tokens(start) >= keep_recent_tokens
        && (!planned.split_turn || planned.messages_to_summarize.end >= start)
        && in_flight_run_read(tail)
        && no_earlier_call_answered_from(tail, cut - start)
}

/// Whether the run of assistant messages that ends at the last one starts inside `tail` (its
/// first message is not part of it), so that the in-flight tail is found among its messages.
fn in_flight_run_read(tail: &[MessageFacts]) -> bool {
    let Some(last) = tail.iter().rposition(|f| f.role == Role::Assistant) else {
        return false;
    };
    tail.get(..last)
        .unwrap_or(&[])
        .iter()
        .any(|f| f.role != Role::Assistant)
}

/// Whether no message of `tail` from `cut` on answers a call that `tail` does not make before
/// it or in the same message (such a call may be among the messages not read, and then block
/// cuts up to its result). A UIMessage holds its calls and their results alike.
fn no_earlier_call_answered_from(tail: &[MessageFacts], cut: usize) -> bool {
    // A map to the message that made the call rather than a set: the type `plan` has already
    // (each table type is its own copy of the hash table's code).
    let mut calls: HashMap<&str, usize> = HashMap::default();
    for (j, f) in tail.iter().enumerate() {
        calls.extend(f.tool_call_ids.iter().map(|id| (id, j)));
        if j >= cut && f.tool_result_ids.iter().any(|id| !calls.contains_key(id)) {
            return false;
        }
    }
    true
}
