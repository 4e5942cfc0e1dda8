//! Ahead-of-time compaction in the manager: a pending draft made past the ahead mark,
//! committed at once when the threshold is passed and the state still extends what it covers,
//! discarded otherwise; focus passed through.

mod common;

use std::cell::RefCell;

use common::*;
use context_compaction::clearing::ClearingPolicy;
use context_compaction::manager::*;
use context_compaction::*;

/// A manager whose threshold is `window` (no reserve; the compactor's trigger ratio is 1).
fn manager(window: u64) -> ContextManager {
    ContextManager::new(ManagerConfig {
        context_window_tokens: window,
        reserve_tokens: 0,
        ..ManagerConfig::default()
    })
}

/// `n` messages of a hundred tokens (one token per character), alternating user/assistant,
/// each with its number.
fn messages(from: usize, n: usize) -> Vec<Message> {
    (from..from + n)
        .map(|i| {
            let text = format!("{i:03}{}", "x".repeat(97));
            if i % 2 == 0 { user(&text) } else { say(&text) }
        })
        .collect()
}

fn state(n: usize) -> OwnedState {
    OwnedState {
        summary: "before".to_owned(),
        messages: messages(0, n),
        ..OwnedState::default()
    }
}

/// `state` with `n` more messages.
fn grown(mut state: OwnedState, n: usize) -> OwnedState {
    let from = state.messages.len();
    state.messages.extend(messages(from, n));
    state
}

fn options<'a>(pending: Option<&'a Draft>) -> MaintainOptions<'a> {
    MaintainOptions {
        pending,
        ..MaintainOptions::default()
    }
}

#[derive(Default)]
struct Log(RefCell<Vec<String>>);

