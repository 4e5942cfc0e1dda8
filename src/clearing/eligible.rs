//! Which tool results a clearing may clear: older than what a summary would keep and than the
//! calls in flight, outside the newest protected output, of a tool not in `never_clear`, that
//! their format can hold as text; and which call each result answers.

use super::ClearingPolicy;
use super::find::{Found, FoundCall, FoundResult};
use crate::facts::{MessageFacts, RequestFacts};
use crate::hash::{HashMap, map_with_capacity};
use crate::plan::{in_flight_start, keep_boundary};

/// What a clearing leaves alone besides its policy's protected output: the suffix a summary
/// would keep (`keep_recent_tokens`), and the request's `input_token_budget`, which the default
/// protected output is a share of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Tokens of recent messages a summary would keep.
    pub keep_recent_tokens: u64,
    /// The request's input budget (`None`: unknown).
    pub input_token_budget: Option<u64>,
}

/// The results of `found` a clearing may clear, as their places in `found.results`, oldest
/// first: older than both the kept suffix (`limits.keep_recent_tokens`, as the summary plan
/// keeps it) and the in-flight calls, outside the newest
/// [`ClearingPolicy::protected_tokens`] of tool output, of a tool not in `never_clear`, and that
/// their format can hold as text. (Whether each is cleared already, or worth clearing, is
/// [`super::plan`]'s to decide.) A list of results said to be cleared that comes from elsewhere (a
/// chat's stored state) is checked against this.
pub fn clearable(
    found: &Found,
    facts: &RequestFacts,
    policy: &ClearingPolicy,
    limits: Limits,
) -> Vec<usize> {
    let calls = Calls::of(found);
    eligible(found, facts, policy, limits, &calls)
        .into_iter()
        .map(|(k, _, _)| k)
        .collect()
}

/// The results of `found` a list of cleared results stored by a chat route may name, as
/// [`clearable`] lists them but with the kept suffix left out of the check: a route clears
/// between the steps of a tool loop, inside the one message a later request's kept suffix may
/// start in, and an entry for such a result is still valid. The newest protected output (a
/// share of `input_token_budget` by default), the calls in flight, `never_clear` tools and
/// results a format cannot hold as text stay protected.
pub fn stored_clearable(
    found: &Found,
    facts: &RequestFacts,
    policy: &ClearingPolicy,
    input_token_budget: Option<u64>,
) -> Vec<usize> {
    let limits = Limits {
        keep_recent_tokens: 0,
        input_token_budget,
    };
    clearable(found, facts, policy, limits)
}

/// The call each result of `found` answers: the call with its id in its own message (the k-th
/// result with an id there answers the k-th call with it: a UIMessage's steps), else the
/// latest call with its id in an earlier message. Servers that number their calls per
/// response reuse `call_0` in every message, so the latest call with an id anywhere is not it.
pub(super) struct Calls<'f> {
    found: &'f Found,
    /// Per result of `found.results`, its call's place in `found.calls`.
    of_result: Vec<Option<usize>>,
}

impl<'f> Calls<'f> {
    pub(super) fn of(found: &'f Found) -> Self {
        let mut latest: HashMap<&str, usize> = map_with_capacity(found.calls.len());
        let mut of_result = Vec::with_capacity(found.results.len());
        let mut next = 0;
        let mut r = 0;
        while let Some(first) = found.results.get(r) {
            let index = first.index;
            while let Some(call) = found.calls.get(next).filter(|c| c.index < index) {
                latest.insert(&call.id, next);
                next += 1;
            }
            // The calls of the same message, and how many of each id its results used.
            let same = found.calls.get(next..).unwrap_or(&[]);
            let same = same
                .get(..same.iter().take_while(|c| c.index == index).count())
                .unwrap_or(&[]);
            let from = r;
            while let Some(result) = found.results.get(r).filter(|f| f.index == index) {
                // The n-th result with this id in the message answers its n-th call with it.
                let earlier = found.results.get(from..r).unwrap_or(&[]);
                let n = earlier.iter().filter(|f| f.id == result.id).count();
                let own = same
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.id == result.id)
                    .nth(n);
                of_result.push(
                    own.map(|(k, _)| next + k)
                        .or(latest.get(result.id.as_str()).copied()),
                );
                r += 1;
            }
        }
        Calls { found, of_result }
    }

    /// The call result `k` (a place in `found.results`) answers.
    pub(super) fn answered(&self, k: usize) -> Option<&'f FoundCall> {
        self.of_result
            .get(k)
            .copied()
            .flatten()
            .and_then(|c| self.found.calls.get(c))
    }
}

/// The results [`clearable`] lists, oldest first, each with its place in `found.results` and
/// its tool's name (its own, or its call's).
pub(super) fn eligible<'f>(
    found: &'f Found,
    facts: &RequestFacts,
    policy: &ClearingPolicy,
    limits: Limits,
    calls: &Calls<'f>,
) -> Vec<(usize, &'f FoundResult, Option<&'f str>)> {
    let protected_from = keep_boundary(&facts.messages, limits.keep_recent_tokens)
        .min(in_flight_start(&facts.messages));
    // A result before the provider's window counts nothing: clearing it frees nothing.
    let window = facts.window_start();
    let protect = policy.protected_tokens(limits.input_token_budget);
    let mut newer_output = 0u64;
    let mut out = Vec::new();
    for (k, f) in found.results.iter().enumerate().rev() {
        let protected = newer_output < protect;
        newer_output += f.tokens;
        // A pinned message is sent as it is: its results are never cleared.
        let pinned = facts.messages.get(f.index).is_some_and(|m| m.pinned());
        if protected || pinned || f.index >= protected_from || f.index < window || !f.editable {
            continue;
        }
        let name = f
            .name
            .as_deref()
            .or(calls.answered(k).map(|c| c.name.as_str()));
        if name.is_some_and(|n| policy.never_clear.iter().any(|never| never == n)) {
            continue;
        }
        out.push((k, f, name));
    }
    out.reverse();
    out
}

/// Whether result `k` of `found` shares its id with another result of its message (a
/// UIMessage whose steps all call `call_0`): the rewrite names a message's results by id, so
/// clearing one would clear them all, the newest included.
pub(super) fn repeated(found: &Found, k: usize) -> bool {
    let Some(result) = found.results.get(k) else {
        return false;
    };
    let near = |j: &usize| found.results.get(*j).filter(|f| f.index == result.index);
    let before = (0..k).rev().map_while(|j| near(&j));
    let after = (k + 1..found.results.len()).map_while(|j| near(&j));
    before.chain(after).any(|f| f.id == result.id)
}

/// The messages a clearing reads, by index: those with tool calls or results; with `newest`
/// (a trim, which clears inside the newest result), the newest one with a result alone.
pub fn read_indices(facts: &[MessageFacts], newest: bool) -> Vec<u32> {
    if newest {
        let last = facts.iter().rposition(|f| !f.tool_result_ids.is_empty());
        return last.map(|i| i as u32).into_iter().collect();
    }
    let holds = |f: &MessageFacts| !f.tool_result_ids.is_empty() || !f.tool_call_ids.is_empty();
    (0..facts.len())
        .filter(|&i| facts.get(i).is_some_and(holds))
        .map(|i| i as u32)
        .collect()
}
