//! The anchored-tail strategy over the `History` seam (`context_compaction::tail`), on an
//! in-memory history of canonical messages that counts what the planner reads: each decision
//! (when a tail is tried at all, which report anchors it, when every message is sized, when
//! the tail grows) shows in what is read and in the plan.

use std::cell::RefCell;

use context_compaction::formats::{Format, MessageUsage};
use context_compaction::history::{Explicit, History, Parts, Sizes, Texts};
use context_compaction::tail::{FromTail, size};
use context_compaction::{
    Compactor, CompactorConfig, Heuristic, MessageFacts, PlanOptions, Result, reported,
};
use serde_json::{Value, json};

mod common;

#[path = "support/anchored.rs"]
mod anchored;

static ESTIMATOR: Heuristic = Heuristic::new();

/// Canonical messages as JSON text, with what the planner asked of them.
#[derive(Default)]
struct Memory {
    messages: Vec<String>,
    summary: String,
    reported: Vec<Explicit>,
    /// Every message whose facts were read, in the order asked.
    read: RefCell<Vec<u32>>,
    /// Every message whose usage was read.
    usages: RefCell<Vec<u32>>,
    /// Each size pass: how many messages it sized (`None`: all).
    sized: RefCell<Vec<Option<usize>>>,
    /// Whether every message has size 0 (a sizer that sees none of their text).
    no_size: bool,
}

impl Memory {
    fn of(messages: Vec<Value>) -> Memory {
        Memory {
            messages: messages.iter().map(Value::to_string).collect(),
            ..Memory::default()
        }
    }

    /// Whether any message before `start` was read.
    fn read_before(&self, start: usize) -> bool {
        self.read.borrow().iter().any(|&i| (i as usize) < start)
    }

    fn full_size_passes(&self) -> usize {
        self.sized.borrow().iter().filter(|s| s.is_none()).count()
    }
}

impl History for Memory {
    fn len(&self) -> usize {
        self.messages.len()
    }

    fn parts(&self) -> Parts<'_> {
        Parts {
            system_prompt: "You are a coding agent.",
            summary: &self.summary,
            tools: &[],
            estimator: &ESTIMATOR,
            reported: &self.reported,
            provider_compaction: Default::default(),
            pinned: &[],
        }
    }

    fn facts(&self, indices: &[u32]) -> Result<Vec<MessageFacts>> {
        self.read.borrow_mut().extend_from_slice(indices);
        let path = |i: u32| format!("messages[{i}]");
        indices
            .iter()
            .map(|&i| {
                Format::Canonical.facts_json(&self.messages[i as usize], &path(i), &ESTIMATOR)
            })
            .collect()
    }

    fn usages(&self, indices: &[u32]) -> Result<Vec<Option<MessageUsage>>> {
        self.usages.borrow_mut().extend_from_slice(indices);
        indices
            .iter()
            .map(|&i| Format::Canonical.usage_json(&self.messages[i as usize], "m"))
            .collect()
    }

    fn sizes(&self, only: Option<&[u32]>, skip_unreadable: bool) -> Result<Sizes> {
        self.sized.borrow_mut().push(only.map(<[u32]>::len));
        // Sized as the package sizes the same messages (`tail::size`).
        let mut found = size::of_texts(Format::Canonical, &self.messages, only, skip_unreadable)?;
        if self.no_size {
            found.sizes.fill(0.0);
        }
        Ok(found)
    }

    fn system_messages(&self) -> Result<Vec<u32>> {
        // The canonical format has no system messages.
        Ok(Vec::new())
    }
}

fn user(text: &str) -> Value {
    json!({ "role": "user", "content": [{ "type": "text", "text": text }] })
}

fn answer(text: &str) -> Value {
    json!({ "role": "assistant", "content": [{ "type": "text", "text": text }], "stopReason": "stop" })
}

/// `turns` questions and answers of about `words` words each.
fn chat(turns: usize, words: usize) -> Vec<Value> {
    let text = |k: usize| format!("{k}: {}", "lorem ipsum dolor ".repeat(words / 3 + 1));
    (0..turns)
        .flat_map(|k| [user(&text(k)), answer(&text(k + 1))])
        .collect()
}

