//! The AI SDK UIMessage format: steps inside one assistant message are places to cut, the
//! plan says which part the kept suffix starts at, and what is summarized is the steps before.
//! (Equivalence with `convertToModelMessages` of each `ai` major: tests/ai-sdk.)

mod common;

use common::*;
use context_compaction::formats::{Format, HostMessage};
use context_compaction::*;
use serde_json::{Value, json};

/// A tool loop of `steps` steps in one assistant UIMessage, each a `step-start`, some text
/// and one finished call of `read`.
fn tool_loop(steps: usize) -> Value {
    let mut parts = Vec::new();
    for k in 0..steps {
        parts.push(json!({"type": "step-start"}));
        parts.push(json!({"type": "text", "text": format!("step {k}: reading file {k} now")}));
        parts.push(json!({
            "type": "tool-read", "toolCallId": format!("c{k}"), "state": "output-available",
            "input": {"path": format!("src/f{k}.rs")}, "output": "x".repeat(400),
        }));
    }
    json!({"id": "a1", "role": "assistant", "parts": parts})
}

fn history(steps: usize) -> Vec<Value> {
    vec![
        json!({"id": "u1", "role": "user", "parts": [{"type": "text", "text": "read all the files"}]}),
        tool_loop(steps),
    ]
}

fn hosts(messages: &[Value]) -> Vec<HostMessage> {
    read_hosts(Format::AiSdkUi, messages)
}

fn facts(messages: &[Value]) -> RequestFacts {
    let mut facts = RequestFacts::fixed("", "", &[], &Heuristic::new()).unwrap();
    for (i, m) in messages.iter().enumerate() {
        let path = format!("messages[{i}]");
        let read = Format::AiSdkUi.facts_json(&m.to_string(), &path, &Heuristic::new());
        facts.messages.push(read.unwrap());
    }
    facts
}

fn plan(facts: &RequestFacts, keep: f64) -> Plan {
    let options = PlanOptions {
        input_token_budget: Some(0),
        require_reduction: false,
    };
    compactor(keep, Fixed::new("S"))
        .plan_with_facts(facts, options)
        .unwrap()
        .unwrap()
}

#[test]
fn each_later_step_is_a_place_to_cut() {
    let messages = history(5);
    let read = facts(&messages);
    let steps = &read.messages[1].steps;
    // Parts 3, 6, 9 and 12 start steps 2 to 5 (the first `step-start` starts the message).
    assert_eq!(
        steps.iter().map(|s| s.part).collect::<Vec<_>>(),
        [3, 6, 9, 12]
    );
    assert!(steps.iter().all(|s| s.calls == 1 && s.results == 1));
    // The counted facts and those of the units agree, steps and all.
    let host = &hosts(&messages)[1];
    assert_eq!(
        MessageFacts::of_host(host, &Heuristic::new()).unwrap(),
        read.messages[1]
    );
    assert_eq!(host.steps.len(), 4);
}

#[test]
fn a_long_tool_loop_in_one_message_is_cut_between_its_steps() {
    let messages = history(6);
    let read = facts(&messages);
    let step = read.messages[1].steps[3].tokens;
    // Keep about two steps: the cut falls at the start of step 5 (part 12).
    let plan = plan(&read, (2 * step - 1) as f64);
    assert_eq!((plan.first_kept_index, plan.first_kept_part), (1, 12));
    assert!(plan.split_turn);
    assert_eq!(plan.messages_to_summarize, 0..0);
    assert_eq!(plan.turn_prefix_messages, 0..1);
    assert_eq!(plan.message_tokens.len(), 2);
    let kept = read.messages[1].tokens_from(12);
    assert_eq!(kept, 2 * step);
    assert_eq!(plan.estimate_after_without_summary, kept);
    // A conversation that grows message by message plans the same.
    let ledger = Ledger::from_facts(read.messages.clone());
    let options = PlanOptions {
        input_token_budget: Some(0),
        require_reduction: false,
    };
    let again = compactor((2 * step - 1) as f64, Fixed::new("S"))
        .plan_with_ledger(&read, &ledger, options)
        .unwrap();
    assert_eq!(again, Some(plan));
}

#[test]
fn a_calibrated_tool_loop_is_cut_where_the_batch_planner_cuts_it() {
    let messages = history(6);
    let read = facts(&messages);
    // The provider counted 1.37 times our estimate of the whole request: every step scales.
    let tokens = read.total() * 137 / 100;
    let reports = [Report {
        messages: 2,
        tokens,
        fixed: None,
    }];
    let mut calibrated = read.clone();
    anchor::calibrate(&mut calibrated, &reports);
    assert_eq!(calibrated.total(), tokens);
    let step = calibrated.messages[1].steps[3].tokens;
    assert!(step > read.messages[1].steps[3].tokens);
    let keep = (2 * step - 1) as f64;
    let batch = plan(&calibrated, keep);
    assert_eq!((batch.first_kept_index, batch.first_kept_part), (1, 12));
    let mut ledger = Ledger::from_facts(read.messages.clone());
    let fixed = ledger.calibrate(&read, &reports);
    let options = PlanOptions {
        input_token_budget: Some(0),
        require_reduction: false,
    };
    let grown = compactor(keep, Fixed::new("S"))
        .plan_with_ledger(&fixed, &ledger, options)
        .unwrap();
    assert_eq!(grown, Some(batch));
}

