//! Property tests of the planner's and apply's invariants on random conversations.

mod common;

use common::*;
use context_compaction::*;
use proptest::prelude::*;
use serde_json::json;

#[derive(Debug, Clone)]
enum Op {
    User(usize),
    Say(usize),
    Calls(usize),
    Answer(usize),
    Orphan,
    Failed,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (1..40usize).prop_map(Op::User),
        (1..40usize).prop_map(Op::Say),
        (1..4usize).prop_map(Op::Calls),
        (0..8usize).prop_map(Op::Answer),
        Just(Op::Orphan),
        Just(Op::Failed),
    ]
}

/// Builds a conversation; answers go to a pending call chosen by index (so out of order).
fn conversation(ops: &[Op]) -> Vec<Message> {
    let mut messages = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let mut next = 0;
    for op in ops {
        match op {
            Op::User(n) => messages.push(user(&"u".repeat(*n))),
            Op::Say(n) => messages.push(say(&"a".repeat(*n))),
            Op::Calls(k) => {
                let ids: Vec<String> = (0..*k).map(|i| format!("c{}", next + i)).collect();
                next += k;
                let calls = ids
                    .iter()
                    .map(|id| ToolCall::new(id, "read", j(json!({"path": id}))))
                    .collect();
                messages.push(Message::tool_calls(calls));
                pending.extend(ids);
            }
            Op::Answer(i) if !pending.is_empty() => {
                let id = pending.remove(i % pending.len());
                messages.push(Message::tool_result(&id, "read", "contents"));
            }
            Op::Answer(_) | Op::Orphan => messages.push(Message::tool_result("ghost", "bash", "?")),
            Op::Failed => messages.push(Message::Assistant(AssistantMessage {
                content: vec![AssistantBlock::Text("oops".into())],
                stop_reason: Some(StopReason::Aborted),
            })),
        }
    }
    messages
}

/// Every (call index, result index) pair, matching a result to the latest earlier call.
fn pairs(messages: &[Message]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (j, m) in messages.iter().enumerate() {
        if let Message::ToolResult(r) = m {
            let call = messages[..j]
                .iter()
                .rposition(|c| c.calls().any(|call| call.id == r.tool_call_id));
            if let Some(i) = call {
                out.push((i, j));
            }
        }
    }
    out
}

fn plan_for(messages: &[Message], keep: u64) -> Option<Plan> {
    let request = Request {
        input_token_budget: Some(0),
        ..Request::new(messages)
    };
    compactor(keep as f64, Fixed::new("S"))
        .plan(&request)
        .unwrap()
}

proptest! {
    #[test]
    fn no_cut_separates_a_call_from_its_result(ops in prop::collection::vec(op(), 0..40), keep in 0u64..200) {
        let messages = conversation(&ops);
        if let Some(plan) = plan_for(&messages, keep) {
            let c = plan.first_kept_index;
            for (i, j) in pairs(&messages) {
                prop_assert!(!(i < c && c <= j), "cut {c} separates call {i} from result {j}");
            }
        }
    }

    #[test]
    fn the_plan_partitions_the_removed_prefix(ops in prop::collection::vec(op(), 0..40), keep in 0u64..200) {
        let messages = conversation(&ops);
        if let Some(plan) = plan_for(&messages, keep) {
            let c = plan.first_kept_index;
            prop_assert!(c >= 1 && c <= messages.len());
            prop_assert_eq!(plan.messages_to_summarize.start, 0);
            prop_assert_eq!(plan.messages_to_summarize.end, plan.turn_prefix_messages.start);
            prop_assert_eq!(plan.turn_prefix_messages.end, c);
            prop_assert_eq!(plan.split_turn, !plan.turn_prefix_messages.is_empty());
            let at_turn_start = messages.get(c).is_none_or(|m| matches!(m, Message::User(_)));
            prop_assert_eq!(plan.split_turn, !at_turn_start);
            if plan.split_turn && plan.turn_prefix_messages.start > 0 {
                prop_assert!(matches!(messages[plan.turn_prefix_messages.start], Message::User(_)));
            }
        }
    }

    #[test]
    fn calls_in_flight_at_the_end_are_kept(ops in prop::collection::vec(op(), 1..40)) {
        let messages = conversation(&ops);
        let last = messages.iter().rposition(|m| matches!(m, Message::Assistant(_)));
        if let (Some(last), Some(plan)) = (last, plan_for(&messages, 0)) {
            let answered: Vec<&str> = messages[last + 1..].iter().filter_map(|m| match m {
                Message::ToolResult(r) => Some(r.tool_call_id.as_str()),
                _ => None,
            }).collect();
            if messages[last].calls().any(|c| !answered.contains(&c.id.as_str())) {
                prop_assert!(plan.first_kept_index <= last);
            }
        }
    }

    #[test]
    fn a_failing_summarizer_changes_nothing(ops in prop::collection::vec(op(), 0..30)) {
        let messages = conversation(&ops);
        let before = messages.clone();
        let failing = compactor(0.0, Fixed { fail: true, ..Fixed::new("S") });
        let request = Request { summary: "old", require_reduction: true, ..Request::new(&messages) };
        prop_assert!(run(failing.compact(&request, &())).is_err());
        prop_assert_eq!(messages, before);
    }

    #[test]
    fn required_reduction_really_reduces(ops in prop::collection::vec(op(), 0..40), keep in 0u64..100) {
        let messages = conversation(&ops);
        let compactor = compactor(keep as f64, Fixed::new("brief"));
        let request = Request { require_reduction: true, ..Request::new(&messages) };
        match run(compactor.compact(&request, &())) {
            Ok(outcome) => {
                let record = outcome.record.unwrap();
                prop_assert!(record.estimate_after < record.estimate_before);
                // The after-estimate is the estimate of the state a host would store.
                let next = Request { summary: &outcome.summary, ..Request::new(&outcome.messages) };
                prop_assert_eq!(RequestFacts::of(&next).unwrap().total(), record.estimate_after);
            }
            Err(err) => prop_assert_eq!(err.code(), "no_reduction"),
        }
    }
}

