//! Provider-true estimates: anchoring to what the provider reported, calibration, and the
//! reports that must be ignored (stale after a compaction, zero, aborted or failed attempts).

mod common;

use common::*;
use context_compaction::formats::{Format, MessageUsage};
use context_compaction::*;

/// Four messages of 100 tokens each (one token per character, no framing).
fn history() -> Vec<Message> {
    vec![
        user(&"a".repeat(100)),
        say(&"b".repeat(100)),
        user(&"c".repeat(100)),
        say(&"d".repeat(100)),
    ]
}

fn facts(messages: &[Message], summary: &str, reports: &[Report]) -> RequestFacts {
    let estimator = CharEstimator::default();
    RequestFacts::of(&Request {
        summary,
        estimator: &estimator,
        reports,
        ..Request::new(messages)
    })
    .unwrap()
}

fn report(messages: usize, tokens: u64) -> Report {
    Report {
        messages,
        tokens,
        fixed: None,
    }
}

#[test]
fn without_reports_the_estimate_is_the_local_one() {
    let messages = history();
    let plain = facts(&messages, "", &[]);
    assert_eq!(plain.total(), 400);
    assert_eq!(plain.calibration, Calibration::default());
}

#[test]
fn the_estimate_is_the_report_plus_the_calibrated_rest() {
    let messages = history();
    // The first two messages (200 by our estimate) cost 300: a ratio of 1.5.
    let anchored = facts(&messages, "", &[report(2, 300)]);
    assert_eq!(anchored.total(), 300 + 150 + 150);
    assert!(anchored.messages.iter().all(|f| f.tokens == 150));
    assert_eq!(anchored.calibration.ratio(), 1.5);
    assert_eq!(anchored.calibration.anchor, Some(report(2, 300)));
    // The latest usable report anchors, whatever the order they come in.
    let latest = facts(&messages, "", &[report(3, 330), report(2, 300)]);
    assert_eq!(latest.calibration.anchor, Some(report(3, 330)));
    assert_eq!(latest.total(), 330 + 110);
}

#[test]
fn a_changed_system_prompt_is_estimated_on_top_of_the_anchor() {
    let messages = history();
    let estimator = CharEstimator::default();
    let prompt = "p".repeat(40);
    let reports = [Report {
        messages: 4,
        tokens: 600,
        fixed: Some(0),
    }];
    let facts = RequestFacts::of(&Request {
        system_prompt: &prompt,
        estimator: &estimator,
        reports: &reports,
        ..Request::new(&messages)
    })
    .unwrap();
    // Sent without a system prompt (ratio 600 / 400); the new one is 40, calibrated 60.
    assert_eq!(facts.total(), 600 + 60);
}

