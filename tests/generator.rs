//! The generator summarizer: request shape, records, retries, split turns, cancellation.

mod common;

use std::time::Duration;

use common::*;
use context_compaction::*;
use serde_json::json;

fn history() -> Vec<Message> {
    vec![
        user("fix the bug"),
        say("looking"),
        user("thanks"),
        say("done"),
    ]
}

fn compactor_over<'s>(
    summarizer: GeneratorSummarizer<&'s Script, &'s FakeClock>,
    keep: f64,
) -> Compactor<GeneratorSummarizer<&'s Script, &'s FakeClock>> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: keep as u64,
        ..CompactorConfig::new(summarizer)
    })
    .unwrap()
}

fn compact_all<'s>(
    summarizer: GeneratorSummarizer<&'s Script, &'s FakeClock>,
    messages: &[Message],
    summary: &str,
) -> Result<String> {
    let compactor = compactor_over(summarizer, 0.0);
    let request = Request {
        summary,
        require_reduction: false,
        input_token_budget: Some(0),
        ..Request::new(messages)
    };
    run(compactor.compact(&request, &Signal::default())).map(|c| c.summary)
}

#[test]
fn summary_requests_use_the_model_no_tools_and_tool_choice_none() {
    let (script, clock) = (Script::new(vec![Answer::Text("S")]), FakeClock::default());
    let summarizer = GeneratorSummarizer {
        max_output_tokens: Some(4000),
        ..generator(&script, &clock)
    };
    compact_all(summarizer, &history(), "").unwrap();
    let sent = &script.requests.borrow()[0];
    assert_eq!(sent.model, "summary-model");
    assert_eq!(sent.system_prompt, DEFAULT_SYSTEM_PROMPT);
    assert!(sent.tools.is_empty());
    assert_eq!(sent.tool_choice, ToolChoice::None);
    assert_eq!(sent.max_output_tokens, Some(4000));
    assert_eq!(sent.purpose, Purpose::History);
    assert!(DEFAULT_SYSTEM_PROMPT.contains("structured summary"));
}

#[test]
fn a_non_blank_system_prompt_replaces_the_default_and_a_blank_one_does_not() {
    let (script, clock) = (
        Script::new(vec![Answer::Text("S"), Answer::Text("S")]),
        FakeClock::default(),
    );
    let custom = GeneratorSummarizer {
        system_prompt: Some("Be terse.".into()),
        ..generator(&script, &clock)
    };
    compact_all(custom, &history(), "").unwrap();
    let blank = GeneratorSummarizer {
        system_prompt: Some("  ".into()),
        ..generator(&script, &clock)
    };
    compact_all(blank, &history(), "").unwrap();
    let requests = script.requests.borrow();
    assert_eq!(requests[0].system_prompt, "Be terse.");
    assert_eq!(requests[1].system_prompt, DEFAULT_SYSTEM_PROMPT);
}

#[test]
fn the_prompt_carries_the_records_and_the_previous_summary() {
    let (script, clock) = (Script::new(vec![Answer::Text("S")]), FakeClock::default());
    compact_all(generator(&script, &clock), &history(), "earlier work").unwrap();
    let prompt = &script.requests.borrow()[0].prompt;
    assert!(prompt.starts_with("<previous-summary>\nearlier work\n</previous-summary>\n\n<conversation>\n[User]: fix the bug\n\n[Assistant]: looking"), "{prompt}");
}