impl Log {
    fn record(&self, event: Event<'_>) {
        self.0.borrow_mut().push(match event {
            Event::Start { reason, plan, .. } => {
                format!("start {} {}", reason.as_str(), plan.first_kept_index)
            }
            Event::End { reason, error, .. } => match error {
                Some(error) => format!("end {} {}", reason.as_str(), error.code()),
                None => format!("end {}", reason.as_str()),
            },
        });
    }
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

/// The draft `prepare_ahead` makes for `state` (ten messages: 1,100 tokens with the summary's
/// framing, above the mark of 0.7 × 1,300).
fn drafted(local: &Local<'_, Fixed>, state: &OwnedState) -> Draft {
    drafted_in(1_300, local, state)
}

/// The draft `prepare_ahead` makes for `state` with a context window of `window`.
fn drafted_in(window: u64, local: &Local<'_, Fixed>, state: &OwnedState) -> Draft {
    let ahead = run(manager(window).prepare_ahead(local, state, options(None), &())).unwrap();
    assert_eq!(ahead.outcome, AheadOutcome::Drafted);
    ahead.draft.unwrap()
}

/// The messages `origins` name, checking that each starts at its message's first part.
fn indices(origins: &[pending::Origin]) -> Vec<usize> {
    assert!(origins.iter().all(|o| o.part == 0), "{origins:?}");
    origins.iter().map(|o| o.index).collect()
}

#[test]
fn below_the_ahead_mark_no_draft_is_made() {
    let compactor = compactor(200.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    // 10 messages: about 1,000 tokens, under 0.7 × 2,000.
    let ahead = run(manager(2_000).prepare_ahead(&local, &state(10), options(None), &())).unwrap();
    assert_eq!(ahead.outcome, AheadOutcome::BelowMark);
    assert_eq!(ahead.draft, None);
    let off = run(manager(0).prepare_ahead(&local, &state(10), options(None), &())).unwrap();
    assert_eq!(off.outcome, AheadOutcome::Disabled);
    assert!(compactor.summarizer().seen.borrow().is_empty());
}

#[test]
fn a_draft_summarizes_what_the_next_compaction_would_and_applies_nothing() {
    let log = Log::default();
    let compactor = compactor(200.0, Fixed::new("ahead"));
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let state = state(10);
    let draft = drafted(&local, &state);
    // The cut maintenance makes once over the threshold: the last 200 tokens kept.
    let over = run(manager(1_000).maintain(&local, state.clone(), options(None), &())).unwrap();
    assert_eq!(over.outcome, Outcome::Compacted);
    assert_eq!(
        draft.first_kept_index,
        over.record.unwrap().first_kept_index
    );
    // Where each kept message came from in the state given.
    assert_eq!(indices(&over.origins), [8, 9]);
    assert_eq!(draft.summary, "ahead");
    // Only maintenance's own rewrite was reported.
    assert_eq!(log.take(), vec!["start threshold 8", "end threshold"]);
}

#[test]
fn a_pending_draft_is_committed_when_the_threshold_is_passed_without_a_summary_call() {
    let log = Log::default();
    let compactor = compactor(200.0, Fixed::new("ahead"));
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let draft = drafted(&local, &state(10));
    let calls = compactor.summarizer().seen.borrow().len();
    // Below the threshold the pending draft waits.
    let early = run(manager(1_300).maintain(&local, state(10), options(Some(&draft)), &()));
    let early = early.unwrap();
    assert_eq!(early.outcome, Outcome::BelowThreshold);
    assert!(matches!(early.pending, PendingUse::None));
    // Four more messages pass it: the draft is committed, the new messages kept.
    let now = grown(state(10), 4);
    let done = run(manager(1_300).maintain(&local, now.clone(), options(Some(&draft)), &()));
    let done = done.unwrap();
    assert_eq!(done.outcome, Outcome::Compacted);
    assert!(matches!(done.pending, PendingUse::Committed));
    assert_eq!(compactor.summarizer().seen.borrow().len(), calls);
    assert_eq!(log.take(), vec!["start pending 8", "end pending"]);
    // Exactly what the ordinary path stores with that summary text at that cut.
    let then = local.facts(&state(10)).unwrap();
    let asked = PlanOptions {
        input_token_budget: Some(1_300),
        require_reduction: true,
    };
    let plan = local.plan(&then, asked).unwrap().unwrap();
    let facts = local.facts(&now).unwrap();
    let ordinary = run(local.apply(&now, &facts, &plan, false, None, &())).unwrap();
    assert_eq!(done.state, ordinary.0);
    assert_eq!(done.record.unwrap(), ordinary.1);
    assert_eq!(done.state.messages, now.messages[8..]);
    assert_eq!(indices(&done.origins), (8..14).collect::<Vec<_>>());
}

#[test]
fn a_pending_draft_that_no_longer_covers_the_history_is_discarded() {
    let log = Log::default();
    let compactor = compactor(200.0, Fixed::new("ordinary"));
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let draft = drafted(&local, &state(10));
    log.take();
    let maintain = |state: OwnedState| {
        let done = run(manager(1_300).maintain(&local, state, options(Some(&draft)), &()));
        done.unwrap()
    };
    let discarded = |done: &Maintained<OwnedState>| match &done.pending {
        PendingUse::Discarded(error) => error.code(),
        other => panic!("expected a discarded draft, got {other:?}"),
    };
    // A message before the cut edited: the ordinary path summarizes afresh.
    let mut edited = grown(state(10), 4);
    edited.messages[3] = say("an edited answer that is long enough to matter here");
    let done = maintain(edited);
    assert_eq!(discarded(&done), "stale");
    assert_eq!(done.state.summary, "ordinary");
    assert_eq!(log.take(), vec!["start threshold 12", "end threshold"]);
    // Another summary than the one it replaces (the chat was compacted meanwhile).
    let other = OwnedState {
        summary: "another".to_owned(),
        ..grown(state(10), 4)
    };
    assert_eq!(discarded(&maintain(other)), "stale");
    // Fewer messages than it covers.
    let mut shorter = grown(state(10), 4);
    shorter.messages.drain(2..8);
    let shorter = grown(shorter, 4);
    assert_eq!(discarded(&maintain(shorter)), "stale");
    // A message after the cut may change: it is kept, not summarized.
    let mut later = grown(state(10), 4);
    later.messages[9] = say(&"y".repeat(100));
    let kept = maintain(later.clone());
    assert!(matches!(kept.pending, PendingUse::Committed));
    assert_eq!(kept.state.messages, later.messages[8..]);
}

#[test]
fn a_conversation_that_outran_its_pending_draft_continues_on_the_ordinary_path() {
    let log = Log::default();
    let compactor = compactor(200.0, Fixed::new("again"));
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let mut draft = drafted(&local, &state(10));
    draft.summary = "ahead".to_owned();
    log.take();
    // Sixteen more messages: committing the draft keeps 18 (1,800 tokens), still over.
    let now = grown(state(10), 16);
    let done = run(manager(1_300).maintain(&local, now, options(Some(&draft)), &())).unwrap();
    assert_eq!(done.outcome, Outcome::Compacted);
    assert!(matches!(done.pending, PendingUse::Committed));
    assert_eq!(
        log.take(),
        vec![
            "start pending 8",
            "end pending",
            "start threshold 16",
            "end threshold"
        ]
    );
    // The second summary was made over the pending one : nothing summarized twice, only the 16
    // messages after its cut.
    let seen = compactor.summarizer().seen.borrow();
    assert_eq!(seen.last().unwrap(), &("ahead".to_owned(), 16, 0));
    assert_eq!(done.state.summary, "again");
    assert_eq!(done.state.messages.len(), 2);
    // One record of both, in the terms of the state given: kept from its message 24, the
    // 8 messages the draft covered and the 16 after them summarized.
    let record = done.record.unwrap();
    assert_eq!((record.first_kept_index, record.first_kept_part), (24, 0));
    assert_eq!(record.receipt.summarized_messages, 24);
    assert_eq!(record.summary, "again");
    // The kept messages, named in the state given (not in what the commit kept).
    assert_eq!(indices(&done.origins), [24, 25]);
}

#[test]
fn a_failed_background_summary_changes_nothing() {
    let log = Log::default();
    let failing = Fixed {
        fail: true,
        ..Fixed::new("x")
    };
    let compactor = compactor(200.0, failing);
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    // An error, not "no draft": the host keeps whatever it held.
    let failed = run(manager(1_300).prepare_ahead(&local, &state(10), options(None), &()));
    assert_eq!(failed.unwrap_err().code(), "summarization");
    assert!(log.take().is_empty());
}

#[test]
fn a_valid_pending_draft_is_kept_and_a_stale_one_replaced() {
    let compactor = compactor(200.0, Fixed::new("ahead"));
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let draft = drafted(&local, &state(10));
    let calls = compactor.summarizer().seen.borrow().len();
    let next = grown(state(10), 2);
    let again = run(manager(1_300).prepare_ahead(&local, &next, options(Some(&draft)), &()));
    let again = again.unwrap();
    assert_eq!(again.outcome, AheadOutcome::Kept);
    assert_eq!(again.draft.as_ref(), Some(&draft));
    assert_eq!(compactor.summarizer().seen.borrow().len(), calls);
    let mut edited = next.clone();
    edited.messages[0] = user("edited");
    edited.messages.extend(messages(12, 2));
    let fresh = run(manager(1_300).prepare_ahead(&local, &edited, options(Some(&draft)), &()));
    assert_eq!(fresh.unwrap().outcome, AheadOutcome::Drafted);
    assert_eq!(compactor.summarizer().seen.borrow().len(), calls + 1);
}

#[test]
fn the_ahead_ratio_is_a_fraction_of_the_threshold() {
    assert_eq!(
        ContextManager::ahead_ratio(None, "r"),
        Ok(DEFAULT_AHEAD_RATIO)
    );
    assert_eq!(ContextManager::ahead_ratio(Some(0.5), "r"), Ok(0.5));
    assert_eq!(ContextManager::ahead_ratio(Some(1.0), "r"), Ok(1.0));
    for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
        let error = ContextManager::ahead_ratio(Some(bad), "options.aheadRatio").unwrap_err();
        assert!(error.starts_with("options.aheadRatio"), "{error}");
    }
    // A lower mark drafts earlier: 1,100 tokens are above 0.5 × 2,000, not 0.7 × 2,000.
    let compactor = compactor(200.0, Fixed::new("S"));
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let early = ContextManager::new(ManagerConfig {
        context_window_tokens: 2_000,
        reserve_tokens: 0,
        ahead_ratio: 0.5,
    });
    let ahead = run(early.prepare_ahead(&local, &state(10), options(None), &())).unwrap();
    assert_eq!(ahead.outcome, AheadOutcome::Drafted);
}

#[test]
fn focus_reaches_the_summary_of_maintenance_a_draft_and_a_recovery() {
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 200,
        ..CompactorConfig::new(Fixed::new("focused"))
    })
    .unwrap();
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let focus = MaintainOptions {
        focus: Some("the open bugs"),
        ..MaintainOptions::default()
    };
    run(manager(1_000).maintain(&local, state(10), focus, &())).unwrap();
    run(manager(1_300).prepare_ahead(&local, &state(10), focus, &())).unwrap();
    run(manager(1_000).maintain(&local, state(10), options(None), &())).unwrap();
    // An overflow recovery of a run.
    let sent = std::cell::Cell::new(0);
    let send = async |_: &OwnedState| {
        sent.set(sent.get() + 1);
        if sent.get() == 1 {
            Err("too long")
        } else {
            Ok(())
        }
    };
    let off = manager(0);
    let focused = off.run_focused(&local, state(10), Some("the plan"), &(), send, |_| true);
    assert_eq!(run(focused).unwrap().compactions.len(), 1);
    let asked = compactor.summarizer().foci.borrow().clone();
    let the_bugs = Some("the open bugs".to_owned());
    let the_plan = Some("the plan".to_owned());
    assert_eq!(asked, vec![the_bugs.clone(), the_bugs, None, the_plan]);
}

