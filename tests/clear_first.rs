//! Clear first, summarize only when clearing is not enough: the one rule the `Compactor`
//! (`decide`, `compact`) and the `ContextManager` follow when the clearing policy is on, and
//! never when it is off.

mod common;

use std::cell::RefCell;

use common::*;
use context_compaction::clearing::{CLEARED_PREFIX, ClearingPolicy, Found};
use context_compaction::manager::*;
use context_compaction::*;
use serde_json::json;

/// Two turns with large old tool results, then a short last turn.
fn read_turns() -> Vec<Message> {
    let big = |label: &str| {
        (0..1500)
            .map(|i| format!("{label}{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    vec![
        user("read the sources"),
        Message::tool_calls(vec![ToolCall::new(
            "c1",
            "read",
            j(json!({"path": "src/a.rs"})),
        )]),
        Message::tool_result("c1", "read", big("alpha")),
        Message::tool_calls(vec![ToolCall::new(
            "c2",
            "bash",
            j(json!({"command": "ls"})),
        )]),
        Message::tool_result("c2", "bash", big("beta")),
        say("done"),
        user("and now?"),
    ]
}

/// Clears results of every size.
fn eager() -> Option<ClearingPolicy> {
    Some(ClearingPolicy {
        protect_recent_tokens: Some(0),
        ..ClearingPolicy::default()
    })
}

fn compactor(clearing: Option<ClearingPolicy>) -> Compactor<Fixed> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: 0,
        clearing,
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap()
}

fn request(messages: &[Message], budget: u64) -> Request<'_> {
    Request {
        input_token_budget: Some(budget),
        ..Request::new(messages)
    }
}

fn result_text(message: &Message) -> String {
    match message {
        Message::ToolResult(result) => match result.content.as_slice() {
            [ContentBlock::Text(text)] => text.clone(),
            other => panic!("not one text: {other:?}"),
        },
        other => panic!("not a tool result: {other:?}"),
    }
}

#[test]
fn the_compactor_clears_first_when_clearing_is_enough() {
    let messages = read_turns();
    let compactor = compactor(eager());
    let request = request(&messages, 2000);
    let Some(Planned::Clear(clearing)) = compactor.decide(&request).unwrap() else {
        panic!("a clearing");
    };
    let ids: Vec<&str> = clearing
        .results
        .iter()
        .map(|r| r.tool_call_id.as_str())
        .collect();
    assert_eq!(ids, ["c1", "c2"]);
    assert!(clearing.estimate_after <= 2000 && clearing.tokens_freed() > 3000);

    let done = run(compactor.compact(&request, &())).unwrap();
    assert!(
        compactor.summarizer().seen.borrow().is_empty(),
        "no summary"
    );
    assert_eq!(done.summary, "");
    assert_eq!(done.cleared.as_ref(), Some(&clearing));
    let record = done.record.unwrap();
    assert_eq!(record.first_kept_index, 0);
    assert_eq!(
        (record.estimate_before, record.estimate_after),
        (clearing.estimate_before, clearing.estimate_after)
    );
    assert_eq!(done.messages.len(), messages.len());
    assert!(result_text(&done.messages[2]).starts_with(CLEARED_PREFIX));
    assert!(result_text(&done.messages[2]).contains("read of src/a.rs"));
    assert_eq!(done.messages[0], messages[0]);
    // The estimate after is the estimate of the rewritten messages.
    let after = RequestFacts::of(&Request::new(&done.messages)).unwrap();
    assert_eq!(after.total(), clearing.estimate_after);
}

#[test]
fn the_compactor_summarizes_when_clearing_is_not_enough_or_a_reduction_is_required() {
    let messages = read_turns();
    let compactor = compactor(eager());
    let tight = request(&messages, 100);
    let planned = compactor.decide(&tight).unwrap();
    assert_eq!(
        planned,
        compactor.plan(&tight).unwrap().map(Planned::Summarize)
    );
    assert!(matches!(planned, Some(Planned::Summarize(_))));
    let required = Request {
        require_reduction: true,
        ..request(&messages, 2000)
    };
    assert!(matches!(
        compactor.decide(&required).unwrap(),
        Some(Planned::Summarize(_))
    ));
    let done = run(compactor.compact(&tight, &())).unwrap();
    assert_eq!(done.summary.lines().next(), Some("S"));
    assert_eq!(done.cleared, None);
    assert_eq!(compactor.summarizer().seen.borrow().len(), 1);
    // Under the trigger there is nothing to do.
    assert_eq!(
        compactor.decide(&request(&messages, 100_000)).unwrap(),
        None
    );
}

