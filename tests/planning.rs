//! Planning: threshold, keep rule, valid cuts around tool calls, turns, facts reuse.

mod common;

use common::*;
use context_compaction::*;

/// Plans `messages` with character counting, keeping `keep` tokens.
fn plan_of(
    messages: &[Message],
    keep: f64,
    budget: Option<u64>,
    require: bool,
) -> Result<Option<Plan>> {
    let estimator = CharEstimator::default();
    let request = Request {
        input_token_budget: budget,
        require_reduction: require,
        estimator: &estimator,
        ..Request::new(messages)
    };
    compactor(keep, Fixed::new("S")).plan(&request)
}

fn cut_of(messages: &[Message], keep: f64) -> usize {
    plan_of(messages, keep, Some(0), false)
        .unwrap()
        .unwrap()
        .first_kept_index
}

fn ten() -> Vec<Message> {
    // Four messages of ten tokens each (one token per character).
    vec![
        user("aaaaaaaaaa"),
        say("bbbbbbbbbb"),
        user("cccccccccc"),
        say("dddddddddd"),
    ]
}

#[test]
fn an_estimate_strictly_above_the_budget_plans_and_an_equal_one_does_not() {
    let messages = ten();
    assert_eq!(plan_of(&messages, 0.0, Some(40), false).unwrap(), None);
    assert!(plan_of(&messages, 0.0, Some(39), false).unwrap().is_some());
}

#[test]
fn the_trigger_ratio_multiplies_the_budget_and_may_exceed_one() {
    let messages = ten();
    let estimator = CharEstimator::default();
    let with_ratio = |ratio: f64, budget: u64| {
        let compactor = Compactor::new(CompactorConfig {
            keep_recent_tokens: 0,
            trigger_ratio: ratio,
            ..CompactorConfig::new(Fixed::new("S"))
        })
        .unwrap();
        let request = Request {
            input_token_budget: Some(budget),
            estimator: &estimator,
            ..Request::new(&messages)
        };
        compactor.plan(&request).unwrap().is_some()
    };
    assert!(!with_ratio(0.8, 50)); // 40 is not above 40
    assert!(with_ratio(0.78, 50)); // 40 is above 39
    assert!(!with_ratio(1.5, 30)); // 40 is not above 45
    assert!(with_ratio(1.3, 30)); // 40 is above 39
}

#[test]
fn without_a_budget_only_required_reduction_plans() {
    let messages = ten();
    assert_eq!(plan_of(&messages, 0.0, None, false).unwrap(), None);
    // Required reduction bypasses the threshold, even a budget the estimate is far below.
    assert!(plan_of(&messages, 0.0, None, true).unwrap().is_some());
    assert!(
        plan_of(&messages, 0.0, Some(1_000), true)
            .unwrap()
            .is_some()
    );
}

#[test]
fn nothing_removable_is_none_or_no_reduction_when_required() {
    let messages = ten();
    assert_eq!(plan_of(&messages, 1_000.0, Some(0), false).unwrap(), None);
    let err = plan_of(&messages, 1_000.0, Some(0), true).unwrap_err();
    assert!(matches!(err, Error::NoReduction(_)), "{err}");
    assert_eq!(plan_of(&[], 0.0, Some(0), false).unwrap(), None);
    assert!(matches!(
        plan_of(&[], 0.0, None, true),
        Err(Error::NoReduction(_))
    ));
}

#[test]
fn keeps_the_shortest_suffix_reaching_keep_recent_tokens() {
    let messages = ten();
    assert_eq!(cut_of(&messages, 1.0), 3);
    assert_eq!(cut_of(&messages, 10.0), 3);
    assert_eq!(cut_of(&messages, 11.0), 2);
    assert_eq!(cut_of(&messages, 20.0), 2);
    assert_eq!(cut_of(&messages, 30.0), 1);
    // The whole history is needed to reach 40: nothing can be removed.
    assert_eq!(plan_of(&messages, 40.0, Some(0), false).unwrap(), None);
}

