//! ContextManager: the budget formula, maintenance events and failures, overflow recovery.

mod common;

use std::cell::RefCell;

use common::*;
use context_compaction::manager::*;
use context_compaction::*;

fn manager(window: u64, reserve: Option<u64>) -> ContextManager {
    let mut config = ManagerConfig {
        context_window_tokens: window,
        ..ManagerConfig::default()
    };
    if let Some(reserve) = reserve {
        config.reserve_tokens = reserve;
    }
    ContextManager::new(config)
}

fn options(max_output_tokens: u64, skill_tokens: u64) -> MaintainOptions<'static> {
    MaintainOptions {
        max_output_tokens,
        skill_tokens,
        ..MaintainOptions::default()
    }
}

/// Ten messages of a hundred tokens (one token per character, no framing).
fn state() -> OwnedState {
    let messages = (0..10)
        .map(|i| {
            if i % 2 == 0 {
                user(&"u".repeat(100))
            } else {
                say(&"a".repeat(100))
            }
        })
        .collect();
    OwnedState {
        messages,
        ..OwnedState::default()
    }
}

/// Events as short strings, for asserting their order.
#[derive(Default)]
struct Log(RefCell<Vec<String>>);

impl Log {
    fn record(&self, event: Event<'_>) {
        self.0.borrow_mut().push(match event {
            Event::Start {
                reason,
                estimate,
                plan,
            } => format!(
                "start {} {estimate} {}",
                reason.as_str(),
                plan.first_kept_index
            ),
            Event::End {
                reason,
                record: Some(record),
                ..
            } => format!("end {} {}", reason.as_str(), record.estimate_after),
            Event::End {
                reason,
                error: Some(error),
                ..
            } => format!("end {} error {}", reason.as_str(), error.code()),
            Event::End { reason, .. } => format!("end {} ?", reason.as_str()),
        });
    }
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

#[test]
fn the_budget_reserves_the_larger_of_reserve_and_max_output_then_withholds_skills() {
    let m = manager(100_000, Some(4_000));
    assert_eq!(m.input_budget(options(0, 0)), Some(96_000));
    assert_eq!(m.input_budget(options(8_000, 0)), Some(92_000));
    assert_eq!(m.input_budget(options(2_000, 0)), Some(96_000));
    assert_eq!(m.input_budget(options(8_000, 2_000)), Some(90_000));
    assert_eq!(m.input_budget(options(200_000, 0)), Some(0));
    assert_eq!(m.input_budget(options(0, 200_000)), Some(0));
    assert_eq!(
        manager(100_000, None).input_budget(options(0, 0)),
        Some(100_000 - 16_384)
    );
}

#[test]
fn a_zero_window_disables_maintenance() {
    // A missing, negative or NaN `contextWindowTokens` from JavaScript is the binding layer's
    // (tests/js/manager.test.mjs).
    assert_eq!(manager(0, None).input_budget(options(0, 0)), None);
    assert_eq!(
        ContextManager::new(ManagerConfig::default()).input_budget(options(0, 0)),
        None
    );
}

#[test]
fn an_estimate_equal_to_the_budget_does_not_maintain_and_one_above_does() {
    let log = Log::default();
    let compactor = compactor(200.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    // The state estimates 1,000 tokens.
    let at =
        run(manager(1_000, Some(0)).maintain(&conversation, state(), options(0, 0), &())).unwrap();
    assert_eq!(at.outcome, Outcome::BelowThreshold);
    assert_eq!(at.state, state());
    assert!(log.take().is_empty());
    let above =
        run(manager(1_000, Some(1)).maintain(&conversation, state(), options(0, 0), &())).unwrap();
    assert_eq!(above.outcome, Outcome::Compacted);
    assert_eq!(above.state.messages.len(), 2);
    assert_eq!(above.state.summary, "S");
    let record = above.record.unwrap();
    assert_eq!(
        log.take(),
        vec![
            "start threshold 1000 8".to_owned(),
            format!("end threshold {}", record.estimate_after)
        ]
    );
    // Skill tokens withheld from the budget make the same state cross the threshold.
    let skills =
        run(manager(1_000, Some(0)).maintain(&conversation, state(), options(0, 1), &())).unwrap();
    assert_eq!(skills.outcome, Outcome::Compacted);
}

#[test]
fn no_events_for_estimate_failures_and_no_op_plans() {
    let log = Log::default();
    let compactor = compactor(5_000.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let nothing =
        run(manager(500, Some(0)).maintain(&conversation, state(), options(0, 0), &())).unwrap();
    assert_eq!(nothing.outcome, Outcome::NothingToRemove);
    let broken = Local {
        compactor: &compactor,
        estimator: &BrokenEstimator,
        on_event: &|e| log.record(e),
    };
    let failed = run(manager(500, Some(0)).maintain(&broken, state(), options(0, 0), &())).unwrap();
    assert_eq!(failed.outcome, Outcome::EstimateFailed);
    assert_eq!(failed.error.unwrap().code(), "invalid_request");
    let disabled =
        run(manager(0, None).maintain(&conversation, state(), options(0, 0), &())).unwrap();
    assert_eq!(disabled.outcome, Outcome::Disabled);
    assert!(log.take().is_empty());
    assert!(compactor.summarizer().seen.borrow().is_empty());
}

#[test]
fn a_failed_rewrite_is_reported_and_leaves_the_state_unchanged() {
    let log = Log::default();
    let compactor = compactor(
        200.0,
        Fixed {
            fail: true,
            ..Fixed::new("S")
        },
    );
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let out =
        run(manager(500, Some(0)).maintain(&conversation, state(), options(0, 0), &())).unwrap();
    assert_eq!(out.outcome, Outcome::RewriteFailed);
    assert_eq!(out.state, state());
    assert_eq!(out.error.unwrap().code(), "summarization");
    assert_eq!(
        log.take(),
        vec![
            "start threshold 1000 8",
            "end threshold error summarization"
        ]
    );
}

#[test]
fn cancellation_after_the_rewrite_started_fails_maintenance() {
    let log = Log::default();
    let (script, clock) = (
        Script::new(vec![Answer::CancelDuringCall]),
        FakeClock::default(),
    );
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 200,
        ..CompactorConfig::new(generator(&script, &clock))
    })
    .unwrap();
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let err = run(manager(500, Some(0)).maintain(
        &conversation,
        state(),
        options(0, 0),
        &Signal::default(),
    ))
    .unwrap_err();
    assert_eq!(err.code(), "aborted");
    assert_eq!(
        log.take(),
        vec!["start threshold 1000 8", "end threshold error aborted"]
    );
}

#[test]
fn an_irreducible_part_over_the_threshold_is_reported_instead_of_compacting() {
    let log = Log::default();
    let compactor = compactor(0.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let big = OwnedState {
        system_prompt: "s".repeat(600),
        ..state()
    };
    let out = run(manager(500, Some(0)).maintain(&conversation, big.clone(), options(0, 0), &()))
        .unwrap();
    assert_eq!(out.outcome, Outcome::Irreducible);
    assert_eq!(out.state, big);
    assert!(log.take().is_empty());
    assert!(compactor.summarizer().seen.borrow().is_empty());
}

#[test]
fn a_panicking_listener_never_breaks_maintenance() {
    let compactor = compactor(200.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| panic!("listener bug"),
    };
    let out =
        run(manager(500, Some(0)).maintain(&conversation, state(), options(0, 0), &())).unwrap();
    assert_eq!(out.outcome, Outcome::Compacted);
}

/// A provider that rejects the first `overflows` sends as too large.
struct Provider {
    overflows: usize,
    sent: RefCell<Vec<usize>>,
}

impl Provider {
    async fn send(&self, state: &OwnedState) -> Result<&'static str, &'static str> {
        let mut sent = self.sent.borrow_mut();
        sent.push(state.messages.len());
        if sent.len() <= self.overflows {
            Err("prompt is too long")
        } else {
            Ok("answer")
        }
    }
}

fn overflow(error: &&str) -> bool {
    is_context_overflow(error, None, None)
}

#[test]
fn an_overflow_is_recovered_by_a_required_compaction() {
    let log = Log::default();
    let compactor = compactor(200.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let provider = Provider {
        overflows: 1,
        sent: RefCell::default(),
    };
    let ran = run(manager(0, None).run(
        &conversation,
        state(),
        &(),
        async |s| provider.send(s).await,
        overflow,
    ))
    .unwrap();
    assert_eq!(ran.response, "answer");
    assert_eq!(*provider.sent.borrow(), vec![10, 2]);
    assert_eq!(ran.state.messages.len(), 2);
    assert_eq!(ran.compactions.len(), 1);
    assert_eq!(ran.failed_attempts, vec!["prompt is too long"]);
    let events = log.take();
    assert_eq!(events.len(), 2);
    assert!(events[0].starts_with("start overflow 1000"), "{events:?}");
}

#[test]
fn other_provider_errors_do_not_start_recovery() {
    let compactor = compactor(200.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let err = run(manager(0, None).run(
        &conversation,
        state(),
        &(),
        async |_| Err::<(), _>("rate limited"),
        overflow,
    ))
    .unwrap_err();
    assert!(matches!(err.failure, RunFailure::Provider("rate limited")));
    assert!(err.compactions.is_empty());
    assert!(compactor.summarizer().seen.borrow().is_empty());
}

#[test]
fn a_recovery_that_cannot_compact_ends_the_run() {
    let log = Log::default();
    let stuck = compactor(1_000.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &stuck,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let provider = Provider {
        overflows: 5,
        sent: RefCell::default(),
    };
    let err = run(manager(0, None).run(
        &conversation,
        state(),
        &(),
        async |s| provider.send(s).await,
        overflow,
    ))
    .unwrap_err();
    assert!(matches!(
        err.failure,
        RunFailure::Compaction(Error::NoReduction(_))
    ));
    assert!(
        log.take().is_empty(),
        "no events before a plan is confirmed"
    );
    let failing = compactor(
        200.0,
        Fixed {
            fail: true,
            ..Fixed::new("S")
        },
    );
    let conversation = Local {
        compactor: &failing,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let err = run(manager(0, None).run(
        &conversation,
        state(),
        &(),
        async |s| provider.send(s).await,
        overflow,
    ))
    .unwrap_err();
    assert!(matches!(
        err.failure,
        RunFailure::Compaction(Error::Summarization { .. })
    ));
    assert_eq!(err.state, state());
    assert_eq!(
        log.take(),
        vec!["start overflow 1000 8", "end overflow error summarization"]
    );
}

#[test]
fn a_configured_context_window_turns_maintenance_on_when_above_zero() {
    let window = |n| ManagerConfig::context_window(n, "w");
    assert_eq!(window(Some(200_000.0)), Ok(200_000));
    // Missing, 0 or below: off.
    assert_eq!(window(None), Ok(0));
    assert_eq!(window(Some(0.0)), Ok(0));
    assert_eq!(window(Some(-5.0)), Ok(0));
    assert_eq!(window(Some(f64::NAN)), Err("w must be a number".to_owned()));
    assert!(window(Some(1.5)).is_err());
}

/// Two small messages, then a pasted document of `size` tokens (one token per character).
fn pasted(size: usize) -> OwnedState {
    OwnedState {
        messages: vec![
            user("hello"),
            say("hi"),
            user(&format!("here is the spec: {}", "d".repeat(size))),
        ],
        ..OwnedState::default()
    }
}

#[test]
fn maintenance_spends_no_summary_on_a_request_that_no_summary_can_fit() {
    let log = Log::default();
    // The latest 100 tokens are kept: the document is, whatever is summarized.
    let compactor = compactor(100.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    // A 2,000-token message in a 1,000-token window.
    let state = pasted(2_000);
    let out =
        run(manager(1_000, Some(0)).maintain(&conversation, state.clone(), options(0, 0), &()))
            .unwrap();
    assert_eq!(out.outcome, Outcome::Irreducible);
    assert_eq!(out.state, state);
    let error = out.error.expect("the reason, for the app to show");
    assert_eq!(error.code(), "too_large");
    let said = error.to_string();
    assert!(said.contains("messages[2] is 2018 tokens"), "{said}");
    assert!(said.contains("input budget of 1000 tokens"), "{said}");
    assert!(log.take().is_empty(), "no events: nothing started");
    assert!(
        compactor.summarizer().seen.borrow().is_empty(),
        "no model call"
    );
    // Just within the budget (2,018 kept of 2,020): the small ones before it are summarized.
    let out =
        run(manager(2_020, Some(0)).maintain(&conversation, pasted(2_000), options(0, 0), &()))
            .unwrap();
    assert_eq!(out.outcome, Outcome::Compacted);
}

#[test]
fn overflow_recovery_spends_no_summary_that_cannot_fit_the_window_and_says_why() {
    let log = Log::default();
    // The latest 100 tokens are kept: the document is, whatever is summarized.
    let compactor = compactor(100.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let conversation = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let provider = Provider {
        overflows: 5,
        sent: RefCell::default(),
    };
    let err = run(manager(1_000, Some(0)).run(
        &conversation,
        pasted(2_000),
        &(),
        async |s| provider.send(s).await,
        overflow,
    ))
    .unwrap_err();
    let RunFailure::Compaction(error) = &err.failure else {
        panic!("a compaction failure");
    };
    assert_eq!(error.code(), "too_large");
    assert!(error.to_string().contains("messages[2]"), "{error}");
    assert_eq!(err.state, pasted(2_000));
    assert_eq!(err.failed_attempts.len(), 1, "sent once, not again");
    assert!(
        compactor.summarizer().seen.borrow().is_empty(),
        "no model call"
    );
    assert!(log.take().is_empty());
}
