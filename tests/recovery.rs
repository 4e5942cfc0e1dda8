//! ContextManager.run's overflow recovery over state compactors of their own: the limit on
//! recoveries, and the usage anchor of what each recovery kept.

mod common;

use std::cell::RefCell;

use common::*;
use context_compaction::manager::*;
use context_compaction::*;

fn overflow(error: &&str) -> bool {
    is_context_overflow(error, None, None)
}

/// A conversation whose every rewrite drops one message (10 tokens each), so the recovery limit
/// is reached whatever the planner would decide.
struct Shrinking;

impl StateCompactor for Shrinking {
    type State = usize;
    type Context = ();
    fn facts(&self, state: &usize) -> Result<RequestFacts> {
        let message = MessageFacts {
            tokens: 10,
            role: Role::User,
            flags: MessageFlags::STARTS_TURN,
            ..MessageFacts::default()
        };
        Ok(RequestFacts {
            messages: vec![message; *state],
            ..RequestFacts::default()
        })
    }
    fn plan(&self, facts: &RequestFacts, _: PlanOptions) -> Result<Option<Plan>> {
        Ok(Some(Plan {
            first_kept_index: 1,
            first_kept_part: 0,
            messages_to_summarize: 0..1,
            turn_prefix_messages: 1..1,
            split_turn: false,
            estimate_before: facts.total(),
            estimate_after_without_summary: facts.total() - 10,
            message_tokens: vec![10; facts.messages.len()],
        }))
    }
    fn trigger_ratio(&self) -> f64 {
        1.0
    }
    fn apply<'a>(
        &'a self,
        state: &'a usize,
        _: &'a RequestFacts,
        _: &'a Plan,
        _: bool,
        _: Option<&'a str>,
        _: &'a (),
    ) -> LocalFuture<'a, Result<(usize, Record)>> {
        let record = Record {
            summary: "S".into(),
            first_kept_index: 1,
            first_kept_part: 0,
            estimate_before: 0,
            estimate_after: 0,
            usage: None,
            trimmed: false,
            receipt: Receipt::NONE,
        };
        Box::pin(async move { Ok((*state - 1, record)) })
    }
    fn emit(&self, _: &usize, _: Event<'_>) {}
}

#[test]
fn two_recoveries_at_most_then_the_third_rejection_ends_the_run() {
    let sent = RefCell::new(Vec::new());
    let send = async |state: &usize| {
        sent.borrow_mut().push(*state);
        Err::<(), _>("prompt is too long")
    };
    let err =
        run(ContextManager::new(ManagerConfig::default()).run(&Shrinking, 10, &(), send, overflow))
            .unwrap_err();
    assert!(matches!(
        err.failure,
        RunFailure::Provider("prompt is too long")
    ));
    assert_eq!(*sent.borrow(), vec![10, 9, 8]);
    assert_eq!(err.compactions.len(), 2);
    assert_eq!(err.failed_attempts.len(), 2);
    // The committed rewrites stay in the state the error carries.
    assert_eq!(err.state, 8);
}

/// [`Shrinking`] whose estimates are anchored to a provider's report when `reported`, and which
/// notes every state it is told to re-anchor after a compaction.
struct Reported {
    reported: bool,
    reanchored: RefCell<Vec<usize>>,
}

impl StateCompactor for Reported {
    type State = usize;
    type Context = ();
    fn facts(&self, state: &usize) -> Result<RequestFacts> {
        let mut facts = Shrinking.facts(state)?;
        if self.reported {
            let report = Report {
                messages: *state,
                tokens: 10 * *state as u64,
                fixed: None,
            };
            facts.calibration.anchor = Some(report);
        }
        Ok(facts)
    }
    fn plan(&self, facts: &RequestFacts, options: PlanOptions) -> Result<Option<Plan>> {
        Shrinking.plan(facts, options)
    }
    fn trigger_ratio(&self) -> f64 {
        1.0
    }
    fn apply<'a>(
        &'a self,
        state: &'a usize,
        facts: &'a RequestFacts,
        plan: &'a Plan,
        split: bool,
        focus: Option<&'a str>,
        context: &'a (),
    ) -> LocalFuture<'a, Result<(usize, Record)>> {
        Shrinking.apply(state, facts, plan, split, focus, context)
    }
    fn anchor_compacted(&self, state: &usize, _: &Record) {
        self.reanchored.borrow_mut().push(*state);
    }
    fn emit(&self, _: &usize, _: Event<'_>) {}
}

#[test]
fn a_recovery_from_an_anchored_estimate_reanchors_what_it_kept() {
    for reported in [true, false] {
        let compactor = Reported {
            reported,
            reanchored: RefCell::default(),
        };
        let sent = RefCell::new(Vec::new());
        let send = async |state: &usize| {
            sent.borrow_mut().push(*state);
            match sent.borrow().len() {
                1 | 2 => Err("prompt is too long"),
                _ => Ok("answer"),
            }
        };
        let ran = run(ContextManager::new(ManagerConfig::default()).run(
            &compactor,
            10,
            &(),
            send,
            overflow,
        ))
        .unwrap();
        assert_eq!(*sent.borrow(), vec![10, 9, 8]);
        assert_eq!(ran.compactions.len(), 2);
        // Each recovery's kept answers still carry the usage of the request that overflowed:
        // the compacted state is re-anchored, before the next recovery and after the run.
        let expected = if reported { vec![9, 8] } else { vec![] };
        assert_eq!(
            *compactor.reanchored.borrow(),
            expected,
            "reported: {reported}"
        );
    }
}