proptest! {
    #[test]
    fn a_ledger_grown_message_by_message_plans_like_the_batch_planner(
        ops in prop::collection::vec(op(), 0..40),
        keep in 0u64..200,
        require in any::<bool>(),
    ) {
        let messages = conversation(&ops);
        let compactor = compactor(keep as f64, Fixed::new("S"));
        let heuristic = Heuristic::new();
        let options = PlanOptions { input_token_budget: Some(0), require_reduction: require };
        let mut ledger = Ledger::new();
        for end in 0..=messages.len() {
            let request = Request { system_prompt: "sys", summary: "old", ..Request::new(&messages[..end]) };
            let facts = RequestFacts::of(&request).unwrap();
            let batch = compactor.plan_with_facts(&facts, options);
            let grown = compactor.plan_with_ledger(&facts, &ledger, options);
            prop_assert_eq!(format!("{batch:?}"), format!("{grown:?}"), "after {} messages", end);
            if let Some(next) = messages.get(end) {
                ledger.push(MessageFacts::of(next, &heuristic).unwrap());
            }
        }
    }
}

proptest! {
    #[test]
    fn a_calibrated_ledger_plans_like_the_batch_planner_with_the_same_reports(
        ops in prop::collection::vec(op(), 1..40),
        keep in 0u64..200,
        at in any::<prop::sample::Index>(),
        permille in 400u64..2200,
    ) {
        let messages = conversation(&ops);
        let compactor = compactor(keep as f64, Fixed::new("S"));
        let heuristic = Heuristic::new();
        let options = PlanOptions { input_token_budget: Some(0), require_reduction: false };
        let mut ledger = Ledger::new();
        for m in &messages {
            ledger.push(MessageFacts::of(m, &heuristic).unwrap());
        }
        let request = Request { system_prompt: "sys", summary: "old", ..Request::new(&messages) };
        let raw = RequestFacts::of(&request).unwrap();
        // A report of a prefix at some ratio to our estimate (beyond 2× or below ½: ignored).
        let end = at.index(messages.len() + 1);
        let sent: u64 = raw.messages[..end].iter().filter(|f| !f.failed()).map(|f| f.tokens).sum();
        let tokens = (raw.system_prompt + raw.summary + sent) * permille / 1000;
        let reports = [Report { messages: end, tokens, fixed: None }];
        let calibrated = RequestFacts::of(&Request { reports: &reports, ..request }).unwrap();
        let batch = compactor.plan_with_facts(&calibrated, options);
        let fixed = ledger.calibrate(&raw, &reports);
        let grown = compactor.plan_with_ledger(&fixed, &ledger, options);
        prop_assert_eq!(format!("{batch:?}"), format!("{grown:?}"));
        // And back to the raw estimates without the report.
        let fixed = ledger.calibrate(&raw, &[]);
        let plain = compactor.plan_with_ledger(&fixed, &ledger, options);
        prop_assert_eq!(format!("{:?}", compactor.plan_with_facts(&raw, options)), format!("{plain:?}"));
    }
}

/// Tool-call arguments from a `serde_json` value.
fn j(value: serde_json::Value) -> context_compaction::Json {
    value.to_string().parse().expect("JSON")
}
