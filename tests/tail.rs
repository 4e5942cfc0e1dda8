//! Planning an anchored long history from its tail (`context_compaction::tail`): whenever a
//! tail decides the plan, it is the plan of the whole history, and a tail past the keep
//! boundary usually decides it.

mod common;

use common::*;
use context_compaction::formats::{Format, MessageUsage};
use context_compaction::tail::{self, fill_unread};
use context_compaction::{
    Heuristic, MessageFacts, MessageFlags, PlanOptions, Report, RequestFacts, Role, anchor, body,
};
use serde_json::Value;

/// The real session's messages as JSON text, one per message.
fn session() -> Vec<String> {
    include_str!("fixtures/large-session.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["type"] == "message")
        .map(|entry| entry["message"].to_string())
        .collect()
}

/// The raw facts of the first `end` messages, and the reports on them as a host passes them.
fn request(messages: &[String], end: usize) -> (RequestFacts, Vec<Report>) {
    let array = format!("[{}]", messages[..end].join(","));
    let read = body::facts(array.as_bytes(), Format::Canonical, &Heuristic::new()).unwrap();
    let mut reports = Vec::new();
    for (i, text) in messages[..end].iter().enumerate() {
        if let Some(usage) = Format::Canonical.usage_json(text, "m").unwrap() {
            reports.push(Report::carried(i, usage));
        }
    }
    let facts = RequestFacts {
        system_prompt: 900,
        messages: read.messages,
        ..RequestFacts::default()
    };
    (facts, reports)
}

/// `facts` with the messages before `start` unread: placeholders of the same tokens, so that
/// calibration comes out the same (failed attempts, which calibration leaves out, stay failed)
/// and only what the tail decides is tested.
fn unread_before(facts: &RequestFacts, start: usize) -> RequestFacts {
    placeholders_before(facts, start, true)
}

/// `facts` with the messages before `start` replaced by placeholders that keep only whether
/// they failed, and their tokens when `sized`.
fn placeholders_before(facts: &RequestFacts, start: usize, sized: bool) -> RequestFacts {
    let mut tail = facts.clone();
    for f in &mut tail.messages[..start] {
        *f = MessageFacts {
            tokens: if sized { f.tokens } else { 0 },
            flags: MessageFlags::NONE.with(MessageFlags::FAILED, f.failed()),
            ..MessageFacts::default()
        };
    }
    tail
}

#[test]
fn a_tail_that_decides_decides_as_the_whole_history() {
    let messages = session();
    let (mut decided, mut tried) = (0, 0);
    for keep in [2_000.0, 8_000.0, 20_000.0] {
        let compactor = compactor(keep, Fixed::new("s"));
        for end in (300..=messages.len()).step_by(100) {
            let (raw, reports) = request(&messages, end);
            let mut full = raw.clone();
            anchor::calibrate(&mut full, &reports);
            let estimate = full.total() as f64 / compactor.trigger_ratio();
            let budgets = [0.5, 0.99, 1.01, 1.5].map(|f| Some((estimate * f) as u64));
            for (budget, require_reduction) in budgets
                .map(|b| (b, false))
                .into_iter()
                .chain([(None, true)])
            {
                let options = PlanOptions {
                    input_token_budget: budget,
                    require_reduction,
                };
                let whole = compactor.plan_with_facts(&full, options).unwrap();
                for back in [5, 20, 60, 150, 300] {
                    let start = end.saturating_sub(back);
                    let mut facts = unread_before(&raw, start);
                    anchor::calibrate(&mut facts, &reports);
                    tried += 1;
                    if let Some(planned) = compactor.plan_from_tail(&facts, start, options).unwrap()
                    {
                        decided += 1;
                        assert_eq!(
                            planned, whole,
                            "keep {keep}, end {end}, start {start}, budget {budget:?}"
                        );
                    }
                }
            }
        }
    }
    // Long enough tails decide most plans (the short ones cannot: the cut is before them).
    assert!(decided * 3 > tried, "{decided} of {tried} decided");
}

#[test]
fn a_short_tail_never_decides_a_cut_before_it() {
    let messages = session();
    let (raw, reports) = request(&messages, messages.len());
    let compactor = compactor(20_000.0, Fixed::new("s"));
    let options = PlanOptions {
        input_token_budget: None,
        require_reduction: true,
    };
    let start = raw.messages.len() - 5;
    let mut facts = unread_before(&raw, start);
    anchor::calibrate(&mut facts, &reports);
    assert_eq!(
        compactor.plan_from_tail(&facts, start, options).unwrap(),
        None
    );
    // From the first message, the tail is the whole history.
    let mut whole = raw.clone();
    anchor::calibrate(&mut whole, &reports);
    let planned = compactor.plan_from_tail(&whole, 0, options).unwrap();
    assert_eq!(
        planned,
        Some(compactor.plan_with_facts(&whole, options).unwrap())
    );
}

#[test]
fn without_a_report_no_tail_decides() {
    let messages = session();
    let (raw, _) = request(&messages, messages.len());
    let compactor = compactor(2_000.0, Fixed::new("s"));
    let options = PlanOptions {
        input_token_budget: Some(1_000),
        require_reduction: false,
    };
    let start = raw.messages.len() / 2;
    let facts = unread_before(&raw, start);
    assert_eq!(
        compactor.plan_from_tail(&facts, start, options).unwrap(),
        None
    );
}

#[test]
fn unread_messages_are_counted_by_size_at_the_rate_of_those_read() {
    let read = |tokens| MessageFacts {
        tokens,
        ..MessageFacts::default()
    };
    let mut messages = vec![read(0), read(7), read(0), read(30), read(10)];
    let sizes = [40.0, 1.0, 8.0, 100.0, 20.0];
    // Messages 3.. and the system message 1 were read; the rate is the tail's alone: 40 tokens
    // over 120 units of size.
    fill_unread(&mut messages, &sizes, 3, &[1]);
    let tokens: Vec<u64> = messages.iter().map(|f| f.tokens).collect();
    assert_eq!(tokens, [13, 7, 3, 30, 10]);
}

#[test]
fn deferred_tokens_leave_failed_attempts_out_of_the_rate_and_count_them_0() {
    // Calibrated: the failed attempt 3 in the tail counts 0, and says nothing of the rate (40
    // tokens over 120 units of size, not over 170).
    let mut tokens = [0.0, 7.0, 0.0, 0.0, 30.0, 10.0];
    let sizes = [40.0, 1.0, 8.0, 50.0, 100.0, 20.0];
    tail::fill_deferred(&mut tokens, &sizes, 3, &[1], &[2, 3]);
    assert_eq!(tokens, [13.0, 7.0, 0.0, 0.0, 30.0, 10.0]);
}

#[test]
fn tails_grow_from_the_keep_boundary_to_the_whole_history() {
    let sizes = vec![10.0; 1_000];
    // 1,000 tokens to keep: 8,000 units of size, 800 messages.
    assert_eq!(tail::first_start(&sizes, 1_000), 200);
    // Never fewer than 256 messages.
    assert_eq!(tail::first_start(&sizes, 0), 744);
    assert_eq!(tail::next_start(700, 1_000), 400);
    assert_eq!(tail::next_start(900, 1_000), 644);
    assert_eq!(tail::next_start(600, 1_000), 200);
    assert_eq!(tail::next_start(200, 1_000), 0);
}

/// Facts of 100 tokens each, by role (`u` user, `a` assistant, `r` tool result), with calls
/// and results given by index, anchored to a report of them all.
fn synthetic(roles: &str, calls: &[(usize, &str)], results: &[(usize, &str)]) -> RequestFacts {
    let mut messages: Vec<MessageFacts> = roles
        .chars()
        .map(|role| MessageFacts {
            tokens: 100,
            role: match role {
                'u' => Role::User,
                'a' => Role::Assistant,
                _ => Role::ToolResult,
            },
            flags: MessageFlags::NONE.with(MessageFlags::STARTS_TURN, role == 'u'),
            ..MessageFacts::default()
        })
        .collect();
    for &(i, id) in calls {
        messages[i].tool_call_ids.push(id.to_owned());
    }
    for &(i, id) in results {
        messages[i].tool_result_ids.push(id.to_owned());
    }
    let count = messages.len();
    let mut facts = RequestFacts {
        messages,
        ..RequestFacts::default()
    };
    anchor::calibrate(
        &mut facts,
        &[Report::carried(
            count - 1,
            MessageUsage {
                input: 100 * count as u64 - 100,
                output: 100,
            },
        )],
    );
    assert!(facts.calibration.anchor.is_some());
    facts
}

/// The plan over `facts` whole, and whether a tail from `start` decides it (it must not).
fn tail_undecided(facts: &RequestFacts, start: usize, keep: f64) {
    let compactor = compactor(keep, Fixed::new("s"));
    let options = PlanOptions {
        input_token_budget: None,
        require_reduction: true,
    };
    let whole = compactor.plan_with_facts(facts, options).unwrap();
    let tail = unread_before(facts, start);
    let planned = compactor.plan_with_facts(&tail, options).unwrap();
    assert_ne!(planned, whole, "the tail alone plans otherwise");
    assert_eq!(
        compactor.plan_from_tail(&tail, start, options).unwrap(),
        None
    );
}

#[test]
fn a_result_in_the_kept_tail_whose_call_was_not_read_asks_for_a_longer_tail() {
    // The call at 3 is answered at 12: every cut from 4 to 12 would separate them.
    let facts = synthetic("uauauauauauaruaua", &[(3, "x")], &[(12, "x")]);
    tail_undecided(&facts, 4, 450.0);
}

#[test]
fn an_in_flight_run_that_starts_before_the_tail_asks_for_a_longer_tail() {
    // The run of answers from 3 to 11 is the last one; its first answer calls a tool never
    // answered, so everything from 3 on is in flight. The tail from 6 holds answers only, then
    // two user messages.
    let facts = synthetic("uauaaaaaaaaauu", &[(3, "x")], &[]);
    tail_undecided(&facts, 6, 200.0);
}

#[test]
fn a_message_that_answers_its_own_calls_lets_a_tail_decide() {
    // UIMessages: an answer holds its tool calls and their results alike.
    let calls: Vec<(usize, &str)> = ["a", "b", "c", "d", "e", "f"]
        .into_iter()
        .enumerate()
        .map(|(k, id)| (2 * k + 1, id))
        .collect();
    let facts = synthetic("uauauauauaua", &calls, &calls);
    let compactor = compactor(250.0, Fixed::new("s"));
    let options = PlanOptions {
        input_token_budget: None,
        require_reduction: true,
    };
    let whole = compactor.plan_with_facts(&facts, options).unwrap();
    let tail = unread_before(&facts, 6);
    assert_eq!(
        compactor.plan_from_tail(&tail, 6, options).unwrap(),
        Some(whole)
    );
}

/// `facts` with the messages before `start` unread and not even sized: placeholders of no
/// tokens (failed attempts stay failed), as a plan calibrated inside its tail leaves them.
fn unsized_before(facts: &RequestFacts, start: usize) -> RequestFacts {
    placeholders_before(facts, start, false)
}

#[test]
fn placeholders_of_no_tokens_decide_as_the_whole_history_at_the_same_ratio() {
    let messages = session();
    let (mut decided, mut tried) = (0, 0);
    for keep in [2_000.0, 8_000.0] {
        let compactor = compactor(keep, Fixed::new("s"));
        for end in (400..=messages.len()).step_by(50) {
            let (raw, reports) = request(&messages, end);
            let Some(&latest) = reports.iter().max_by_key(|r| r.messages) else {
                continue;
            };
            for back in [150, 300] {
                let start = end - back;
                // The ratio between the anchor and the earliest report inside the tail.
                let Some(&earlier) = reports
                    .iter()
                    .filter(|r| r.messages >= start && r.messages < latest.messages)
                    .min_by_key(|r| r.messages)
                else {
                    continue;
                };
                let between = &raw.messages[earlier.messages..latest.messages];
                let span = between
                    .iter()
                    .filter(|f| !f.failed())
                    .map(|f| f.tokens)
                    .sum();
                let Some(calibration) = anchor::span_ratio(earlier, latest, span) else {
                    continue;
                };
                let mut full = raw.clone();
                anchor::apply(&mut full, calibration);
                let mut facts = unsized_before(&raw, start);
                anchor::apply(&mut facts, calibration);
                // The anchored estimate does not depend on the messages before the tail.
                assert_eq!(facts.total(), full.total(), "end {end}, start {start}");
                let estimate = full.total() as f64 / compactor.trigger_ratio();
                for budget in [0.5, 0.99, 1.01, 1.5].map(|f| Some((estimate * f) as u64)) {
                    let options = PlanOptions {
                        input_token_budget: budget,
                        require_reduction: false,
                    };
                    let whole = compactor.plan_with_facts(&full, options).unwrap();
                    tried += 1;
                    let Some(mut planned) =
                        compactor.plan_from_tail(&facts, start, options).unwrap()
                    else {
                        continue;
                    };
                    decided += 1;
                    // The same plan but for the estimates of the messages not read.
                    if let (Some(p), Some(w)) = (planned.as_mut(), whole.as_ref()) {
                        p.message_tokens[..start].copy_from_slice(&w.message_tokens[..start]);
                    }
                    assert_eq!(
                        planned, whole,
                        "keep {keep}, end {end}, start {start}, budget {budget:?}"
                    );
                }
            }
        }
    }
    assert!(decided * 3 > tried, "{decided} of {tried} decided");
}

#[test]
fn a_first_tail_by_tokens_holds_twice_the_keep_and_at_least_256_messages() {
    let latest = vec![
        MessageFacts {
            tokens: 100,
            ..MessageFacts::default()
        };
        128
    ];
    assert_eq!(tail::first_start_by_tokens(10_000, &latest, 20_000), 9_600);
    assert_eq!(
        tail::first_start_by_tokens(10_000, &latest, 1_000),
        10_000 - 256
    );
    assert_eq!(tail::first_start_by_tokens(300, &latest, 20_000), 0);
}