#[test]
fn records_are_compact_and_categorical() {
    // Escaped in JSON, the line breaks stay on one line: only the byte limit applies.
    let long_args = json!({"path": "a.rs", "content": "x\n".repeat(1000)});
    let full_args = long_args.to_string();
    let messages = vec![
        Message::User(UserMessage {
            content: vec![
                ContentBlock::Text("look".into()),
                ContentBlock::Image,
                ContentBlock::Image,
            ],
        }),
        Message::Assistant(AssistantMessage {
            content: vec![
                AssistantBlock::Thinking("hmm".into()),
                AssistantBlock::Text("I will read it".into()),
                AssistantBlock::ToolCall(ToolCall::new(
                    "call_secret_id",
                    "read",
                    j(json!({"path": "a.rs"})),
                )),
                AssistantBlock::ToolCall(ToolCall::new("w1", "write", j(long_args))),
            ],
            stop_reason: Some(StopReason::ToolUse),
        }),
        Message::ToolResult(ToolResultMessage {
            tool_call_id: "call_secret_id".into(),
            tool_name: None,
            content: vec![
                ContentBlock::Text("fn main() {}".into()),
                ContentBlock::Image,
            ],
            is_error: false,
        }),
        Message::ToolResult(ToolResultMessage {
            tool_call_id: "w1".into(),
            tool_name: Some("write".into()),
            content: vec![ContentBlock::Text("denied".into())],
            is_error: true,
        }),
        Message::Assistant(AssistantMessage {
            content: vec![AssistantBlock::Text("half an answer".into())],
            stop_reason: Some(StopReason::Aborted),
        }),
        Message::Assistant(AssistantMessage {
            content: vec![AssistantBlock::Text("failed".into())],
            stop_reason: Some(StopReason::Error),
        }),
        say("done"),
    ];
    let text = records::serialize(&messages);
    let cut = &full_args[..2048];
    let golden = format!(
        "[User]: look\n[2 images]\n\n[Assistant thinking]: hmm\n\n[Assistant]: I will read it\n\n[Tool call] read: {{\"path\":\"a.rs\"}}\n\n[Tool call] write: {cut}\n[… {} of {} bytes truncated]\n\n[Tool result] read (ok): fn main() {{}}\n[1 image]\n\n[Tool result] write (error): denied\n\n[Assistant]: done",
        full_args.len() - 2048,
        full_args.len(),
    );
    assert_eq!(text, golden);
    assert!(!text.contains("call_secret_id"));
}

#[test]
fn tool_results_keep_the_tail_for_bash_and_errors_and_the_head_otherwise() {
    let long: String = (0..200).map(|i| format!("line {i}\n")).collect();
    let result = |name: &str, is_error: bool| {
        records::serialize(&[Message::ToolResult(ToolResultMessage {
            tool_call_id: "x".into(),
            tool_name: Some(name.into()),
            content: vec![ContentBlock::Text(long.clone())],
            is_error,
        })])
    };
    assert!(result("bash", false).ends_with("line 199\n"));
    assert!(result("read", true).ends_with("line 199\n"));
    let head = result("read", false);
    assert!(head.starts_with("[Tool result] read (ok): line 0\n"));
    assert!(!head.contains("line 199"));
    let thinking = records::serialize(&[Message::Assistant(AssistantMessage {
        content: vec![AssistantBlock::Thinking(long.clone())],
        stop_reason: None,
    })]);
    assert!(thinking.ends_with("line 199\n") && !thinking.contains("line 0\n"));
}

#[test]
fn transient_failures_are_retried_after_two_then_four_seconds() {
    let script = Script::new(vec![
        Answer::Fail(FailureKind::Http(429)),
        Answer::Fail(FailureKind::Http(503)),
        Answer::Text("S"),
    ]);
    let clock = FakeClock::default();
    assert_eq!(
        compact_all(generator(&script, &clock), &history(), "").unwrap(),
        "S"
    );
    assert_eq!(script.requests.borrow().len(), 3);
    assert_eq!(
        *clock.waits.borrow(),
        vec![Duration::from_secs(2), Duration::from_secs(4)]
    );
}

#[test]
fn after_two_retries_the_last_error_is_kept_as_the_source() {
    let script = Script::new(vec![
        Answer::Fail(FailureKind::Transport),
        Answer::Fail(FailureKind::Stream),
        Answer::Fail(FailureKind::Http(500)),
    ]);
    let clock = FakeClock::default();
    let err = compact_all(generator(&script, &clock), &history(), "").unwrap_err();
    assert_eq!(err.code(), "summarization");
    assert!(err.to_string().contains("after 3 attempts"), "{err}");
    let generate = std::error::Error::source(&err).unwrap();
    let host = std::error::Error::source(generate).unwrap();
    assert_eq!(host.downcast_ref::<HostError>(), Some(&HostError(500)));
}