/// Puts on each answer `i` for which `carries(i)` the usage a provider reports for its request
/// (`scale` times our estimate of the messages before it, failed attempts left out).
fn report(messages: &mut [Value], scale: f64, carries: impl Fn(usize) -> bool) {
    let mut sum = 0u64;
    for (i, m) in messages.iter_mut().enumerate() {
        let text = m.to_string();
        let tokens = Format::Canonical
            .facts_json(&text, "m", &ESTIMATOR)
            .unwrap()
            .tokens;
        let failed = m["stopReason"] == "aborted";
        if m["role"] == "assistant" && carries(i) {
            let input = (sum as f64 * scale).round() as u64;
            m["usage"] = json!({ "input": input, "output": 0, "cacheRead": 0, "cacheWrite": 0 });
        }
        if !failed {
            sum += tokens;
        }
    }
}

fn compactor(keep: u64) -> Compactor<common::Fixed> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: keep,
        ..CompactorConfig::new(common::Fixed::new("S"))
    })
    .unwrap()
}

const OVER: PlanOptions = PlanOptions {
    input_token_budget: Some(0),
    require_reduction: false,
};

/// The plan of every message read, as `Compactor::plan_history` makes it without a tail.
fn whole(history: &Memory, keep: u64) -> (u64, Option<usize>) {
    let fresh = Memory {
        messages: history.messages.clone(),
        ..Memory::default()
    };
    let facts = reported::history_facts(&fresh, &[]).unwrap();
    let plan = compactor(keep).plan_with_facts(&facts, OVER).unwrap();
    (facts.total(), plan.map(|p| p.first_kept_index))
}

fn tail(history: &Memory, keep: u64) -> Option<FromTail> {
    compactor(keep).plan_tail(history, OVER).unwrap()
}

#[test]
fn without_usage_only_the_latest_messages_are_read() {
    let history = Memory::of(chat(1_500, 30));
    assert!(tail(&history, 2_000).is_none());
    // The latest 128 messages, to find a report; no size is taken.
    assert_eq!(history.read.borrow().len(), 128);
    assert!(history.sized.borrow().is_empty());
}

#[test]
fn a_short_history_is_not_planned_from_its_tail() {
    let mut messages = chat(999, 30);
    report(&mut messages, 1.2, |_| true);
    let history = Memory::of(messages);
    assert!(tail(&history, 2_000).is_none());
    assert!(history.read.borrow().is_empty());
}

#[test]
fn a_usable_report_plans_from_the_tail_without_reading_the_prefix() {
    let mut messages = chat(2_000, 30);
    report(&mut messages, 1.22, |_| true);
    let history = Memory::of(messages);
    let planned = tail(&history, 2_000).expect("planned from the tail");
    let unread = planned
        .unread_before
        .expect("the prefix neither read nor sized");
    assert!(unread.start > 3_000, "{}", unread.start);
    assert!(!history.read_before(unread.start));
    // Only a sample was sized, never every message.
    assert_eq!(history.full_size_passes(), 0);
    assert_eq!(history.sized.borrow().len(), 1);
    // The latest report anchors it, and the cut is the whole history's.
    let anchor = planned.facts.calibration.anchor.unwrap();
    assert_eq!(anchor.messages, 4_000);
    let first_kept = planned.plan.map(|p| p.first_kept_index);
    assert_eq!(first_kept, whole(&history, 2_000).1);
}

#[test]
fn stale_usage_is_given_up_after_the_sample() {
    let mut messages = chat(2_000, 30);
    report(&mut messages, 8.0, |_| true);
    let history = Memory::of(messages);
    assert!(tail(&history, 2_000).is_none());
    // The first look and the sample, then nothing: every message is read once by the caller.
    assert_eq!(history.read.borrow().len(), 128);
    assert_eq!(history.full_size_passes(), 0);
}

#[test]
fn a_stale_latest_report_is_passed_over_for_an_earlier_usable_one() {
    let mut messages = chat(2_000, 30);
    report(&mut messages, 1.22, |_| true);
    let last = messages.len() - 1;
    report(&mut messages, 9.0, |i| i == last);
    let history = Memory::of(messages);
    let planned = tail(&history, 2_000).expect("planned from the tail");
    // Anchored to the answer before the last, with the prefix left unread.
    assert_eq!(planned.facts.calibration.anchor.unwrap().messages, last - 1);
    assert!(planned.unread_before.is_some());
    assert_eq!(history.full_size_passes(), 0);
}