#[test]
fn keep_zero_keeps_nothing_and_summarizes_every_message() {
    let messages = ten();
    let plan = plan_of(&messages, 0.0, Some(0), false).unwrap().unwrap();
    assert_eq!(plan.first_kept_index, messages.len());
    assert_eq!(plan.messages_to_summarize, 0..4);
    assert!(!plan.split_turn);
    assert_eq!(plan.turn_prefix_messages, 4..4);
}

#[test]
fn an_invalid_boundary_moves_to_the_nearest_valid_cut_before_it() {
    // 0 user, 1 call a, 2 result a, 3 user, 4 say
    let messages = vec![
        user("u"),
        call("a", "read"),
        result("a"),
        user("v"),
        say("w"),
    ];
    let plan = plan_of(&messages, 0.0, Some(0), false).unwrap().unwrap();
    let t = &plan.message_tokens;
    // Keep through the result: the boundary is 2, which would separate a from its result.
    let keep = (t[2] + t[3] + t[4]) as f64;
    assert_eq!(cut_of(&messages, keep), 1);
}

#[test]
fn parallel_calls_are_never_separated_from_any_of_their_results() {
    // 0 user, 1 calls [a, b], 2 result a, 3 result b, 4 say
    let messages = vec![
        user("u"),
        calls(&["a", "b"]),
        result("a"),
        result("b"),
        say("w"),
    ];
    for keep in 1..=30 {
        let cut = cut_of(&messages, keep as f64);
        assert!(cut != 2 && cut != 3, "keep {keep} cut at {cut}");
    }
    assert_eq!(cut_of(&messages, 1.0), 4);
    // Reaching 2 tokens needs result b, so the cut moves before the calls.
    assert_eq!(cut_of(&messages, 2.0), 1);
}

#[test]
fn results_out_of_order_still_pair_with_their_calls() {
    // 0 user, 1 calls [a, b], 2 result b, 3 result a, 4 say
    let messages = vec![
        user("u"),
        calls(&["a", "b"]),
        result("b"),
        result("a"),
        say("w"),
    ];
    assert_eq!(cut_of(&messages, 5.0), 1);
    assert_eq!(cut_of(&messages, 4.0), 1);
}

#[test]
fn orphan_results_constrain_nothing() {
    // 0 user, 1 say, 2 result of an unknown call, 3 say
    let messages = vec![user("u"), say("x"), result("nobody"), say("yyyyyyyyyy")];
    let plan = plan_of(&messages, 12.0, Some(0), false).unwrap().unwrap();
    assert_eq!(plan.first_kept_index, 2);
    assert!(plan.split_turn);
}

#[test]
fn a_trailing_assistant_with_pending_calls_is_kept_with_everything_after_it() {
    // 0 user, 1 say, 2 user, 3 calls [a, b], 4 result a (b still running)
    let messages = vec![
        user("u"),
        say("x"),
        user("v"),
        calls(&["a", "b"]),
        result("a"),
    ];
    let plan = plan_of(&messages, 0.0, Some(0), false).unwrap().unwrap();
    assert_eq!(plan.first_kept_index, 3);
    // Once b is answered the calls are no longer in flight.
    let mut done = messages.clone();
    done.push(result("b"));
    assert_eq!(cut_of(&done, 0.0), 6);
    // Only an in-flight tail: nothing removable before it.
    let pending = vec![calls(&["a"])];
    assert_eq!(plan_of(&pending, 0.0, Some(0), false).unwrap(), None);
}

#[test]
fn a_cut_at_a_user_message_does_not_split_a_turn() {
    let messages = ten();
    let plan = plan_of(&messages, 20.0, Some(0), false).unwrap().unwrap();
    assert_eq!(plan.first_kept_index, 2);
    assert!(!plan.split_turn);
    assert_eq!(plan.messages_to_summarize, 0..2);
    assert!(plan.turn_prefix_messages.is_empty());
}