#[test]
fn permanent_failures_are_not_retried() {
    for kind in [
        FailureKind::Http(400),
        FailureKind::Http(413),
        FailureKind::Deadline,
        FailureKind::ContextWindow,
        FailureKind::ContentFiltered,
        FailureKind::InvalidRequest,
        FailureKind::InvalidResponse,
        FailureKind::Protocol,
        FailureKind::Unknown,
    ] {
        let (script, clock) = (Script::new(vec![Answer::Fail(kind)]), FakeClock::default());
        let err = compact_all(generator(&script, &clock), &history(), "").unwrap_err();
        assert_eq!(err.code(), "summarization", "{kind:?}");
        assert_eq!(script.requests.borrow().len(), 1, "{kind:?}");
        assert!(clock.waits.borrow().is_empty());
    }
}

#[test]
fn an_empty_generated_summary_is_not_retried() {
    let (script, clock) = (
        Script::new(vec![Answer::Text("  \n")]),
        FakeClock::default(),
    );
    let err = compact_all(generator(&script, &clock), &history(), "").unwrap_err();
    assert!(matches!(err, Error::EmptySummary));
    assert_eq!(script.requests.borrow().len(), 1);
}

#[test]
fn retry_delays_are_configurable() {
    let script = Script::new(vec![
        Answer::Fail(FailureKind::Http(429)),
        Answer::Fail(FailureKind::Http(429)),
    ]);
    let clock = FakeClock::default();
    let summarizer = generator(&script, &clock).with_retry_delays(vec![Duration::from_millis(5)]);
    compact_all(summarizer, &history(), "").unwrap_err();
    assert_eq!(script.requests.borrow().len(), 2);
    assert_eq!(*clock.waits.borrow(), vec![Duration::from_millis(5)]);
}

#[test]
fn cancellation_during_a_call_or_a_wait_ends_at_once() {
    let (script, clock) = (
        Script::new(vec![Answer::CancelDuringCall]),
        FakeClock::default(),
    );
    let err = compact_all(generator(&script, &clock), &history(), "").unwrap_err();
    assert_eq!(err.code(), "aborted");
    assert!(clock.waits.borrow().is_empty());

    let script = Script::new(vec![
        Answer::Fail(FailureKind::Http(429)),
        Answer::Text("never"),
    ]);
    let clock = FakeClock::default();
    let compactor = compactor_over(generator(&script, &clock), 0.0);
    let messages = history();
    let signal = Signal::default();
    signal.cancelled.set(true);
    let request = Request {
        input_token_budget: Some(0),
        ..Request::new(&messages)
    };
    let err = run(compactor.compact(&request, &signal)).unwrap_err();
    assert_eq!(err.code(), "aborted");
    assert_eq!(
        script.requests.borrow().len(),
        1,
        "no attempt after the cancelled wait"
    );
}

fn split_turn_messages() -> Vec<Message> {
    // 0 user, 1 say, 2 user (turn start), 3 call, 4 result, 5 long say: keep 1 cuts at 5.
    vec![
        user("first"),
        say("ok"),
        user("second"),
        call("a", "read"),
        result("a"),
        say("the kept answer"),
    ]
}

/// A generator summarizer that never quotes a turn prefix: a split turn makes two calls.
fn summarizing_every_prefix<'s>(
    script: &'s Script,
    clock: &'s FakeClock,
) -> GeneratorSummarizer<&'s Script, &'s FakeClock> {
    GeneratorSummarizer {
        quote_turn_prefix_tokens: 0,
        ..generator(script, clock)
    }
}

