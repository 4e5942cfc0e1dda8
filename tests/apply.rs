//! Applying plans: no-ops, trusted plans, summaries, file lists, projection, records, failures.

mod common;

use common::*;
use context_compaction::*;
use serde_json::json;

fn conversation() -> Vec<Message> {
    vec![
        user("please fix the parser"),
        Message::tool_calls(vec![
            ToolCall::new("r1", "read", j(json!({"path": "src/parse.rs"}))),
            ToolCall::new("r2", "read", j(json!({"path": "src/lib.rs"}))),
        ]),
        result("r1"),
        result("r2"),
        Message::tool_calls(vec![ToolCall::new(
            "e1",
            "edit",
            j(json!({"path": "src/parse.rs"})),
        )]),
        result("e1"),
        say("fixed it"),
        user("now run the tests"),
        say("all green"),
    ]
}

fn request(messages: &[Message]) -> Request<'_> {
    Request {
        input_token_budget: Some(0),
        ..Request::new(messages)
    }
}

#[test]
fn a_none_plan_is_an_unconditional_no_op() {
    let messages = conversation();
    let compactor = compactor(0.0, Fixed::new("S"));
    let request = Request {
        summary: "old",
        require_reduction: true,
        ..request(&messages)
    };
    let outcome = run(compactor.apply(&request, None, &())).unwrap();
    assert_eq!(outcome.summary, "old");
    assert_eq!(outcome.messages, &messages[..]);
    assert_eq!(outcome.record, None);
    assert!(compactor.summarizer().seen.borrow().is_empty());
}

#[test]
fn compact_without_reason_to_act_is_a_no_op() {
    let messages = conversation();
    let compactor = compactor(0.0, Fixed::new("S"));
    let request = Request {
        input_token_budget: Some(1_000_000),
        ..request(&messages)
    };
    let outcome = run(compactor.compact(&request, &())).unwrap();
    assert_eq!(
        (
            outcome.summary.as_str(),
            outcome.messages.len(),
            outcome.record
        ),
        ("", 9, None)
    );
}

#[test]
fn a_given_plan_is_trusted_not_replanned() {
    let messages = conversation();
    let compactor = compactor(0.0, Fixed::new("S"));
    // The threshold would never plan this request, and the keep rule would cut elsewhere.
    let request = Request {
        input_token_budget: Some(1_000_000),
        ..request(&messages)
    };
    let plan = Plan {
        first_kept_index: 7,
        first_kept_part: 0,
        messages_to_summarize: 0..7,
        turn_prefix_messages: 7..7,
        split_turn: false,
        estimate_before: 0,
        estimate_after_without_summary: 0,
        message_tokens: Vec::new(),
    };
    let outcome = run(compactor.apply(&request, Some(&plan), &())).unwrap();
    assert_eq!(outcome.messages, &messages[7..]);
    assert_eq!(outcome.record.unwrap().first_kept_index, 7);
}

#[test]
fn a_plan_that_does_not_fit_the_request_is_invalid() {
    let messages = conversation();
    let compactor = compactor(0.0, Fixed::new("S"));
    let good = run(async { compactor.plan(&request(&messages)) })
        .unwrap()
        .unwrap();
    let short = &messages[..3];
    let err = run(compactor.apply(&request(short), Some(&good), &())).unwrap_err();
    assert_eq!(err.code(), "invalid_request");
    assert!(
        err.to_string()
            .contains("plan.firstKeptIndex: 9 is out of range for 3 messages"),
        "{err}"
    );
    let gap = Plan {
        messages_to_summarize: 0..3,
        ..good.clone()
    };
    assert_eq!(
        run(compactor.apply(&request(&messages), Some(&gap), &()))
            .unwrap_err()
            .code(),
        "invalid_request"
    );
    let nothing = Plan {
        first_kept_index: 0,
        first_kept_part: 0,
        messages_to_summarize: 0..0,
        turn_prefix_messages: 0..0,
        ..good.clone()
    };
    assert_eq!(
        run(compactor.apply(&request(&messages), Some(&nothing), &()))
            .unwrap_err()
            .code(),
        "invalid_request"
    );
    let liar = Plan {
        split_turn: true,
        ..good
    };
    assert_eq!(
        run(compactor.apply(&request(&messages), Some(&liar), &()))
            .unwrap_err()
            .code(),
        "invalid_request"
    );
    assert!(compactor.summarizer().seen.borrow().is_empty());
}

#[test]
fn the_summarizer_gets_the_history_and_the_turn_prefix_with_the_previous_summary() {
    let messages = conversation();
    let compactor = compactor(0.0, Fixed::new("S"));
    let plan = Plan {
        first_kept_index: 4,
        first_kept_part: 0,
        messages_to_summarize: 0..0,
        turn_prefix_messages: 0..4,
        split_turn: true,
        estimate_before: 0,
        estimate_after_without_summary: 0,
        message_tokens: Vec::new(),
    };
    let request = Request {
        summary: "before",
        ..request(&messages)
    };
    run(compactor.apply(&request, Some(&plan), &())).unwrap();
    assert_eq!(
        compactor.summarizer().seen.borrow()[0],
        ("before".to_owned(), 0, 4)
    );
}