#[test]
fn a_single_report_sizes_every_message_and_calibrates_over_the_prefix() {
    let mut messages = chat(2_000, 30);
    let last = messages.len() - 1;
    report(&mut messages, 1.22, |i| i == last);
    let history = Memory::of(messages);
    let planned = tail(&history, 2_000).expect("planned from a sized tail");
    assert!(planned.unread_before.is_none());
    assert_eq!(history.full_size_passes(), 1);
    assert_eq!(planned.facts.calibration.anchor.unwrap().messages, last + 1);
    // The prefix counts by its size: every placeholder has tokens.
    let before = history.read.borrow().iter().copied().min().unwrap() as usize;
    assert!(before > 0);
    assert!(
        planned.facts.messages[..before]
            .iter()
            .all(|f| f.tokens > 0)
    );
    let first_kept = planned.plan.map(|p| p.first_kept_index).unwrap();
    let (_, whole_kept) = whole(&history, 2_000);
    assert!(first_kept.abs_diff(whole_kept.unwrap()) <= 16);
}

#[test]
fn a_sample_that_says_nothing_sizes_every_message() {
    let mut messages = chat(2_000, 30);
    report(&mut messages, 1.22, |_| true);
    let history = Memory {
        no_size: true,
        ..Memory::of(messages)
    };
    let planned = tail(&history, 2_000).expect("planned from a sized tail");
    assert!(planned.unread_before.is_none());
    assert_eq!(history.full_size_passes(), 1);
    let (_, whole_kept) = whole(&history, 2_000);
    assert_eq!(planned.plan.map(|p| p.first_kept_index), whole_kept);
}

#[test]
fn short_messages_grow_the_tail_until_two_reports_span_enough() {
    // About 10 tokens a message: the first 256 messages span too little for a ratio.
    let mut messages = chat(2_000, 6);
    report(&mut messages, 1.22, |_| true);
    let history = Memory::of(messages);
    let planned = tail(&history, 200).expect("planned from a longer tail");
    let unread = planned.unread_before.expect("still from a tail");
    assert!(unread.start < 4_000 - 512, "{}", unread.start);
    assert!(!history.read_before(unread.start));
    assert_eq!(history.full_size_passes(), 0);
}

#[test]
fn a_failed_attempt_before_the_tail_is_marked_not_read() {
    let mut messages = chat(2_000, 30);
    messages[11]["stopReason"] = json!("aborted");
    let last = messages.len() - 1;
    report(&mut messages, 1.22, |i| i == last);
    let history = Memory::of(messages);
    let planned = tail(&history, 2_000).expect("planned from a sized tail");
    assert!(!history.read.borrow().contains(&11));
    let failed = &planned.facts.messages[11];
    assert!(failed.failed());
    assert_eq!(failed.tokens, 0);
    assert!(planned.facts.messages[13].tokens > 0);
}

#[test]
fn only_the_latest_answers_are_asked_for_usage() {
    let mut messages = chat(100, 30);
    // Only the 17th answer from the end carries usage: not read.
    let carrier = messages.len() - 1 - 2 * 16;
    report(&mut messages, 1.22, |i| i == carrier);
    let history = Memory::of(messages);
    let facts = reported::history_facts(&history, &[]).unwrap();
    assert!(facts.calibration.anchor.is_none());
    let asked = history.usages.borrow().clone();
    let latest: Vec<u32> = (0..16).map(|k| 199 - 2 * k).collect();
    assert_eq!(asked, latest);
}

#[test]
fn explicit_reports_for_another_summary_are_left_out() {
    let history = |summary: Option<&str>| Memory {
        summary: "the summary now".into(),
        reported: vec![Explicit {
            messages: 150,
            tokens: 9_000,
            summary: summary.map(str::to_owned),
            ..Explicit::default()
        }],
        ..Memory::of(chat(100, 30))
    };
    let anchor = |h: &Memory| reported::history_facts(h, &[]).unwrap().calibration.anchor;
    assert!(anchor(&history(Some("an older summary"))).is_none());
    assert_eq!(
        anchor(&history(Some("the summary now"))).unwrap().messages,
        150
    );
    assert_eq!(anchor(&history(None)).unwrap().messages, 150);
    // One for more messages than the request has is an error naming it.
    let mut past = history(None);
    past.reported[0].messages = 201;
    let error = reported::history_facts(&past, &[]).unwrap_err();
    assert!(
        error.to_string().contains("reportedUsage.messages: 201"),
        "{error}"
    );
}