#[test]
fn a_call_still_in_flight_keeps_its_step() {
    let mut messages = history(4);
    let parts = messages[1]["parts"].as_array_mut().unwrap();
    // The last call waits for approval: its step stays, whatever the budget.
    parts[11]["state"] = json!("approval-requested");
    parts[11]["approval"] = json!({"id": "ap1"});
    parts[11].as_object_mut().unwrap().remove("output");
    let plan = plan(&facts(&messages), 0.0);
    assert_eq!((plan.first_kept_index, plan.first_kept_part), (1, 9));
}

#[test]
fn apply_summarizes_the_steps_before_the_cut() {
    let messages = history(4);
    let read = facts(&messages);
    let last = read.messages[1].steps[2].tokens;
    let plan = plan(&read, (last - 1) as f64);
    assert_eq!((plan.first_kept_index, plan.first_kept_part), (1, 9));
    let all = hosts(&messages);
    let before = &all[1].steps.iter().find(|s| s.part == 9).unwrap().unit;
    let prefix: Vec<Message> = all[0]
        .units
        .iter()
        .chain(&all[1].units[..*before])
        .cloned()
        .collect();
    let text = records::serialize(&prefix);
    assert!(text.contains("step 2: reading file 2"), "{text}");
    assert!(!text.contains("step 3"), "{text}");
    let summarizer = Fixed::new("S");
    let input = ApplyInput {
        facts: &read,
        summary: "",
        history: &[],
        turn_prefix: &prefix,
        require_reduction: true,
        estimator: &Heuristic::new(),
        focus: None,
    };
    let c = compactor(0.0, summarizer);
    let applied = run(c.apply_with_facts(input, &plan, &())).unwrap();
    let kept = read.messages[1].tokens_from(9);
    assert!(applied.record.estimate_after > kept);
    assert!(applied.record.estimate_after < read.total());
    // A part that starts no step is refused.
    let wrong = Plan {
        first_kept_part: 10,
        ..plan
    };
    let err = run(c.apply_with_facts(input, &wrong, &())).unwrap_err();
    assert!(
        err.to_string()
            .contains("plan.firstKeptPart: 10 is not where a step of messages[1] starts"),
        "{err}"
    );
}

/// The conversation every format's fixture holds, as UIMessages: the same records, the same
/// estimate by a character count, and, cut anywhere, the same records on each side of the cut.
#[test]
fn the_shared_conversation_reads_and_cuts_as_in_every_format() {
    let parse = |text: &str| -> Vec<Value> { serde_json::from_str(text).unwrap() };
    let canonical = parse(include_str!("fixtures/formats/canonical.json"));
    let ui = parse(include_str!("fixtures/formats/ai-sdk-ui.json"));
    let (canonical, ui) = (read_hosts(Format::Canonical, &canonical), hosts(&ui));
    let units =
        |h: &[HostMessage]| -> Vec<Message> { h.iter().flat_map(|h| h.units.clone()).collect() };
    assert_eq!(
        records::serialize(&units(&ui)),
        records::serialize(&units(&canonical))
    );
    let chars = CharEstimator::default();
    let total = |h: &[HostMessage]| {
        RequestFacts::of_hosts("", "", &[], h, &chars)
            .unwrap()
            .total()
    };
    assert_eq!(total(&ui), total(&canonical));
    // What a plan summarizes and keeps, as records.
    let sides = |h: &[HostMessage], keep: u64| {
        let facts = RequestFacts::of_hosts("", "", &[], h, &Heuristic::new()).unwrap();
        let options = PlanOptions {
            input_token_budget: Some(0),
            require_reduction: false,
        };
        let plan = compactor(keep as f64, Fixed::new("S"))
            .plan_with_facts(&facts, options)
            .unwrap()
            .unwrap();
        let mut before = units(&h[..plan.first_kept_index]);
        let mut after = units(&h[plan.first_kept_index..]);
        if plan.first_kept_part > 0 {
            let host = &h[plan.first_kept_index];
            let step = host
                .steps
                .iter()
                .find(|s| s.part == plan.first_kept_part)
                .unwrap();
            before.extend(host.units[..step.unit].iter().cloned());
            after.drain(..step.unit);
        }
        let history = units(&h[..plan.messages_to_summarize.end]);
        let text = records::serialize(&history);
        let sides = (
            text,
            records::serialize(&before),
            records::serialize(&after),
        );
        (sides, plan.first_kept_part)
    };
    let mut inside = 0;
    for keep in [0, 20, 40, 60, 80, 100, 150] {
        let (ui_sides, part) = sides(&ui, keep);
        assert_eq!(ui_sides, sides(&canonical, keep).0, "keep {keep}");
        inside += usize::from(part > 0);
    }
    assert!(inside >= 2, "{inside} cuts inside the tool loop");
}