#[test]
fn summaries_are_trimmed_cleaned_and_get_the_librarys_own_file_lists() {
    let messages = conversation();
    let text = "  ## Goal\nfix parser\n<read-files>\ninvented.rs\n</read-files>\n<modified-files>\nx\n</modified-files>\n\n";
    let compactor = compactor(0.0, Fixed::new(text));
    let previous = "old\n\n<read-files>\ndocs/a.md\n</read-files>\n\n<modified-files>\nsrc/old.rs\n</modified-files>";
    let request = Request {
        summary: previous,
        ..request(&messages)
    };
    let outcome = run(compactor.compact(&request, &())).unwrap();
    assert_eq!(
        outcome.summary,
        "## Goal\nfix parser\n\n<read-files>\ndocs/a.md\nsrc/lib.rs\n</read-files>\n\n<modified-files>\nsrc/old.rs\nsrc/parse.rs\n</modified-files>"
    );
}

#[test]
fn an_empty_summary_after_cleaning_is_an_error() {
    let messages = conversation();
    for text in [
        "",
        "  \n ",
        "<read-files>\na\n</read-files>",
        "<modified-files>b</modified-files>\n",
    ] {
        let err =
            run(compactor(0.0, Fixed::new(text)).compact(&request(&messages), &())).unwrap_err();
        assert!(matches!(err, Error::EmptySummary), "{text:?}: {err}");
    }
}

#[test]
fn the_record_has_summary_index_comparable_estimates_and_usage() {
    let messages = conversation();
    let usage = Usage {
        input: 100,
        output: 20,
        cache_read: 0,
        cache_write: 0,
        total_tokens: 120,
    };
    let compactor = compactor(
        0.0,
        Fixed {
            usage: Some(usage),
            ..Fixed::new("short")
        },
    );
    let estimator = CharEstimator::default();
    let request = Request {
        system_prompt: "sys",
        estimator: &estimator,
        ..request(&messages)
    };
    let plan = compactor.plan(&request).unwrap().unwrap();
    let outcome = run(compactor.apply(&request, Some(&plan), &())).unwrap();
    let record = outcome.record.unwrap();
    assert_eq!(record.summary, outcome.summary);
    assert_eq!(record.first_kept_index, plan.first_kept_index);
    assert_eq!(record.estimate_before, plan.estimate_before);
    let projected = project_summary(&outcome.summary).unwrap().chars().count() as u64;
    // The system prompt (3) is in both; the summary replaces the summarized messages.
    assert_eq!(
        record.estimate_after,
        projected + plan.estimate_after_without_summary
    );
    assert_eq!(record.usage, Some(usage));
}

#[test]
fn required_reduction_fails_when_the_estimate_does_not_decrease() {
    let messages = vec![user("a"), say("b"), user("c")];
    let long = "a summary far longer than the two tiny messages it replaces";
    let compactor = compactor(1.0, Fixed::new(long));
    let request = Request {
        require_reduction: true,
        ..Request::new(&messages)
    };
    let err = run(compactor.compact(&request, &())).unwrap_err();
    assert!(matches!(err, Error::NoReduction(_)), "{err}");
    // Without the requirement the same compaction goes through.
    let relaxed = Request {
        input_token_budget: Some(0),
        ..Request::new(&messages)
    };
    assert!(
        run(compactor.compact(&relaxed, &()))
            .unwrap()
            .record
            .is_some()
    );
}

#[test]
fn a_failing_summarizer_returns_no_state_and_keeps_its_error_reachable() {
    let messages = conversation();
    let compactor = compactor(
        0.0,
        Fixed {
            fail: true,
            ..Fixed::new("S")
        },
    );
    let err = run(compactor.compact(&request(&messages), &())).unwrap_err();
    assert_eq!(err.code(), "summarization");
    let source = std::error::Error::source(&err).unwrap();
    assert_eq!(source.downcast_ref::<HostError>(), Some(&HostError(7)));
}

#[test]
fn a_panicking_summarizer_is_a_summarization_error() {
    let messages = conversation();
    let compactor = compactor(
        0.0,
        Fixed {
            panic: true,
            ..Fixed::new("S")
        },
    );
    let err = run(compactor.compact(&request(&messages), &())).unwrap_err();
    assert_eq!(err.code(), "summarization");
    assert!(err.to_string().contains("summarizer bug"), "{err}");
}

#[test]
fn apply_returns_a_slice_of_the_callers_messages() {
    let messages = conversation();
    let compactor = compactor(10.0, Fixed::new("S"));
    let outcome = run(compactor.compact(&request(&messages), &())).unwrap();
    let kept = outcome.record.unwrap().first_kept_index;
    assert!(std::ptr::eq(
        outcome.messages.as_ptr(),
        messages[kept..].as_ptr()
    ));
}

#[test]
fn file_lists_describe_requested_calls_not_outcomes() {
    let messages = vec![
        user("edit it"),
        Message::tool_calls(vec![ToolCall::new(
            "e",
            "edit",
            j(json!({"path": "src/denied.rs"})),
        )]),
        Message::ToolResult(ToolResultMessage {
            tool_call_id: "e".into(),
            tool_name: Some("edit".into()),
            content: vec![ContentBlock::Text("permission denied".into())],
            is_error: true,
        }),
        user("ok"),
    ];
    let outcome = run(compactor(0.0, Fixed::new("S")).compact(&request(&messages), &())).unwrap();
    assert_eq!(
        outcome.summary,
        "S\n\n<modified-files>\nsrc/denied.rs\n</modified-files>"
    );
}

/// Tool-call arguments from a `serde_json` value.
fn j(value: serde_json::Value) -> context_compaction::Json {
    value.to_string().parse().expect("JSON")
}