/// The recorded session three times over (over 2,000 messages), each answer of a later copy
/// reporting what it reported plus the last request of the copies before.
fn session_thrice() -> Vec<Value> {
    let session: Vec<Value> = include_str!("fixtures/large-session.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["type"] == "message")
        .map(|entry| entry["message"].clone())
        .collect();
    let count = |m: &Value, key: &str| m["usage"][key].as_u64().unwrap_or(0);
    let reported = |m: &Value| {
        ["input", "cacheRead", "cacheWrite", "output"]
            .iter()
            .map(|key| count(m, key))
            .sum::<u64>()
    };
    let last = session.iter().map(reported).rfind(|&t| t > 0).unwrap();
    let mut thrice = Vec::new();
    for copy in 0..3 {
        for m in &session {
            let mut m = m.clone();
            if reported(&m) > 0 {
                m["usage"]["input"] = json!(count(&m, "input") + copy * last);
            }
            thrice.push(m);
        }
    }
    thrice
}

#[test]
fn on_the_recorded_session_the_tail_plan_is_the_whole_plan() {
    let messages = session_thrice();
    assert!(messages.len() >= 2_000);
    for keep in [2_000, 20_000] {
        let history = Memory::of(messages.clone());
        let planned = tail(&history, keep).expect("planned from the tail");
        let (total, first_kept) = whole(&history, keep);
        assert!(planned.facts.total().abs_diff(total) <= 2, "keep {keep}");
        assert_eq!(
            planned.plan.map(|p| p.first_kept_index),
            first_kept,
            "keep {keep}"
        );
        let start = planned.unread_before.map_or(0, |u| u.start);
        assert!(start > 0, "keep {keep}");
        assert!(!history.read_before(start));
    }
}

#[test]
fn plan_history_reads_a_tail_when_one_decides_and_every_message_otherwise() {
    let mut messages = chat(2_000, 30);
    report(&mut messages, 1.22, |_| true);
    let long = Memory::of(messages.clone());
    let planned = compactor(2_000).plan_history(&long, OVER).unwrap();
    assert!(planned.unread_before.is_some());
    // Short: read whole, with its usage, as `whole` plans it.
    let short = Memory::of(messages[..1_000].to_vec());
    let planned = compactor(2_000).plan_history(&short, OVER).unwrap();
    assert!(planned.unread_before.is_none());
    assert_eq!(short.read.borrow().len(), 1_000);
    assert!(planned.facts.calibration.anchor.is_some());
    let first_kept = planned.plan.map(|p| p.first_kept_index);
    assert_eq!(first_kept, whole(&short, 2_000).1);
}

/// A history that counts the messages whose facts were read.
struct Counted<'a> {
    history: Texts<'a, String>,
    read: std::cell::Cell<usize>,
}

impl History for Counted<'_> {
    fn len(&self) -> usize {
        self.history.len()
    }

    fn parts(&self) -> Parts<'_> {
        self.history.parts()
    }

    fn facts(&self, indices: &[u32]) -> Result<Vec<MessageFacts>> {
        self.read.set(self.read.get() + indices.len());
        self.history.facts(indices)
    }

    fn usages(&self, indices: &[u32]) -> Result<Vec<Option<MessageUsage>>> {
        self.history.usages(indices)
    }

    fn sizes(&self, only: Option<&[u32]>, skip: bool) -> Result<Sizes> {
        self.history.sizes(only, skip)
    }

    fn system_messages(&self) -> Result<Vec<u32>> {
        self.history.system_messages()
    }
}

/// The long histories of `tests/differential.rs` (the real session repeated, its JSON texts
/// sized as the package sizes them) take each path of a plan from the tail: fresh usage, the
/// first tail decides; usage on the latest answers only, every message sized, after a tail
/// grew (its reports span too little) or at once (one report); stale or missing usage, every
/// message read.
#[test]
fn the_session_s_long_histories_take_every_path_of_a_plan_from_the_tail() {
    use anchored::{LONG, Usage};
    // The plan from the tail, and how many messages' facts it read.
    let tail_of = |usage: Usage| {
        let made = anchored::made(Format::Canonical, LONG, usage);
        let texts: Vec<String> = made.messages.iter().map(Value::to_string).collect();
        let history = Counted {
            history: Texts {
                format: Format::Canonical,
                messages: &texts,
                parts: Parts {
                    system_prompt: "",
                    summary: "",
                    tools: &[],
                    estimator: &ESTIMATOR,
                    reported: &[],
                    provider_compaction: Default::default(),
                    pinned: &[],
                },
            },
            read: std::cell::Cell::new(0),
        };
        let total = reported::history_facts(&history.history, &[])
            .unwrap()
            .total();
        let compactor = Compactor::new(CompactorConfig {
            keep_recent_tokens: 2_000,
            ..CompactorConfig::new(common::Fixed::new("S"))
        })
        .unwrap();
        let options = PlanOptions {
            input_token_budget: Some(total / 2),
            require_reduction: false,
        };
        let planned = compactor.plan_tail(&history, options).unwrap();
        (planned, history.read.get())
    };
    // The first tail, the latest 256 messages, decides.
    let (fresh, read) = tail_of(Usage::Scaled(1.22));
    let fresh = fresh.unwrap();
    assert_eq!(fresh.unread_before.map(|u| u.start), Some(LONG - 256));
    assert_eq!(read, 256);
    // Reports too close together to calibrate: the tail grows to the whole history, then
    // every message is sized and a tail of it decides.
    let (grown, read) = tail_of(Usage::RecentOnly(60));
    let grown = grown.unwrap();
    assert!(grown.unread_before.is_none() && grown.plan.is_some());
    assert!(read >= LONG, "{read}");
    let (sized, read) = tail_of(Usage::LatestOnly);
    assert!(sized.unwrap().unread_before.is_none());
    assert!(read < LONG / 2, "{read}");
    // Stale everywhere, or no usage on the latest answers: read whole.
    for usage in [Usage::Scaled(5.0), Usage::OldOnly(400), Usage::Missing] {
        assert!(tail_of(usage).0.is_none(), "{usage:?}");
    }
}