#[test]
fn a_commit_whose_kept_messages_are_then_cleared_is_a_compaction_with_the_commits_record() {
    let log = Log::default();
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 200,
        clearing: Some(ClearingPolicy {
            protect_recent_tokens: Some(0),
            ..ClearingPolicy::default()
        }),
        ..CompactorConfig::new(Fixed::new("ahead"))
    })
    .unwrap();
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    let draft = drafted(&local, &state(10));
    let calls = compactor.summarizer().seen.borrow().len();
    // A large read after the cut: what the commit keeps is still over the threshold, and
    // clearing that result (message 12; 4 of the kept ones) is enough.
    let mut now = state(10);
    let read = Message::tool_result("c1", "read", "r".repeat(1_000));
    now.messages
        .extend([user(&"u".repeat(100)), call("c1", "read"), read]);
    now.messages.extend(messages(13, 3));
    let before = local.facts(&now).unwrap().total();
    let done = run(manager(1_300).maintain(&local, now.clone(), options(Some(&draft)), &()));
    let done = done.unwrap();
    // A compaction happened: the commit's, whatever was cleared after it.
    assert_eq!(done.outcome, Outcome::Compacted);
    assert!(matches!(done.pending, PendingUse::Committed));
    assert_eq!(
        compactor.summarizer().seen.borrow().len(),
        calls,
        "no summary call"
    );
    let events = [
        "start pending 8",
        "end pending",
        "start threshold 0",
        "end threshold",
    ];
    assert_eq!(log.take(), events);
    let cleared = done
        .cleared
        .expect("the clearing, in the new state's terms");
    let ids: Vec<&str> = cleared
        .results
        .iter()
        .map(|r| r.tool_call_id.as_str())
        .collect();
    assert_eq!((ids, cleared.results[0].index), (vec!["c1"], 4));
    // The commit's record in the terms of the state given: its summary, cut and receipt; the
    // estimate after both steps, and the message the clearing rewrote (message 12).
    let record = done.record.unwrap();
    assert_eq!(record.summary, "ahead");
    assert_eq!((record.first_kept_index, record.first_kept_part), (8, 0));
    assert_eq!(record.receipt.summarized_messages, 8);
    assert_eq!(record.receipt.digest, Some(draft.digest));
    assert_eq!(record.receipt.cleared, [12]);
    assert_eq!(record.estimate_before, before);
    assert_eq!(record.estimate_after, cleared.estimate_after);
    assert_eq!(done.state.summary, "ahead");
    assert_eq!(done.state.messages.len(), now.messages.len() - 8);
    assert_eq!(done.state.messages[..4], now.messages[8..12]);
    assert_ne!(done.state.messages[4], now.messages[12], "cleared");
    // Where each message of the new state came from in the state given: the cleared one too.
    assert_eq!(indices(&done.origins), (8..16).collect::<Vec<_>>());
}