#[test]
fn the_compactor_never_clears_with_the_policy_off() {
    let messages = read_turns();
    let compactor = compactor(None);
    let request = request(&messages, 2000);
    let planned = compactor.decide(&request).unwrap();
    assert_eq!(
        planned,
        compactor.plan(&request).unwrap().map(Planned::Summarize)
    );
    assert!(planned.is_some());
    let done = run(compactor.compact(&request, &())).unwrap();
    assert_eq!(compactor.summarizer().seen.borrow().len(), 1);
    assert!(done.record.unwrap().first_kept_index > 0);
}

/// What a conversation handle's plan decides over a ledger of `messages` with `budget`: the
/// facts `find` was given, with the decision.
fn decide_ledger(
    compactor: &Compactor<Fixed>,
    messages: &[Message],
    budget: u64,
) -> (Option<usize>, LedgerDecision) {
    let request = request(messages, budget);
    let facts = RequestFacts::of(&request).unwrap();
    let mut ledger = Ledger::from_facts(facts.messages.clone());
    let fixed = RequestFacts {
        messages: Vec::new(),
        ..facts
    };
    let fixed = ledger.calibrate(&fixed, &[]);
    let mut seen = None;
    let mut find = |policy: &ClearingPolicy, facts: &RequestFacts| {
        seen = Some(facts.messages.len());
        Found::of_messages(messages, &policy.file_tracking, request.estimator)
    };
    let options = request.options();
    let heuristic = Heuristic::new();
    let decided = compactor.decide_ledger(&fixed, &ledger, options, &heuristic, &mut find);
    (seen, decided.unwrap())
}

#[test]
fn a_conversation_ledger_clears_first_as_the_compactor_does() {
    let messages = read_turns();
    let eager = compactor(eager());
    let (seen, decided) = decide_ledger(&eager, &messages, 2000);
    let Some(Planned::Clear(expected)) = eager.decide(&request(&messages, 2000)).unwrap() else {
        panic!("a clearing");
    };
    assert_eq!(
        seen,
        Some(messages.len()),
        "read over every message's facts"
    );
    let LedgerDecision::Clear(decided) = decided else {
        panic!("a clearing, not {decided:?}");
    };
    let (facts, cleared) = *decided;
    assert_eq!(cleared, expected);
    assert_eq!(facts.total(), expected.estimate_before);
    // Not enough: the ledger's summary plan, as the compactor's.
    let (_, decided) = decide_ledger(&eager, &messages, 100);
    let LedgerDecision::Summarize(plan) = decided else {
        panic!("a summary plan, not {decided:?}");
    };
    let tight = request(&messages, 100);
    assert_eq!(plan, eager.plan(&tight).unwrap());
    assert!(plan.is_some());
    // Under the trigger there is nothing to do, and nothing is read.
    let (seen, decided) = decide_ledger(&eager, &messages, 100_000);
    assert!(matches!(decided, LedgerDecision::Summarize(None)) && seen.is_none());
}

#[test]
fn a_conversation_ledger_never_clears_with_the_policy_off() {
    let messages = read_turns();
    let off = compactor(None);
    let (seen, decided) = decide_ledger(&off, &messages, 2000);
    assert_eq!(seen, None, "nothing read for clearing");
    let LedgerDecision::Summarize(plan) = decided else {
        panic!("a summary plan, not {decided:?}");
    };
    assert_eq!(plan, off.plan(&request(&messages, 2000)).unwrap());
    assert!(plan.is_some());
}

/// Fails on the clearing placeholder only, so that planning a clearing fails.
struct FailsOnPlaceholder;

impl Estimator for FailsOnPlaceholder {
    fn count_tokens(&self, text: &str) -> std::result::Result<u64, BoxError> {
        if text.starts_with(CLEARED_PREFIX) {
            return Err("no placeholders".into());
        }
        Heuristic::new().count_tokens(text)
    }
}

#[test]
fn a_failing_clearing_fails_the_decision() {
    let messages = read_turns();
    let estimator = FailsOnPlaceholder;
    let request = Request {
        estimator: &estimator,
        ..request(&messages, 2000)
    };
    let error = compactor(eager()).decide(&request).unwrap_err();
    assert_eq!(error.code(), "invalid_request");
    assert!(compactor(None).decide(&request).unwrap().is_some());
}

/// Events as short strings.
#[derive(Default)]
struct Log(RefCell<Vec<String>>);

