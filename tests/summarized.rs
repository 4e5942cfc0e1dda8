//! What a plan summarizes of a request's messages (`context_compaction::summarized`): the one
//! rule behind the units an apply summarizes and the records and prompts the built-in
//! summarizer sends, whoever holds the messages.

mod common;

use common::*;
use context_compaction::formats::Format;
use context_compaction::options::HostRequest;
use context_compaction::summarized::{records, units};
use context_compaction::*;
use serde_json::Value;

fn texts(json: &str) -> Vec<String> {
    let messages: Vec<Value> = serde_json::from_str(json).unwrap();
    messages.iter().map(Value::to_string).collect()
}

#[test]
fn a_message_cut_inside_gives_the_units_and_records_of_its_steps_before_the_cut() {
    let format = Format::AiSdkUi;
    let all = texts(include_str!("fixtures/formats/ai-sdk-ui.json"));
    let mut cuts = 0;
    for (k, text) in all.iter().enumerate() {
        let host = format.read_json(text, "m").unwrap();
        let texts: Vec<&str> = all[..=k].iter().map(String::as_str).collect();
        let messages = &texts.as_slice();
        for step in &host.steps {
            let mut expected: Vec<Message> = all[..k]
                .iter()
                .flat_map(|t| format.read_json(t, "m").unwrap().units)
                .collect();
            expected.extend(host.units[..step.unit].iter().cloned());
            let got = units(messages, format, &[], 0..k + 1, step.part).unwrap();
            assert_eq!(got.as_deref(), Some(&expected[..]), "message {k}");
            let written = records(messages, format, &[], 0..k + 1, step.part).unwrap();
            let serialized = (!expected.is_empty()).then(|| records::serialize(&expected));
            assert_eq!(written, Some(serialized), "message {k} part {}", step.part);
            cuts += 1;
        }
        // A part where no step starts is no place to cut, for both.
        let no_step = (1..100)
            .find(|p| host.steps.iter().all(|s| s.part != *p))
            .unwrap();
        assert_eq!(
            units(messages, format, &[], 0..k + 1, no_step).unwrap(),
            None
        );
        assert_eq!(
            records(messages, format, &[], 0..k + 1, no_step).unwrap(),
            None
        );
    }
    assert!(cuts > 0);
}

const CANONICAL: [&str; 4] = [
    r#"{"role":"user","content":"first question"}"#,
    r#"{"role":"user","content":"THE PINNED SPEC"}"#,
    r#"{"role":"assistant","content":[{"type":"text","text":"an answer"}]}"#,
    r#"{"role":"user","content":"last question"}"#,
];

#[test]
fn the_messages_a_request_pins_are_in_no_units() {
    let messages = &&CANONICAL[..];
    let got = units(messages, Format::Canonical, &[1], 0..3, 0)
        .unwrap()
        .unwrap();
    let without: Vec<&str> = vec![CANONICAL[0], CANONICAL[2]];
    let expected = units(&without.as_slice(), Format::Canonical, &[], 0..2, 0).unwrap();
    assert_eq!(Some(got), expected);
    assert_eq!(
        units(messages, Format::Canonical, &[0, 1, 2], 0..3, 0).unwrap(),
        Some(vec![])
    );
}

fn request<'a>(pinned: Vec<u32>) -> HostRequest<&'a [&'a str], Heuristic> {
    HostRequest {
        format: Format::Canonical,
        system_prompt: String::new(),
        summary: "the summary so far".into(),
        messages: &CANONICAL[..],
        tools: Vec::new(),
        input_token_budget: None,
        require_reduction: false,
        estimator: Heuristic::new(),
        reported: Vec::new(),
        focus: None,
        provider_compaction: Default::default(),
        pinned,
    }
}

fn plan(first_kept_index: usize) -> Plan {
    Plan {
        first_kept_index,
        first_kept_part: 0,
        messages_to_summarize: 0..first_kept_index,
        turn_prefix_messages: first_kept_index..first_kept_index,
        split_turn: false,
        estimate_before: 0,
        estimate_after_without_summary: 0,
        message_tokens: Vec::new(),
    }
}

#[test]
fn prompts_from_records_and_from_units_are_the_same_and_leave_pinned_messages_out() {
    let (script, clock) = (Script::default(), FakeClock::default());
    let plain = generator(&script, &clock);
    let windowed = GeneratorSummarizer {
        context_window_tokens: Some(1_000_000),
        ..generator(&script, &clock)
    };
    let request = request(vec![1]);
    let from_records = request.prompts(&plain, &plan(3)).unwrap();
    let from_units = request.prompts(&windowed, &plan(3)).unwrap();
    assert_eq!(from_records, from_units);
    assert_eq!(from_records.len(), 1);
    let prompt = &from_records[0].1;
    assert!(prompt.contains("first question") && prompt.contains("an answer"));
    assert!(prompt.contains("the summary so far"), "{prompt}");
    assert!(!prompt.contains("THE PINNED SPEC"), "{prompt}");
    // A plan beyond the messages is refused by both.
    let error = request.prompts(&plain, &plan(5)).unwrap_err().to_string();
    assert!(
        error.contains("plan.firstKeptIndex: 5 is out of range for 4 messages"),
        "{error}"
    );
}

#[test]
fn an_apply_summarizes_the_units_of_the_history_and_the_turn_prefix() {
    let request = request(vec![]);
    let split = Plan {
        turn_prefix_messages: 1..3,
        messages_to_summarize: 0..1,
        split_turn: true,
        ..plan(3)
    };
    let (history, prefix) = request.apply_units(&split).unwrap();
    let units = |range| request.units(range, 0).unwrap().unwrap();
    assert_eq!((history, prefix), (units(0..1), units(1..3)));
}

#[test]
fn an_apply_checks_its_plan_fits_and_cuts_at_a_step() {
    let facts: Vec<MessageFacts> = CANONICAL[..2]
        .iter()
        .map(|t| {
            Format::Canonical
                .facts_json(t, "m", &Heuristic::new())
                .unwrap()
        })
        .collect();
    let error = plan(3).check_apply(&facts).unwrap_err().to_string();
    assert!(error.contains("out of range for 2 messages"), "{error}");
    let inside = Plan {
        first_kept_part: 7,
        split_turn: true,
        ..plan(1)
    };
    let error = inside.check_apply(&facts).unwrap_err().to_string();
    assert!(error.contains("plan.firstKeptPart: 7"), "{error}");
    assert!(plan(1).check_apply(&facts).is_ok());
}
