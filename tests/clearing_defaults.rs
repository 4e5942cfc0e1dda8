//! Clearing's defaults (`clearing: true`): the newest tool output protected is a share of the
//! input budget, and the arguments of old calls are cleared when they are large (an `edit` or
//! `write` holding a file), with their result however small. Explicit options override both.

mod common;

use common::*;
use context_compaction::clearing::{
    self, ClearingPolicy, DEFAULT_PROTECT_RECENT_TOKENS, Found, LARGE_ARGUMENTS_TOKENS, Limits,
};
use context_compaction::*;
use serde_json::{Value, json};

fn words(label: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{label}{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An old `write` of a large file (its result one line), an old `read` and `bash` with large
/// results (small arguments), then a short last turn.
fn session() -> Vec<Message> {
    let call = |id: &str, name: &str, args: Value| {
        Message::tool_calls(vec![ToolCall::new(id, name, j(args))])
    };
    vec![
        user("write the module, then look around"),
        call(
            "w1",
            "write",
            json!({ "path": "src/m.rs", "content": words("line", 1500) }),
        ),
        Message::tool_result("w1", "write", "Wrote src/m.rs."),
        call("r1", "read", json!({ "path": "src/a.rs" })),
        Message::tool_result("r1", "read", words("alpha", 1500)),
        call("b1", "bash", json!({ "command": "ls" })),
        Message::tool_result("b1", "bash", words("beta", 1500)),
        say("done"),
        user("and now?"),
    ]
}

fn policy(protect: Option<u64>, arguments: Option<bool>) -> ClearingPolicy {
    ClearingPolicy {
        protect_recent_tokens: protect,
        clear_arguments: arguments,
        ..ClearingPolicy::default()
    }
}

/// The clearing `policy` plans for `messages` with a request budget of `budget` and no kept
/// suffix.
fn plan(messages: &[Message], policy: &ClearingPolicy, budget: u64) -> Option<clearing::Clearing> {
    let heuristic = Heuristic::new();
    let found = Found::of_messages(messages, &policy.file_tracking, &heuristic).unwrap();
    let facts = RequestFacts::of(&Request::new(messages)).unwrap();
    let limits = Limits {
        keep_recent_tokens: 0,
        input_token_budget: Some(budget),
    };
    clearing::plan(&found, &facts, policy, limits, &heuristic).unwrap()
}

fn ids(clearing: &Option<clearing::Clearing>) -> Vec<&str> {
    clearing
        .iter()
        .flat_map(|c| &c.results)
        .map(|r| r.tool_call_id.as_str())
        .collect()
}

#[test]
fn the_default_protection_is_a_tenth_of_the_budget_at_most_40k() {
    let defaults = ClearingPolicy::default();
    assert_eq!(defaults.protected_tokens(Some(112_000)), 11_200);
    assert_eq!(
        defaults.protected_tokens(Some(1_000_000)),
        DEFAULT_PROTECT_RECENT_TOKENS
    );
    assert_eq!(
        defaults.protected_tokens(None),
        DEFAULT_PROTECT_RECENT_TOKENS
    );
    // Configured, it is what it says, whatever the budget.
    let set = policy(Some(5), None);
    assert_eq!(
        (
            set.protected_tokens(Some(1_000_000)),
            set.protected_tokens(None)
        ),
        (5, 5)
    );
}

#[test]
fn the_default_protection_follows_the_budget_and_an_explicit_one_overrides_it() {
    let messages = session();
    let defaults = policy(None, None);
    // The `bash` output is about 3,000 tokens: a tenth of a 20,000 budget covers it alone, a
    // tenth of 300,000 (30,000) every result, as the old fixed 40,000 did at any budget.
    assert_eq!(ids(&plan(&messages, &defaults, 20_000)), ["w1", "r1"]);
    assert_eq!(
        ids(&plan(&messages, &defaults, 300_000)),
        Vec::<&str>::new()
    );
    assert_eq!(
        ids(&plan(&messages, &policy(Some(40_000), None), 20_000)),
        Vec::<&str>::new()
    );
    assert_eq!(
        ids(&plan(&messages, &policy(Some(0), None), 300_000)),
        ["w1", "r1", "b1"]
    );
    // `clearable` (what a chat's stored list is checked against) protects the same.
    let heuristic = Heuristic::new();
    let found = Found::of_messages(&messages, &defaults.file_tracking, &heuristic).unwrap();
    let facts = RequestFacts::of(&Request::new(&messages)).unwrap();
    let limits = Limits {
        keep_recent_tokens: 0,
        input_token_budget: Some(20_000),
    };
    let listed: Vec<&str> = clearing::clearable(&found, &facts, &defaults, limits)
        .into_iter()
        .map(|k| found.results[k].id.as_str())
        .collect();
    assert_eq!(listed, ["w1", "r1"]);
}

#[test]
fn large_arguments_go_with_their_small_result_by_default() {
    let messages = session();
    let cleared = plan(&messages, &policy(Some(0), None), 20_000).unwrap();
    // The write's one-line result is smaller than its placeholder, but its arguments are large:
    // both go. The small arguments of `read` and `bash` stay.
    assert_eq!(ids(&Some(cleared.clone())), ["w1", "r1", "b1"]);
    assert_eq!(cleared.argument_messages, [1]);
    let done = clearing::clear_messages(&messages, &cleared);
    let after = RequestFacts::of(&Request::new(&done)).unwrap();
    assert_eq!(
        after.total(),
        cleared.estimate_after,
        "the estimate planned is the rewrite's"
    );
    let Message::Assistant(write) = &done[1] else {
        panic!("the write call")
    };
    let Some(AssistantBlock::ToolCall(call)) = write.content.first() else {
        panic!("a call")
    };
    assert_eq!(call.arguments, j(json!({})));
    assert_eq!(done[3], messages[3], "small arguments stay");
}

#[test]
fn small_arguments_stay_by_default_and_the_threshold_is_where_large_starts() {
    let policy = policy(Some(0), None);
    assert!(!policy.clears_arguments(LARGE_ARGUMENTS_TOKENS - 1));
    assert!(policy.clears_arguments(LARGE_ARGUMENTS_TOKENS));
    assert!(policy.reads_arguments());
    // A write of a small file: its result stays too (nothing worth clearing).
    let mut messages = session();
    messages[1] = Message::tool_calls(vec![ToolCall::new(
        "w1",
        "write",
        j(json!({ "path": "x", "content": "x" })),
    )]);
    let cleared = plan(&messages, &policy, 20_000).unwrap();
    assert_eq!(ids(&Some(cleared.clone())), ["r1", "b1"]);
    assert!(cleared.argument_messages.is_empty());
}

#[test]
fn explicit_clear_arguments_overrides_the_default() {
    let messages = session();
    // `false`: no arguments, and the write's small result stays.
    let never = plan(&messages, &policy(Some(0), Some(false)), 20_000).unwrap();
    assert_eq!(ids(&Some(never.clone())), ["r1", "b1"]);
    assert!(never.argument_messages.is_empty());
    assert!(!policy(None, Some(false)).reads_arguments());
    // `true`: the arguments of every cleared call, small ones too; a result smaller than its
    // placeholder stays, as before the defaults.
    let always = plan(&messages, &policy(Some(0), Some(true)), 20_000).unwrap();
    assert_eq!(ids(&Some(always.clone())), ["r1", "b1"]);
    assert_eq!(always.argument_messages, [3, 5]);
    assert!(policy(None, Some(true)).clears_arguments(1));
}

#[test]
fn the_compactor_clears_with_the_defaults_where_a_fixed_40k_would_summarize() {
    let messages = session();
    let total = RequestFacts::of(&Request::new(&messages)).unwrap().total();
    let budget = total - 2_000;
    let compactor = |policy: ClearingPolicy| {
        Compactor::new(CompactorConfig {
            keep_recent_tokens: 0,
            clearing: Some(policy),
            ..CompactorConfig::new(Fixed::new("S"))
        })
        .unwrap()
    };
    let request = Request {
        input_token_budget: Some(budget),
        ..Request::new(&messages)
    };
    let defaults = compactor(ClearingPolicy::default())
        .decide(&request)
        .unwrap();
    let Some(Planned::Clear(cleared)) = defaults else {
        panic!("a clearing: {defaults:?}")
    };
    assert_eq!(cleared.argument_messages, [1]);
    let fixed = compactor(policy(Some(40_000), Some(false)))
        .decide(&request)
        .unwrap();
    assert!(matches!(fixed, Some(Planned::Summarize(_))), "{fixed:?}");
}

#[test]
fn a_message_with_large_and_small_arguments_clears_both_and_counts_both() {
    // One assistant message calls `write` (large arguments) and `bash` (small): its arguments
    // are cleared together, and the estimate planned is the rewrite's.
    let calls = vec![
        ToolCall::new(
            "w1",
            "write",
            j(json!({ "path": "src/m.rs", "content": words("line", 1500) })),
        ),
        ToolCall::new(
            "b1",
            "bash",
            j(json!({ "command": "cargo build --release" })),
        ),
    ];
    let messages = vec![
        user("write it and build"),
        Message::tool_calls(calls),
        Message::tool_result("w1", "write", "Wrote src/m.rs."),
        Message::tool_result("b1", "bash", words("beta", 1500)),
        say("done"),
        user("and now?"),
    ];
    let cleared = plan(&messages, &policy(Some(0), None), 20_000).unwrap();
    assert_eq!(ids(&Some(cleared.clone())), ["w1", "b1"]);
    assert_eq!(cleared.argument_messages, [1]);
    let done = clearing::clear_messages(&messages, &cleared);
    let Message::Assistant(both) = &done[1] else {
        panic!("the calls")
    };
    for block in &both.content {
        let AssistantBlock::ToolCall(call) = block else {
            panic!("a call")
        };
        assert_eq!(call.arguments, j(json!({})), "{}", call.id);
    }
    let after = RequestFacts::of(&Request::new(&done)).unwrap();
    assert_eq!(after.total(), cleared.estimate_after);
}

#[test]
fn a_rewrite_counts_a_placeholder_larger_than_the_result_it_replaced() {
    // A small result cleared with its call's large arguments grows (5 tokens to 30): what the
    // rewrite frees is net of that growth (the record of an applied clear plan says so).
    let message = |tokens| MessageFacts {
        tokens,
        ..MessageFacts::default()
    };
    let facts = RequestFacts {
        messages: vec![message(200), message(5)],
        ..RequestFacts::default()
    };
    let done =
        clearing::Clearing::of_rewrite(&facts, Vec::new(), Vec::new(), &[(0, 200, 10), (1, 5, 30)]);
    assert_eq!(done.tokens_freed(), 205 - 40);
}

#[test]
fn a_clearing_that_frees_too_little_of_the_budget_is_not_taken() {
    let clearing = |before: u64, after: u64| clearing::Clearing {
        results: Vec::new(),
        argument_messages: Vec::new(),
        estimate_before: before,
        estimate_after: after,
    };
    // Both under the trigger; 2% of 10,000 is 200.
    assert!(!clearing::is_enough(&clearing(10_050, 9_900), 10_000, 1.0));
    assert!(clearing::is_enough(&clearing(10_050, 9_850), 10_000, 1.0));

    // Through the compactor: an old result of about 300 tokens in 20,000 (2% is 400) would
    // bring the estimate under the trigger, but a summary is made instead.
    let messages = vec![
        user(&words("context", 15_000)),
        Message::tool_calls(vec![ToolCall::new(
            "b1",
            "bash",
            j(json!({ "command": "ls" })),
        )]),
        Message::tool_result("b1", "bash", words("beta", 150)),
        say("done"),
        user("and now?"),
    ];
    let total = RequestFacts::of(&Request::new(&messages)).unwrap().total();
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: 0,
        clearing: Some(policy(Some(0), None)),
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap();
    let request = Request {
        input_token_budget: Some(total - 50),
        ..Request::new(&messages)
    };
    let planned = plan(&messages, &policy(Some(0), None), total - 50).unwrap();
    assert!(planned.estimate_after <= total - 50 && planned.tokens_freed() < (total - 50) / 50);
    let decided = compactor.decide(&request).unwrap();
    assert!(
        matches!(decided, Some(Planned::Summarize(_))),
        "{decided:?}"
    );
}

/// Tool-call arguments from a `serde_json` value.
fn j(value: serde_json::Value) -> context_compaction::Json {
    value.to_string().parse().expect("JSON")
}