impl Log {
    fn record(&self, event: Event<'_>) {
        self.0.borrow_mut().push(match event {
            Event::Start { reason, plan, .. } => {
                format!("start {} {}", reason.as_str(), plan.first_kept_index)
            }
            Event::End { reason, record, .. } => format!(
                "end {} {}",
                reason.as_str(),
                record.map_or("error".to_owned(), |r| r.first_kept_index.to_string())
            ),
        });
    }
}

/// Maintains `read_turns` with an input budget of 2,000 (`budget`) under `compactor`.
fn maintain(
    compactor: &Compactor<Fixed>,
    estimator: &dyn Estimator,
    budget: u64,
    log: &Log,
) -> Maintained<OwnedState> {
    let state = OwnedState {
        messages: read_turns(),
        ..OwnedState::default()
    };
    let manager = ContextManager::new(ManagerConfig {
        context_window_tokens: budget + 1000,
        reserve_tokens: 1000,
        ..ManagerConfig::default()
    });
    let local = Local {
        compactor,
        estimator,
        on_event: &|e| log.record(e),
    };
    run(manager.maintain(&local, state, MaintainOptions::default(), &())).unwrap()
}

#[test]
fn maintenance_clears_first_when_clearing_is_enough() {
    let (log, compactor) = (Log::default(), compactor(eager()));
    let done = maintain(&compactor, &Heuristic::new(), 2000, &log);
    assert_eq!(done.outcome, Outcome::Cleared);
    assert_eq!(done.outcome.as_str(), "cleared");
    assert!(compactor.summarizer().seen.borrow().is_empty());
    assert_eq!(*log.0.borrow(), ["start threshold 0", "end threshold 0"]);
    let cleared = done.cleared.unwrap();
    assert_eq!(cleared.results.len(), 2);
    assert_eq!(done.record.unwrap().estimate_after, cleared.estimate_after);
    assert!(result_text(&done.state.messages[4]).starts_with(CLEARED_PREFIX));
    assert_eq!(done.state.summary, "");
}

#[test]
fn maintenance_summarizes_when_clearing_is_not_enough_or_off() {
    for (clearing, budget) in [(eager(), 100), (None, 2000)] {
        let (log, compactor) = (Log::default(), compactor(clearing));
        let done = maintain(&compactor, &Heuristic::new(), budget, &log);
        assert_eq!(done.outcome, Outcome::Compacted, "budget {budget}");
        assert_eq!(done.cleared, None);
        assert_eq!(compactor.summarizer().seen.borrow().len(), 1);
        assert!(done.record.unwrap().first_kept_index > 0);
    }
}

#[test]
fn maintenance_reports_a_failing_clearing_instead_of_summarizing() {
    let (log, compactor) = (Log::default(), compactor(eager()));
    let done = maintain(&compactor, &FailsOnPlaceholder, 2000, &log);
    assert_eq!(done.outcome, Outcome::PlanFailed);
    assert_eq!(done.error.unwrap().code(), "invalid_request");
    assert!(compactor.summarizer().seen.borrow().is_empty());
    assert!(log.0.borrow().is_empty(), "no events");
    assert_eq!(done.state.messages, read_turns(), "unchanged");
}

#[test]
fn a_clearing_inside_the_anchored_request_lowers_its_report() {
    let compactor = compactor(eager());
    let messages = read_turns();
    let raw = RequestFacts::of(&Request::new(&messages)).unwrap().total();
    // The provider counted the request up to the answer "done" as 10% more than we do.
    let report = Report {
        messages: 6,
        tokens: raw * 11 / 10,
        fixed: None,
    };
    let state = OwnedState {
        messages,
        reports: vec![report],
        ..OwnedState::default()
    };
    let manager = ContextManager::new(ManagerConfig {
        context_window_tokens: 3000,
        reserve_tokens: 1000,
        ..ManagerConfig::default()
    });
    let estimator = Heuristic::new();
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let done = run(manager.maintain(&local, state, MaintainOptions::default(), &())).unwrap();
    assert_eq!(done.outcome, Outcome::Cleared);
    let [after] = done.state.reports.as_slice() else {
        panic!("one report");
    };
    assert_eq!(after.messages, 6);
    let freed = done.cleared.unwrap().tokens_freed();
    assert!(after.tokens < report.tokens && report.tokens - after.tokens >= freed - 10);
}

/// Tool-call arguments from a `serde_json` value.
fn j(value: serde_json::Value) -> context_compaction::Json {
    value.to_string().parse().expect("JSON")
}