#[test]
fn a_cut_inside_a_turn_summarizes_its_beginning_separately() {
    // 0 user, 1 say, 2 user (turn start), 3 call a, 4 result a, 5 say
    let messages = vec![
        user("u"),
        say("x"),
        user("v"),
        call("a", "read"),
        result("a"),
        say("zzzzzzzzzz"),
    ];
    let plan = plan_of(&messages, 10.0, Some(0), false).unwrap().unwrap();
    assert_eq!(plan.first_kept_index, 5);
    assert!(plan.split_turn);
    assert_eq!(plan.messages_to_summarize, 0..2);
    assert_eq!(plan.turn_prefix_messages, 2..5);
}

#[test]
fn a_history_without_a_user_message_is_one_turn_from_the_start() {
    let messages = vec![say("x"), say("y"), say("zzzzzzzzzz")];
    let plan = plan_of(&messages, 10.0, Some(0), false).unwrap().unwrap();
    assert_eq!(plan.first_kept_index, 2);
    assert!(plan.split_turn);
    assert_eq!(plan.messages_to_summarize, 0..0);
    assert_eq!(plan.turn_prefix_messages, 0..2);
}

#[test]
fn the_plan_reports_estimates() {
    let messages = ten();
    let plan = plan_of(&messages, 20.0, Some(0), false).unwrap().unwrap();
    assert_eq!(plan.estimate_before, 40);
    assert_eq!(plan.estimate_after_without_summary, 20);
    assert_eq!(plan.message_tokens, vec![10, 10, 10, 10]);
}

#[test]
fn plan_slices_exist_for_the_callers_messages() {
    let messages = vec![
        user("u"),
        say("x"),
        user("v"),
        call("a", "read"),
        result("a"),
        say("zzzzzzzzzz"),
    ];
    let plan = plan_of(&messages, 10.0, Some(0), false).unwrap().unwrap();
    assert_eq!(
        &messages[plan.messages_to_summarize.clone()],
        &messages[..2]
    );
    assert_eq!(
        &messages[plan.turn_prefix_messages.clone()],
        &messages[2..5]
    );
}

#[test]
fn kept_facts_let_a_grown_history_be_planned_estimating_only_the_new_message() {
    let mut messages = ten();
    let estimator = CharEstimator::default();
    let request = Request {
        input_token_budget: Some(0),
        estimator: &estimator,
        ..Request::new(&messages)
    };
    let compactor = compactor(15.0, Fixed::new("S"));
    let mut facts = RequestFacts::of(&request).unwrap();
    let first = compactor
        .plan_with_facts(&facts, request.options())
        .unwrap();
    assert_eq!(first.unwrap().first_kept_index, 2);

    messages.push(user("eeeeeeeeee"));
    let before = estimator.calls.get();
    facts
        .messages
        .push(MessageFacts::of(messages.last().unwrap(), &estimator).unwrap());
    assert_eq!(
        estimator.calls.get() - before,
        1,
        "only the new message is estimated"
    );
    let options = PlanOptions {
        input_token_budget: Some(0),
        require_reduction: false,
    };
    let grown = compactor.plan_with_facts(&facts, options).unwrap();
    let fresh = compactor
        .plan(&Request {
            input_token_budget: Some(0),
            estimator: &estimator,
            ..Request::new(&messages)
        })
        .unwrap();
    assert_eq!(grown, fresh);
    assert_eq!(grown.unwrap().first_kept_index, 3);
}

#[test]
fn a_failing_estimator_is_an_invalid_request_naming_the_place() {
    let messages = ten();
    let request = Request {
        input_token_budget: Some(0),
        estimator: &BrokenEstimator,
        ..Request::new(&messages)
    };
    let err = compactor(0.0, Fixed::new("S")).plan(&request).unwrap_err();
    assert_eq!(err.code(), "invalid_request");
    assert!(
        err.to_string()
            .contains("messages[0]: the estimator failed: tokenizer offline"),
        "{err}"
    );
    assert!(std::error::Error::source(&err).is_some());
}