#[test]
fn a_commit_whose_kept_messages_are_then_trimmed_reports_both() {
    let log = Log::default();
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 200,
        trim_oversized: true,
        ..CompactorConfig::new(Fixed::new("ahead"))
    })
    .unwrap();
    let estimator = CharEstimator::default();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| log.record(e),
    };
    // Sixteen messages (over 0.7 × 2,000): the draft keeps the last two.
    let draft = drafted_in(2_000, &local, &state(16));
    assert_eq!(draft.first_kept_index, 14);
    let calls = compactor.summarizer().seen.borrow().len();
    log.take();
    // A paste larger than the window: what the commit keeps is over the threshold, and no
    // summary can make it fit; the paste (message 16, 2 of the kept ones) is trimmed.
    let mut now = state(16);
    now.messages
        .push(user(&format!("HEAD {} TAIL", "d".repeat(4_000))));
    let before = local.facts(&now).unwrap().total();
    let done = run(manager(2_000).maintain(&local, now.clone(), options(Some(&draft)), &()));
    let done = done.unwrap();
    assert_eq!(done.outcome, Outcome::Compacted);
    assert!(matches!(done.pending, PendingUse::Committed));
    assert_eq!(compactor.summarizer().seen.borrow().len(), calls);
    let events = [
        "start pending 14",
        "end pending",
        "start threshold 0",
        "end threshold",
    ];
    assert_eq!(log.take(), events);
    // The commit's record in the terms of the state given, with the estimate after both
    // steps and the trimmed message named.
    let record = done.record.unwrap();
    assert_eq!(record.summary, "ahead");
    assert!(!record.trimmed, "a summary was committed");
    assert_eq!((record.first_kept_index, record.first_kept_part), (14, 0));
    assert_eq!(record.receipt.digest, Some(draft.digest));
    assert_eq!(record.receipt.cleared, [16]);
    assert_eq!(record.estimate_before, before);
    let after = local.facts(&done.state).unwrap().total();
    assert!(record.estimate_after <= 2_000, "{}", record.estimate_after);
    assert_eq!(
        record.estimate_after, after,
        "the estimate of the state after both"
    );
    assert_eq!(done.state.summary, "ahead");
    assert_eq!(done.state.messages[..2], now.messages[14..16]);
    assert_ne!(done.state.messages[2], now.messages[16], "trimmed");
    assert_eq!(indices(&done.origins), [14, 15, 16]);
}