#[test]
fn stale_usage_after_a_compaction_is_ignored() {
    // Before the compaction the history was 5,000 tokens; the kept reply carries the usage of
    // the request that produced it, which held the whole old history.
    let kept = &history()[2..];
    let stale = facts(kept, "what happened before", &[report(2, 5_000)]);
    let plain = facts(kept, "what happened before", &[]);
    assert_eq!(stale, plain);
    // So maintenance is not triggered again by the old size.
    let compactor = compactor(0.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let reports = [report(2, 5_000)];
    let request = Request {
        summary: "what happened before",
        input_token_budget: Some(1_000),
        estimator: &estimator,
        reports: &reports,
        ..Request::new(kept)
    };
    assert_eq!(compactor.plan(&request).unwrap(), None);
}

#[test]
fn zero_and_out_of_range_reports_are_ignored() {
    let messages = history();
    let plain = facts(&messages, "", &[]);
    assert_eq!(facts(&messages, "", &[report(2, 0)]), plain);
    assert_eq!(facts(&messages, "", &[report(5, 600)]), plain);
    // More than twice (or less than half) our estimate of the same request.
    assert_eq!(facts(&messages, "", &[report(4, 801)]), plain);
    assert_eq!(facts(&messages, "", &[report(4, 199)]), plain);
}

#[test]
fn usage_on_aborted_or_failed_answers_is_ignored() {
    let usage = r#""usage": {"input": 1000, "output": 20, "cacheRead": 500, "cacheWrite": 0}"#;
    let message = |stop: &str| {
        format!(r#"{{"role": "assistant", "stopReason": "{stop}", "content": [], {usage}}}"#)
    };
    let read = |text: &str| Format::Canonical.usage_json(text, "messages[0]").unwrap();
    let counted = Some(MessageUsage {
        input: 1500,
        output: 20,
    });
    assert_eq!(read(&message("stop")), counted);
    assert_eq!(read(&message("toolUse")), counted);
    assert_eq!(read(&message("aborted")), None);
    assert_eq!(read(&message("error")), None);
    let zero = r#"{"role": "assistant", "content": [], "usage": {"input": 0, "output": 0}}"#;
    assert_eq!(read(zero), None);
    // Only assistant messages carry usage.
    let user = r#"{"role": "user", "content": "hi", "usage": {"input": 10}}"#;
    assert_eq!(read(user), None);
}

#[test]
fn usage_is_read_in_every_format() {
    let cases = [
        (
            Format::Anthropic,
            r#"{"role": "assistant", "content": "ok", "usage": {"input_tokens": 3, "cache_read_input_tokens": 900, "output_tokens": 4}}"#,
            903,
        ),
        (
            Format::OpenAIChat,
            r#"{"role": "assistant", "content": "ok", "usage": {"prompt_tokens": 77, "completion_tokens": 4}}"#,
            77,
        ),
        (
            Format::OpenAIResponses,
            r#"{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}], "usage": {"input_tokens": 50, "output_tokens": 4}}"#,
            50,
        ),
        (
            Format::AiSdk,
            r#"{"role": "assistant", "content": "ok", "usage": {"inputTokens": 61, "outputTokens": 4}}"#,
            61,
        ),
    ];
    for (format, text, input) in cases {
        let usage = format.usage_json(text, "messages[0]").unwrap();
        assert_eq!(usage.map(|u| u.input), Some(input), "{}", format.name());
    }
}

#[test]
fn a_ui_message_total_over_several_steps_is_no_request_count() {
    let ui = |parts: &str, metadata: &str| {
        let text = format!(
            r#"{{"id": "a", "role": "assistant", "parts": [{parts}], "metadata": {metadata}}}"#
        );
        Format::AiSdkUi.usage_json(&text, "messages[0]").unwrap()
    };
    let one = r#"{"type": "step-start"}, {"type": "text", "text": "ok"}"#;
    let two = r#"{"type": "step-start"}, {"type": "tool-read", "toolCallId": "c", "state": "output-available", "input": {}, "output": "x"}, {"type": "step-start"}, {"type": "text", "text": "ok"}"#;
    // The AI SDK's documented `{ totalTokens }`: one step's request and answer, or a sum.
    let total = r#"{"totalTokens": 900, "createdAt": 1}"#;
    assert_eq!(ui(one, total).map(|u| u.input), Some(900));
    assert_eq!(ui(two, total), None);
    // The last step's usage, as `messageMetadata` records it, stands for the last request.
    let last = r#"{"usage": {"inputTokens": 700, "outputTokens": 20}}"#;
    assert_eq!(ui(two, last).map(|u| (u.input, u.output)), Some((700, 20)));
}

#[test]
fn failed_attempts_count_nothing_once_calibrated() {
    // A failed attempt of 300 between the turns: the provider never counts it (request
    // builders drop it), so the 600 it reported for the four other messages is 1.5 × ours.
    let mut failed = say(&"x".repeat(300));
    if let Message::Assistant(a) = &mut failed {
        a.stop_reason = Some(StopReason::Aborted);
    }
    let mut messages = history();
    messages.insert(2, failed);
    // Without usage, the local estimate counts it, as the reference does.
    assert_eq!(facts(&messages, "", &[]).total(), 700);
    // Anchored after it: the ratio is learned from what was sent, and the attempt counts 0.
    let anchored = facts(&messages, "", &[report(5, 600)]);
    assert_eq!(anchored.calibration.ratio(), 1.5);
    assert_eq!(anchored.messages[2].tokens, 0);
    assert_eq!(anchored.total(), 600);
    // Anchored before it: the attempt adds nothing to the report.
    let before = facts(&messages, "", &[report(2, 300)]);
    assert_eq!(before.calibration.ratio(), 1.5);
    assert_eq!(before.total(), 300 + 150 + 150);
}

/// Compacts the whole history (400 by our estimate) into `summary` with a required reduction.
fn required(summary: &str, reports: &[Report]) -> Result<Record> {
    let messages = history();
    let compactor = compactor(0.0, Fixed::new(summary));
    let estimator = CharEstimator::default();
    let request = Request {
        require_reduction: true,
        estimator: &estimator,
        reports,
        ..Request::new(&messages)
    };
    run(compactor.compact(&request, &())).map(|c| c.record.unwrap())
}

#[test]
fn calibration_keeps_the_required_reduction_decision() {
    // The provider counted 1.5 times our estimate of the whole request.
    let reports = [report(4, 600)];
    // A summary shorter than the history reduces; a longer one does not, whatever the scale.
    let short = "s".repeat(150);
    let long = "l".repeat(300);
    let (plain, calibrated) = (required(&short, &[]).unwrap(), required(&short, &reports));
    let calibrated = calibrated.unwrap();
    assert_eq!(calibrated.estimate_before, 600);
    // Before and after by the same (calibrated) estimator.
    let projected = plain.estimate_after as f64 * 1.5;
    assert!((calibrated.estimate_after as f64 - projected).abs() <= 1.0);
    assert!(matches!(required(&long, &[]), Err(Error::NoReduction(_))));
    assert!(matches!(
        required(&long, &reports),
        Err(Error::NoReduction(_))
    ));
}

#[test]
fn maintenance_follows_the_reported_count_and_drops_it_after_a_compaction() {
    use context_compaction::manager::*;
    let compactor = compactor(100.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let manager = ContextManager::new(ManagerConfig {
        context_window_tokens: 500,
        reserve_tokens: 0,
        ..ManagerConfig::default()
    });
    let state = |reports: Vec<Report>| OwnedState {
        messages: history(),
        reports,
        ..OwnedState::default()
    };
    let maintain =
        |state| run(manager.maintain(&conversation, state, MaintainOptions::default(), &()));
    // 400 by our estimate: below the 500 budget.
    assert_eq!(
        maintain(state(vec![])).unwrap().outcome,
        Outcome::BelowThreshold
    );
    // The provider counted 600 for the same request: above it.
    let done = maintain(state(vec![report(4, 600)])).unwrap();
    assert_eq!(done.outcome, Outcome::Compacted);
    assert_eq!(done.record.unwrap().estimate_before, 600);
    assert!(done.state.reports.is_empty());
}

#[test]
fn two_reports_give_the_ratio_of_the_messages_between_them() {
    let (earlier, later) = (report(10, 30_000), report(50, 54_000));
    let calibration = anchor::span_ratio(earlier, later, 20_000).unwrap();
    assert_eq!(calibration.ratio_ppm, 1_200_000);
    assert_eq!(calibration.anchor, Some(later));
    assert_eq!(calibration.adjustment, 0);
    // Too few tokens between them to say.
    let near = report(50, 30_000 + 18_000);
    assert!(anchor::span_ratio(earlier, near, anchor::MIN_SPAN).is_some());
    assert!(anchor::span_ratio(earlier, near, anchor::MIN_SPAN - 1).is_none());
    // Not one request extending the other.
    assert!(anchor::span_ratio(later, earlier, 20_000).is_none());
    assert!(anchor::span_ratio(earlier, report(50, 29_000), 20_000).is_none());
    assert!(anchor::span_ratio(report(10, 0), later, 20_000).is_none());
    // Another system prompt or tools in one of them.
    let other = Report {
        fixed: Some(500),
        ..earlier
    };
    assert!(anchor::span_ratio(other, later, 20_000).is_none());
    // A ratio beyond the limit either way describes other messages.
    assert!(anchor::span_ratio(earlier, report(50, 30_000 + 41_000), 20_000).is_none());
    assert!(anchor::span_ratio(earlier, report(50, 30_000 + 9_000), 20_000).is_none());
}

#[test]
fn within_takes_the_limit_wider_by_the_margin() {
    assert!(anchor::within(1.99, 1.0) && anchor::within(0.51, 1.0));
    assert!(!anchor::within(2.01, 1.0) && !anchor::within(0.49, 1.0));
    assert!(anchor::within(3.9, 2.0) && anchor::within(0.26, 2.0));
    assert!(!anchor::within(4.1, 2.0) && !anchor::within(0.24, 2.0));
}

#[test]
fn after_a_small_compaction_the_count_it_leaves_anchors_instead_of_the_kept_answers_usage() {
    // A small compaction: the kept reply's usage (the request that held the old history) is
    // only 1.5 times our estimate of what it now ends, close enough to anchor the estimate.
    let kept = &history()[2..];
    let plain = facts(kept, "S", &[]);
    let stale = report(2, plain.total() * 3 / 2);
    assert_eq!(
        facts(kept, "S", &[stale]).total(),
        stale.tokens,
        "the old size, again"
    );
    // A manager keeps the count the compaction left, after what the messages carry: it wins.
    let record = Record {
        summary: "S".to_owned(),
        first_kept_index: 2,
        first_kept_part: 0,
        estimate_before: stale.tokens,
        estimate_after: plain.total(),
        usage: None,
        trimmed: false,
        receipt: Receipt::NONE,
    };
    let left = manager::compacted_anchor(&record, kept.len());
    let anchored = facts(kept, "S", &[stale, left]);
    assert_eq!(anchored.calibration.anchor, Some(left));
    assert_eq!(anchored.total(), record.estimate_after);
    // A later answer's usage (a longer request) still wins over it.
    let longer = [kept, &[user(&"e".repeat(100))]].concat();
    let fresh = report(3, plain.total() + 100 + 7);
    assert_eq!(
        facts(&longer, "S", &[fresh, left]).calibration.anchor,
        Some(fresh)
    );
}
