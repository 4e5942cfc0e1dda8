//! The shapes of the outputs, looked into as trees.

use super::*;
use crate::anchor::Report;
use crate::clearing::{ClearedResult, Clearing};
use crate::facts::{MessageFacts, RequestFacts};
use crate::plan::Plan;
use crate::record::{Receipt, Record};
use crate::report::Calibration;
use crate::summarizer::Usage;

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
}

#[test]
fn a_run_and_its_error_carry_the_state_the_records_and_the_attempts() {
    let ran = crate::manager::Ran {
        response: (),
        state: (),
        compactions: vec![RECORD, RECORD],
        failed_attempts: Vec::<()>::new(),
    };
    let resolved = tree(|w| self::ran(w, &ran));
    let expected = ["response", "state", "compactions", "failedAttempts"];
    assert_eq!(keys(&resolved), expected);
    assert_eq!(get(&resolved, "response"), &Out::Slot(0));
    assert_eq!(get(&resolved, "state"), &Out::Slot(1));
    assert_eq!(get(&resolved, "failedAttempts"), &Out::Slot(2));
    let Out::List(compactions) = get(&resolved, "compactions") else {
        panic!("a list");
    };
    assert_eq!(get(&compactions[1], "firstKeptIndex"), &Out::Count(3));
    let failed = crate::manager::RunError {
        failure: crate::manager::RunFailure::Provider(()),
        state: (),
        compactions: vec![RECORD],
        failed_attempts: Vec::<()>::new(),
    };
    let carried = tree(|w| run_error(w, &failed));
    assert_eq!(keys(&carried), ["state", "compactions", "failedAttempts"]);
    assert_eq!(get(&carried, "state"), &Out::Slot(0));
    assert_eq!(get(&carried, "failedAttempts"), &Out::Slot(1));
}

#[test]
fn maintenance_says_where_each_message_came_from_only_when_it_rewrote_them() {
    use crate::manager::{Maintained, Outcome, PendingUse};
    use crate::pending::Origin;
    let done = Maintained {
        state: (),
        outcome: Outcome::Compacted,
        record: Some(RECORD),
        error: None,
        cleared: None,
        pending: PendingUse::Committed,
        origins: vec![Origin { index: 1, part: 0 }, Origin { index: 3, part: 2 }],
    };
    let resolved = tree(|w| maintained(w, &done));
    let expected = [
        "state",
        "compacted",
        "reason",
        "record",
        "origins",
        "pending",
    ];
    assert_eq!(keys(&resolved), expected);
    let Out::List(origins) = get(&resolved, "origins") else {
        panic!("a list");
    };
    assert_eq!(keys(&origins[1]), ["index", "part"]);
    assert_eq!(get(&origins[1], "index"), &Out::Count(3));
    assert_eq!(get(&origins[1], "part"), &Out::Count(2));
    let below = Maintained {
        state: (),
        outcome: Outcome::BelowThreshold,
        record: None,
        error: None,
        cleared: None,
        pending: PendingUse::None,
        origins: Vec::new(),
    };
    let resolved = tree(|w| maintained(w, &below));
    assert_eq!(keys(&resolved), ["state", "compacted", "reason", "record"]);
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