#[test]
fn when_the_tail_gives_up_every_message_is_read_once() {
    let stale = {
        let mut messages = chat(2_000, 30);
        report(&mut messages, 8.0, |_| true);
        messages
    };
    // Nothing reported; every report stale; stale reports, then more user messages than the
    // first look reads: it holds none of the latest answers, whose usage is read after it.
    let mut sparse = chat(1_935, 30);
    report(&mut sparse, 8.0, |_| true);
    sparse.extend((0..130).map(|k| user(&format!("more {k}"))));
    for messages in [chat(2_000, 30), stale, sparse] {
        let history = Memory::of(messages);
        let planned = compactor(2_000).plan_history(&history, OVER).unwrap();
        assert!(planned.unread_before.is_none());
        let mut read = history.read.borrow().clone();
        read.sort_unstable();
        assert_eq!(
            read,
            (0..4_000).collect::<Vec<u32>>(),
            "each message read once"
        );
        // The usage of the latest answers, once each.
        assert_eq!(history.usages.borrow().len(), reported::LATEST);
        // The same facts and plan as reading every message at once.
        let fresh = Memory {
            messages: history.messages.clone(),
            ..Memory::default()
        };
        let facts = reported::history_facts(&fresh, &[]).unwrap();
        assert_eq!(planned.facts, facts);
        let first_kept = planned.plan.map(|p| p.first_kept_index);
        assert_eq!(first_kept, whole(&history, 2_000).1);
    }
}

fn clearing_compactor(keep: u64) -> Compactor<common::Fixed> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: keep,
        clearing: Some(context_compaction::clearing::ClearingPolicy::default()),
        ..CompactorConfig::new(common::Fixed::new("S"))
    })
    .unwrap()
}

#[test]
fn decide_history_plans_from_the_tail_unless_clearing_may_replace_the_plan() {
    let mut messages = chat(2_000, 30);
    report(&mut messages, 1.22, |_| true);
    let found = RefCell::new(Vec::new());
    let mut find = |_: &context_compaction::clearing::ClearingPolicy, facts: &_| {
        let facts: &context_compaction::RequestFacts = facts;
        found.borrow_mut().push(facts.messages.len());
        Ok(context_compaction::clearing::Found::default())
    };
    // Clearing off: the tail decides, the prefix is not read, nothing is looked for.
    let history = Memory::of(messages.clone());
    let decided = compactor(2_000)
        .decide_history(&history, OVER, &mut find)
        .unwrap();
    let start = decided.unread_before.expect("from the tail").start;
    assert!(!history.read_before(start));
    let Some(context_compaction::Planned::Summarize(plan)) = decided.planned else {
        panic!("a summary plan");
    };
    assert_eq!(Some(plan.first_kept_index), whole(&history, 2_000).1);
    assert!(found.borrow().is_empty());
    // Clearing on: every message is read and its results looked for; nothing to clear here,
    // so the same summary plan, its estimates left to the facts.
    let history = Memory::of(messages);
    let decided = clearing_compactor(2_000)
        .decide_history(&history, OVER, &mut find)
        .unwrap();
    assert!(decided.unread_before.is_none());
    assert_eq!(found.borrow().as_slice(), &[4_000]);
    let Some(context_compaction::Planned::Summarize(plan)) = decided.planned else {
        panic!("a summary plan");
    };
    assert_eq!(Some(plan.first_kept_index), whole(&history, 2_000).1);
    assert!(plan.message_tokens.is_empty());
    assert_eq!(decided.facts.messages.len(), 4_000);
}
