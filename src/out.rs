//! What the package returns, as plain data: the shape of each output (its keys, in order, and
//! what each holds) is written once here, value by value, into a [`Sink`] the binding implements
//! (it builds the JavaScript values as they come: no tree in between). What only the binding
//! holds (a host's own message arrays, typed arrays, a thrown value) is a slot it fills in
//! ([`Sink::slot`]).
//!
//! Each writer writes one value: under `key` when an object is open, as the next item when an
//! array is, as the whole output when nothing is (the key is then unused; the binding's
//! callers pass `""`).

use crate::clearing::{Clearing, Found};
use crate::draft::Draft;
use crate::facts::RequestFacts;
use crate::manager::{Event, Maintained};
use crate::plan::Plan;
use crate::record::{Receipt, Record};
use crate::summarizer::Usage;

/// Where an output is written: one call per value, objects and arrays between
/// [`Sink::open`] and [`Sink::close`].
pub trait Sink {
    /// `null`.
    fn null(&mut self, key: &'static str);
    /// A boolean.
    fn bool(&mut self, key: &'static str, value: bool);
    /// A number.
    fn number(&mut self, key: &'static str, value: f64);
    /// A string.
    fn text(&mut self, key: &'static str, value: &str);
    /// The `k`-th value the binding holds.
    fn slot(&mut self, key: &'static str, k: usize);
    /// Opens an object, or (`list`) an array: what follows goes in it until [`Sink::close`].
    fn open(&mut self, key: &'static str, list: bool);
    /// Closes the innermost open object or array.
    fn close(&mut self);
    /// A whole number (a count of tokens, messages, …).
    fn count(&mut self, key: &'static str, value: u64) {
        self.number(key, value as f64);
    }
}

/// The plan's slots, for [`plan`].
pub mod plan_slot {
    /// `firstKeptId`: the id of the message the kept suffix starts in, or `null`.
    pub const ID: usize = 0;
    /// `messageTokens`: the estimate of each message (a `Float64Array`).
    pub const TOKENS: usize = 1;
    /// `messagesToSummarize`, or (a plan of a body) `messageSpans`.
    pub const FIRST: usize = 2;
    /// `turnPrefixMessages`.
    pub const SECOND: usize = 3;
}

/// `{ input, output, cacheRead, cacheWrite, totalTokens }`.
pub fn usage<W: Sink>(w: &mut W, key: &'static str, usage: &Usage) {
    w.open(key, false);
    w.count("input", usage.input);
    w.count("output", usage.output);
    w.count("cacheRead", usage.cache_read);
    w.count("cacheWrite", usage.cache_write);
    w.count("totalTokens", usage.total_tokens);
    w.close();
}

/// A record: `{ summary, firstKeptIndex, firstKeptPart, estimateBefore, estimateAfter, usage?,
/// receipt }`, and of a trim `kind: "trim"` and `tokensFreed`.
pub fn record<W: Sink>(w: &mut W, key: &'static str, record: &Record) {
    w.open(key, false);
    w.text("summary", &record.summary);
    w.count("firstKeptIndex", record.first_kept_index as u64);
    w.count("firstKeptPart", record.first_kept_part as u64);
    w.count("estimateBefore", record.estimate_before);
    w.count("estimateAfter", record.estimate_after);
    if let Some(used) = &record.usage {
        usage(w, "usage", used);
    }
    if record.trimmed {
        w.text("kind", "trim");
        let freed = record.estimate_before.saturating_sub(record.estimate_after);
        w.count("tokensFreed", freed);
    }
    receipt(w, &record.receipt);
    w.close();
}

/// A record's `receipt`: `{ summarizedMessages, summarizedTokens, digest, pinned, cleared }`
/// (`digest` `null` when nothing was summarized; `pinned` and `cleared` message indices).
pub fn receipt<W: Sink>(w: &mut W, receipt: &Receipt) {
    w.open("receipt", false);
    w.count("summarizedMessages", receipt.summarized_messages as u64);
    w.count("summarizedTokens", receipt.summarized_tokens);
    match receipt.digest {
        Some(digest) => w.text("digest", &digest.to_hex()),
        None => w.null("digest"),
    }
    indices(w, "pinned", &receipt.pinned);
    indices(w, "cleared", &receipt.cleared);
    w.close();
}

fn indices<W: Sink>(w: &mut W, key: &'static str, indices: &[usize]) {
    w.open(key, true);
    for &i in indices {
        w.count("", i as u64);
    }
    w.close();
}

/// The record of a clearing that left the summary `summary`: `{ kind: "clear", summary,
/// firstKeptIndex: 0, firstKeptPart: 0, estimateBefore, estimateAfter, tokensFreed,
/// clearedResults, receipt }` (how many results it cleared).
pub fn clear_record<W: Sink>(w: &mut W, key: &'static str, summary: &str, clearing: &Clearing) {
    w.open(key, false);
    w.text("kind", CLEAR);
    w.text("summary", summary);
    w.count("firstKeptIndex", 0);
    w.count("firstKeptPart", 0);
    w.count("estimateBefore", clearing.estimate_before);
    w.count("estimateAfter", clearing.estimate_after);
    w.count("tokensFreed", clearing.tokens_freed());
    w.count("clearedResults", clearing.results.len() as u64);
    let cleared = Receipt {
        cleared: clearing.messages(),
        ..Receipt::NONE
    };
    receipt(w, &cleared);
    w.close();
}

/// A record of either kind: of a clearing, the clear record of `cleared`; none: `null`.
pub fn any_record<W: Sink>(
    w: &mut W,
    key: &'static str,
    record: Option<&Record>,
    cleared: Option<&Clearing>,
) {
    match (record, cleared) {
        (None, _) => w.null(key),
        (Some(record), Some(cleared)) => clear_record(w, key, &record.summary, cleared),
        (Some(record), None) => self::record(w, key, record),
    }
}

/// `{ summary, messages, record }` of an apply: the messages are slot 0, the record is
/// `cleared`'s clear record, else `record`'s, else `null`.
pub fn outcome<W: Sink>(
    w: &mut W,
    summary: &str,
    record: Option<&Record>,
    cleared: Option<&Clearing>,
) {
    w.open("", false);
    w.text("summary", summary);
    w.slot("messages", 0);
    match (record, cleared) {
        (_, Some(cleared)) => clear_record(w, "record", summary, cleared),
        (record, None) => any_record(w, "record", record, None),
    }
    w.close();
}

/// A draft: `{ summary, firstKeptIndex, firstKeptPart, firstKeptId, digest, previousDigest,
/// usage? }`, `firstKeptId` (the id of the message the kept suffix starts in, or `null`) slot 0.
pub fn draft<W: Sink>(w: &mut W, draft: &Draft) {
    w.open("", false);
    w.text("summary", &draft.summary);
    w.count("firstKeptIndex", draft.first_kept_index as u64);
    w.count("firstKeptPart", draft.first_kept_part as u64);
    w.slot("firstKeptId", 0);
    w.text("digest", &draft.digest.to_hex());
    w.text("previousDigest", &draft.previous.to_hex());
    if let Some(used) = &draft.usage {
        usage(w, "usage", used);
    }
    w.close();
}

/// An estimate: `{ total, systemPrompt, summary, messages, tools }`, and when the provider's
/// counts were used, the `ratio` and the `anchor` (`{ messages, tokens }`).
pub fn estimate<W: Sink>(w: &mut W, facts: &RequestFacts) {
    w.open("", false);
    w.count("total", facts.total());
    w.count("systemPrompt", facts.system_prompt);
    w.count("summary", facts.summary);
    w.open("messages", true);
    for f in &facts.messages {
        w.count("", f.tokens);
    }
    w.close();
    w.count("tools", facts.tools);
    // Without the provider's counts the estimate is as it was.
    let calibration = &facts.calibration;
    if let Some(anchor) = calibration.anchor {
        w.number("ratio", calibration.ratio());
        w.open("anchor", false);
        w.count("messages", anchor.messages as u64);
        w.count("tokens", anchor.tokens);
        w.close();
    }
    w.close();
}

/// A summary plan, its slots those of [`plan_slot`]: where the kept suffix starts, the message
/// arrays (`with_messages`: none for a plan of a body), the turn prefix, the estimates,
/// `messageTokens`, `pinnedIndices` (the messages before the cut kept because the host
/// pinned them: `pinned`), then (a plan of a body) `messageSpans`.
pub fn plan<W: Sink>(w: &mut W, plan: &Plan, pinned: &[usize], with_messages: bool) {
    w.open("", false);
    w.count("firstKeptIndex", plan.first_kept_index as u64);
    w.count("firstKeptPart", plan.first_kept_part as u64);
    w.slot("firstKeptId", plan_slot::ID);
    if with_messages {
        w.slot("messagesToSummarize", plan_slot::FIRST);
        w.slot("turnPrefixMessages", plan_slot::SECOND);
    }
    w.count("turnPrefixStart", plan.turn_prefix_messages.start as u64);
    w.bool("splitTurn", plan.split_turn);
    w.count("estimateBefore", plan.estimate_before);
    let after = plan.estimate_after_without_summary;
    w.count("estimateAfterWithoutSummary", after);
    w.slot("messageTokens", plan_slot::TOKENS);
    w.open("pinnedIndices", true);
    for &i in pinned {
        w.count("", i as u64);
    }
    w.close();
    if !with_messages {
        w.slot("messageSpans", plan_slot::FIRST);
    }
    w.close();
}

/// The plan of a clearing (of a request with `facts`): `{ kind: "clear", clearedResults,
/// argumentMessages, estimateBefore, estimateAfter, tokensFreed }` with the fields of a summary
/// plan that summarizes nothing, so that it is a plan too; `messageTokens` is slot 0, and
/// `with_messages` (not for a plan of a body) adds empty message arrays and `messages` (the
/// messages with the cleared ones rewritten), slot 1.
pub fn clear_plan<W: Sink>(
    w: &mut W,
    facts: &RequestFacts,
    clearing: &Clearing,
    with_messages: bool,
) {
    w.open("", false);
    w.text("kind", CLEAR);
    w.count("firstKeptIndex", 0);
    w.count("firstKeptPart", 0);
    w.null("firstKeptId");
    w.count("turnPrefixStart", 0);
    w.bool("splitTurn", false);
    let after = clearing.estimate_after.saturating_sub(facts.summary);
    w.count("estimateAfterWithoutSummary", after);
    w.slot("messageTokens", 0);
    // A clearing summarizes nothing: no message is kept for being pinned.
    w.open("pinnedIndices", true);
    w.close();
    w.open("clearedResults", true);
    for r in &clearing.results {
        w.open("", false);
        w.count("index", r.index as u64);
        w.text("toolCallId", &r.tool_call_id);
        match r.tool_name.as_deref() {
            Some(name) => w.text("toolName", name),
            None => w.null("toolName"),
        }
        w.count("tokens", r.tokens);
        w.text("text", &r.text);
        w.close();
    }
    w.close();
    w.open("argumentMessages", true);
    for &i in &clearing.argument_messages {
        w.count("", i as u64);
    }
    w.close();
    w.count("estimateBefore", clearing.estimate_before);
    w.count("estimateAfter", clearing.estimate_after);
    w.count("tokensFreed", clearing.tokens_freed());
    if with_messages {
        for key in ["messagesToSummarize", "turnPrefixMessages"] {
            w.open(key, true);
            w.close();
        }
        w.slot("messages", 1);
    }
    w.close();
}

/// The results of `found` at `listed` (`crate::clearing::stored_clearable`), as
/// `[{ index, toolCallId }]`.
pub fn clearable<W: Sink>(w: &mut W, found: &Found, listed: &[usize]) {
    w.open("", true);
    for r in listed.iter().filter_map(|&k| found.results.get(k)) {
        w.open("", false);
        w.count("index", r.index as u64);
        w.text("toolCallId", &r.id);
        w.close();
    }
    w.close();
}

/// A manager's event for its listener: `{ type: "compactionStart", reason, estimate, plan }`
/// (the plan is slot 0) or `{ type: "compactionEnd", reason, record, error? }` (of a
/// clearing, `cleared`'s record; the error is slot 0).
pub fn event<W: Sink>(w: &mut W, event: &Event<'_>, cleared: Option<&Clearing>) {
    w.open("", false);
    match event {
        Event::Start {
            reason, estimate, ..
        } => {
            w.text("type", "compactionStart");
            w.text("reason", reason.as_str());
            w.count("estimate", *estimate);
            w.slot("plan", 0);
        }
        Event::End {
            reason,
            record,
            error,
        } => {
            w.text("type", "compactionEnd");
            w.text("reason", reason.as_str());
            any_record(w, "record", *record, cleared);
            if error.is_some() {
                w.slot("error", 0);
            }
        }
    }
    w.close();
}

/// What maintenance did: `{ state, compacted, reason, record, error? }` (the state is slot 0,
/// the error slot 1).
pub fn maintained<W: Sink, S>(w: &mut W, done: &Maintained<S>) {
    let record = done.record.as_ref();
    w.open("", false);
    w.slot("state", 0);
    w.bool("compacted", record.is_some());
    w.text("reason", done.outcome.as_str());
    any_record(w, "record", record, done.cleared.as_ref());
    if done.error.is_some() {
        w.slot("error", 1);
    }
    if let Some(pending) = done.pending.as_str() {
        w.text("pending", pending);
    }
    w.close();
}

/// Records, in order.
pub fn records<W: Sink>(w: &mut W, records: &[Record]) {
    w.open("", true);
    for r in records {
        record(w, "", r);
    }
    w.close();
}

/// The `kind` of a clear plan and of its record.
pub const CLEAR: &str = "clear";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::Report;
    use crate::clearing::ClearedResult;
    use crate::facts::MessageFacts;
    use crate::report::Calibration;

    /// An output as a tree, for the tests to look into.
    #[derive(Debug, Clone, PartialEq)]
    enum Out {
        Null,
        Bool(bool),
        Count(u64),
        Number(f64),
        Text(String),
        List(Vec<Out>),
        Fields(Vec<(&'static str, Out)>),
        Slot(usize),
    }

    /// A [`Sink`] that builds the tree.
    #[derive(Default)]
    struct Tree {
        open: Vec<(&'static str, Out)>,
        done: Option<Out>,
    }

    impl Tree {
        fn put(&mut self, key: &'static str, value: Out) {
            match self.open.last_mut() {
                Some((_, Out::List(items))) => items.push(value),
                Some((_, Out::Fields(fields))) => fields.push((key, value)),
                _ => self.done = Some(value),
            }
        }
    }

    impl Sink for Tree {
        fn null(&mut self, key: &'static str) {
            self.put(key, Out::Null);
        }
        fn bool(&mut self, key: &'static str, value: bool) {
            self.put(key, Out::Bool(value));
        }
        fn number(&mut self, key: &'static str, value: f64) {
            self.put(key, Out::Number(value));
        }
        fn count(&mut self, key: &'static str, value: u64) {
            self.put(key, Out::Count(value));
        }
        fn text(&mut self, key: &'static str, value: &str) {
            self.put(key, Out::Text(value.to_owned()));
        }
        fn slot(&mut self, key: &'static str, k: usize) {
            self.put(key, Out::Slot(k));
        }
        fn open(&mut self, key: &'static str, list: bool) {
            let empty = if list {
                Out::List(Vec::new())
            } else {
                Out::Fields(Vec::new())
            };
            self.open.push((key, empty));
        }
        fn close(&mut self) {
            let (key, value) = self.open.pop().unwrap();
            self.put(key, value);
        }
    }

    /// What `write` writes, as a tree.
    fn tree(write: impl FnOnce(&mut Tree)) -> Out {
        let mut tree = Tree::default();
        write(&mut tree);
        assert!(tree.open.is_empty(), "left open");
        tree.done.unwrap()
    }

    fn text(s: &str) -> Out {
        Out::Text(s.to_owned())
    }

    /// The keys of an object, in order.
    fn keys(out: &Out) -> Vec<&'static str> {
        match out {
            Out::Fields(fields) => fields.iter().map(|(k, _)| *k).collect(),
            other => panic!("not an object: {other:?}"),
        }
    }

    fn get<'a>(out: &'a Out, key: &str) -> &'a Out {
        match out {
            Out::Fields(fields) => &fields.iter().find(|(k, _)| *k == key).unwrap().1,
            other => panic!("not an object: {other:?}"),
        }
    }

    const RECORD: Record = Record {
        summary: String::new(),
        first_kept_index: 3,
        first_kept_part: 0,
        estimate_before: 900,
        estimate_after: 200,
        usage: None,
        trimmed: false,
        receipt: Receipt::NONE,
    };

    #[test]
    fn a_record_says_its_kind_and_what_it_freed_only_for_a_trim() {
        let plain_record = RECORD;
        let plain = tree(|w| record(w, "", &plain_record));
        let summary = [
            "summary",
            "firstKeptIndex",
            "firstKeptPart",
            "estimateBefore",
            "estimateAfter",
            "receipt",
        ];
        assert_eq!(keys(&plain), summary);
        let trim_record = Record {
            trimmed: true,
            ..RECORD
        };
        let trim = tree(|w| record(w, "", &trim_record));
        assert_eq!(get(&trim, "kind"), &text("trim"));
        assert_eq!(get(&trim, "tokensFreed"), &Out::Count(700));
        let usage = Usage {
            input: 1,
            output: 2,
            cache_read: 0,
            cache_write: 0,
            total_tokens: 3,
        };
        let used_record = Record {
            usage: Some(usage),
            ..RECORD
        };
        let used = tree(|w| record(w, "", &used_record));
        assert_eq!(get(get(&used, "usage"), "totalTokens"), &Out::Count(3));
    }

    fn clearing() -> Clearing {
        Clearing {
            results: vec![ClearedResult {
                index: 2,
                tool_call_id: "c1".to_owned(),
                tool_name: None,
                tokens: 500,
                text: "[cleared]".to_owned(),
            }],
            argument_messages: vec![1],
            estimate_before: 900,
            estimate_after: 400,
        }
    }

    #[test]
    fn a_clearing_is_a_plan_that_summarizes_nothing_and_its_record_counts_results() {
        let facts = RequestFacts {
            summary: 50,
            ..RequestFacts::default()
        };
        let cleared = clearing();
        let plan = tree(|w| clear_plan(w, &facts, &cleared, true));
        assert_eq!(get(&plan, "kind"), &text(CLEAR));
        assert_eq!(get(&plan, "estimateAfterWithoutSummary"), &Out::Count(350));
        assert_eq!(get(&plan, "tokensFreed"), &Out::Count(500));
        assert_eq!(get(&plan, "messages"), &Out::Slot(1));
        let result = match get(&plan, "clearedResults") {
            Out::List(results) => results[0].clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(get(&result, "toolName"), &Out::Null);
        // A plan of a body has no message arrays.
        let of_body = tree(|w| clear_plan(w, &facts, &cleared, false));
        assert!(!keys(&of_body).contains(&"messages"));
        let record = tree(|w| clear_record(w, "", "S", &clearing()));
        assert_eq!(get(&record, "clearedResults"), &Out::Count(1));
        let record = RECORD;
        let any = tree(|w| any_record(w, "", Some(&record), Some(&cleared)));
        assert_eq!(any, tree(|w| clear_record(w, "", "", &clearing())));
        assert_eq!(tree(|w| any_record(w, "", None, None)), Out::Null);
    }

    #[test]
    fn an_outcome_holds_the_clear_record_of_a_clearing_else_the_record_or_null() {
        let keys_of = |out: &Out| keys(out);
        let cleared = clearing();
        let of_clearing = tree(|w| outcome(w, "S", None, Some(&cleared)));
        assert_eq!(keys_of(&of_clearing), ["summary", "messages", "record"]);
        assert_eq!(get(&of_clearing, "messages"), &Out::Slot(0));
        let record = get(&of_clearing, "record");
        assert_eq!(get(record, "kind"), &text(CLEAR));
        assert_eq!(get(record, "summary"), &text("S"));
        let summarized = RECORD;
        let of_summary = tree(|w| outcome(w, "T", Some(&summarized), None));
        assert_eq!(
            get(get(&of_summary, "record"), "firstKeptIndex"),
            &Out::Count(3)
        );
        let of_nothing = tree(|w| outcome(w, "T", None, None));
        assert_eq!(get(&of_nothing, "record"), &Out::Null);
        let listed = tree(|w| records(w, &[RECORD, RECORD]));
        assert!(matches!(listed, Out::List(ref items) if items.len() == 2));
    }

    #[test]
    fn a_summary_plan_keeps_its_keys_in_order() {
        let plan = Plan {
            first_kept_index: 4,
            first_kept_part: 0,
            messages_to_summarize: 0..2,
            turn_prefix_messages: 2..4,
            split_turn: true,
            estimate_before: 10,
            estimate_after_without_summary: 5,
            message_tokens: Vec::new(),
        };
        let objects = [
            "firstKeptIndex",
            "firstKeptPart",
            "firstKeptId",
            "messagesToSummarize",
            "turnPrefixMessages",
            "turnPrefixStart",
            "splitTurn",
            "estimateBefore",
            "estimateAfterWithoutSummary",
            "messageTokens",
            "pinnedIndices",
        ];
        assert_eq!(keys(&tree(|w| self::plan(w, &plan, &[1], true))), objects);
        let body = tree(|w| self::plan(w, &plan, &[1], false));
        assert_eq!(keys(&body).last(), Some(&"messageSpans"));
        assert_eq!(get(&body, "turnPrefixStart"), &Out::Count(2));
        assert_eq!(get(&body, "pinnedIndices"), &Out::List(vec![Out::Count(1)]));
    }

    #[test]
    fn an_estimate_shows_the_anchor_only_when_calibrated() {
        let mut facts = RequestFacts {
            messages: vec![MessageFacts::default(); 2],
            ..RequestFacts::default()
        };
        assert_eq!(keys(&tree(|w| estimate(w, &facts))).len(), 5);
        facts.calibration = Calibration {
            ratio_ppm: 1_500_000,
            adjustment: 0,
            anchor: Some(Report {
                messages: 2,
                tokens: 30,
                fixed: None,
            }),
        };
        let estimate = tree(|w| estimate(w, &facts));
        assert_eq!(get(&estimate, "ratio"), &Out::Number(1.5));
        assert_eq!(get(get(&estimate, "anchor"), "tokens"), &Out::Count(30));
    }
}