#[test]
fn a_split_turn_summarizes_history_and_prefix_and_joins_them_with_usage_summed() {
    let usage = |n| Usage {
        input: n,
        output: n,
        cache_read: 0,
        cache_write: 0,
        total_tokens: 2 * n,
    };
    let script = Script::new(vec![
        Answer::WithUsage("HISTORY", usage(10)),
        Answer::WithUsage("PREFIX", usage(5)),
    ]);
    let clock = FakeClock::default();
    let compactor = compactor_over(summarizing_every_prefix(&script, &clock), 1.0);
    let messages = split_turn_messages();
    let request = Request {
        input_token_budget: Some(0),
        ..Request::new(&messages)
    };
    let outcome = run(compactor.compact(&request, &Signal::default())).unwrap();
    let record = outcome.record.unwrap();
    assert_eq!(record.first_kept_index, 5);
    assert_eq!(
        outcome.summary,
        "HISTORY\n\n**Turn Context (split turn):**\n\nPREFIX\n\n<read-files>\na.rs\n</read-files>"
    );
    assert_eq!(record.usage, Some(usage(15)));
    let requests = script.requests.borrow();
    assert_eq!(
        requests.iter().map(|r| r.purpose).collect::<Vec<_>>(),
        vec![Purpose::History, Purpose::TurnPrefix]
    );
    assert!(requests[1].prompt.contains("[User]: second"));
    assert!(!requests[1].prompt.contains("[User]: first"));
}

#[test]
fn split_turn_calls_have_independent_retry_budgets() {
    let busy = || Answer::Fail(FailureKind::Http(429));
    let script = Script::new(vec![
        busy(),
        busy(),
        Answer::Text("H"),
        busy(),
        busy(),
        Answer::Text("P"),
    ]);
    let clock = FakeClock::default();
    let compactor = compactor_over(summarizing_every_prefix(&script, &clock), 1.0);
    let messages = split_turn_messages();
    let request = Request {
        input_token_budget: Some(0),
        ..Request::new(&messages)
    };
    run(compactor.compact(&request, &Signal::default())).unwrap();
    assert_eq!(script.requests.borrow().len(), 6);
    assert_eq!(clock.waits.borrow().len(), 4);
}

#[test]
fn without_a_complete_history_only_the_prefix_is_summarized() {
    // One turn from the start: the history part is empty.
    let messages = vec![
        user("only turn"),
        call("a", "bash"),
        result("a"),
        say("the kept answer"),
    ];
    let script = Script::new(vec![Answer::Text("P"), Answer::Text("P")]);
    let clock = FakeClock::default();
    let compactor = compactor_over(generator(&script, &clock), 1.0);
    let with_previous = Request {
        summary: "EARLIER\n\n<read-files>\nz.rs\n</read-files>",
        input_token_budget: Some(0),
        ..Request::new(&messages)
    };
    let outcome = run(compactor.compact(&with_previous, &Signal::default())).unwrap();
    assert_eq!(
        outcome.summary,
        "EARLIER\n\n**Turn Context (split turn):**\n\nP\n\n<read-files>\nz.rs\n</read-files>"
    );
    let fresh = Request {
        input_token_budget: Some(0),
        ..Request::new(&messages)
    };
    let outcome = run(compactor.compact(&fresh, &Signal::default())).unwrap();
    assert_eq!(
        outcome.summary,
        "No earlier history.\n\n**Turn Context (split turn):**\n\nP"
    );
    let requests = script.requests.borrow();
    assert_eq!(requests.len(), 2);
    assert!(requests.iter().all(|r| r.purpose == Purpose::TurnPrefix));
}

#[test]
fn an_application_summarizer_is_called_once() {
    let messages = history();
    let compactor = compactor(
        0.0,
        Fixed {
            fail: true,
            ..Fixed::new("S")
        },
    );
    let request = Request {
        input_token_budget: Some(0),
        ..Request::new(&messages)
    };
    assert!(run(compactor.compact(&request, &())).is_err());
    assert_eq!(compactor.summarizer().seen.borrow().len(), 1);
}

#[test]
fn apply_does_not_check_cancellation_around_a_successful_summarizer() {
    // The signal is already cancelled, but the model call ignores it and succeeds: committed.
    let (script, clock) = (Script::new(vec![Answer::Text("S")]), FakeClock::default());
    let compactor = compactor_over(generator(&script, &clock), 0.0);
    let messages = history();
    let signal = Signal::default();
    signal.cancelled.set(true);
    let request = Request {
        input_token_budget: Some(0),
        ..Request::new(&messages)
    };
    let outcome = run(compactor.compact(&request, &signal)).unwrap();
    assert_eq!(outcome.summary, "S");
}

/// Tool-call arguments from a `serde_json` value.
fn j(value: serde_json::Value) -> context_compaction::Json {
    value.to_string().parse().expect("JSON")
}
