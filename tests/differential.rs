//! Rust and JavaScript decide alike. The Rust `Compactor` plans, clears and applies every
//! fixture of `tests/fixtures/formats` in its format (and the same conversation with large
//! tool results), with clearing off and on, over a range of budgets; what it does is kept in
//! `tests/fixtures/differential.json`, which `tests/js/differential.test.mjs` runs the
//! package's `Compactor` against (its `plan`, `planBytes`, a conversation handle's `plan`,
//! `apply` and `compact`), and, for the canonical fixture, the `ContextManager`'s `maintain`. This test fails when the file is not what the Rust side gives:
//! `UPDATE_DIFFERENTIAL=1 cargo test --test differential` writes it again.

mod common;

use common::{FIXTURES, Fixed, run};
use context_compaction::clearing::{self, Clearing, ClearingPolicy, Finder};
use context_compaction::formats::Format;
use context_compaction::*;
use serde_json::{Value, json};

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/differential.json"
);

/// The tool results of the fixtures' conversation (the same text in every format).
const RESULTS: [&str; 3] = [
    "pub fn add(a: i32, b: i32) -> i32 { a - b }",
    "#[test] fn adds() { assert_eq!(add(2, 2), 4); }",
    "Successfully replaced text in src/lib.rs.",
];

/// `value` with every string that is one of the fixtures' tool results made large.
fn grown(value: &Value) -> Value {
    match value {
        Value::String(text) if RESULTS.contains(&text.as_str()) => {
            let lines: Vec<String> = (0..40).map(|i| format!("{i}: {text}")).collect();
            Value::String(lines.join("\n"))
        }
        Value::Array(items) => Value::Array(items.iter().map(grown).collect()),
        Value::Object(map) => {
            let map = map.iter().map(|(k, v)| (k.clone(), grown(v))).collect();
            Value::Object(map)
        }
        other => other.clone(),
    }
}

/// The clearing configs tried, as the package's `clearing` option and as the policy.
fn clearing_configs() -> Vec<(Value, Option<ClearingPolicy>)> {
    let eager = ClearingPolicy {
        protect_recent_tokens: Some(0),
        ..ClearingPolicy::default()
    };
    let strict = ClearingPolicy {
        clear_arguments: Some(true),
        never_clear: vec!["edit".to_owned()],
        ..eager.clone()
    };
    vec![
        (Value::Null, None),
        // The defaults: protection a share of the budget, large arguments cleared.
        (json!(true), Some(ClearingPolicy::default())),
        (json!({ "protectRecentTokens": 0 }), Some(eager)),
        (
            json!({ "protectRecentTokens": 0, "clearArguments": true, "neverClear": ["edit"] }),
            Some(strict),
        ),
    ]
}

/// One history of one format, as the package reads it.
struct Input {
    format: Format,
    messages: Vec<Value>,
    texts: Vec<String>,
    facts: RequestFacts,
    hosts: Vec<HostMessage>,
}

impl Input {
    fn new(format: Format, messages: Vec<Value>) -> Input {
        let texts: Vec<String> = messages.iter().map(Value::to_string).collect();
        let estimator = Heuristic::new();
        let mut facts = RequestFacts::fixed("", "", &[], &estimator).unwrap();
        for (i, text) in texts.iter().enumerate() {
            let path = format!("messages[{i}]");
            facts
                .messages
                .push(format.facts_json(text, &path, &estimator).unwrap());
        }
        let hosts = common::read_hosts(format, &messages);
        Input {
            format,
            messages,
            texts,
            facts,
            hosts,
        }
    }

    /// The units a summary of `range` reads, the last message's only up to its step at
    /// `last_part` (when not 0).
    fn units(&self, range: std::ops::Range<usize>, last_part: usize) -> Vec<Message> {
        let mut units = Vec::new();
        for i in range.clone() {
            let host = &self.hosts[i];
            let end = match (i + 1 == range.end, last_part) {
                (true, part) if part > 0 => {
                    let step = host.steps.iter().find(|s| s.part == part).unwrap();
                    step.unit
                }
                _ => host.units.len(),
            };
            units.extend_from_slice(&host.units[..end]);
        }
        units
    }
}

/// What the Rust `Compactor` decides for `input`, as the package's `plan` says it, and what
/// applying it gives.
fn case(
    input: &Input,
    keep: u64,
    clearing: Option<ClearingPolicy>,
    options: PlanOptions,
) -> (Value, Value, Value) {
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: keep,
        clearing,
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap();
    let (estimator, facts) = (Heuristic::new(), &input.facts);
    let mut find = |policy: &ClearingPolicy| {
        let tracking = &policy.file_tracking;
        let mut finder = Finder::new(&estimator, tracking, false, policy.reads_arguments());
        for (i, text) in input.texts.iter().enumerate() {
            finder.read_json(input.format, i, text)?;
        }
        finder.finish()
    };
    let mut summarize = || compactor.plan_with_facts(facts, options);
    let planned = compactor.decide_with(facts, options, &estimator, &mut find, &mut summarize);
    let planned = match planned {
        Ok(planned) => planned,
        Err(error) => return (json!({ "error": error.code() }), Value::Null, Value::Null),
    };
    let tokens: Vec<u64> = facts.messages.iter().map(|f| f.tokens).collect();
    match planned {
        None => (Value::Null, Value::Null, Value::Null),
        Some(Planned::Clear(clearing)) => {
            let (record, rewritten) = cleared(input, &clearing);
            (clear_plan(&clearing, facts, &tokens), record, rewritten)
        }
        Some(Planned::Summarize(plan)) => {
            let input_apply = ApplyInput {
                facts,
                summary: "",
                history: &input.units(plan.messages_to_summarize.clone(), 0),
                turn_prefix: &input.units(turn_prefix(&plan), plan.first_kept_part),
                require_reduction: options.require_reduction,
                estimator: &estimator,
            };
            let record = match run(compactor.apply_with_facts(input_apply, &plan, &())) {
                Ok(applied) => json!({
                    "summary": applied.record.summary,
                    "firstKeptIndex": applied.record.first_kept_index,
                    "estimateBefore": applied.record.estimate_before,
                    "estimateAfter": applied.record.estimate_after,
                }),
                Err(error) => json!({ "error": error.code() }),
            };
            let plan = json!({
                "firstKeptIndex": plan.first_kept_index,
                "firstKeptPart": plan.first_kept_part,
                "splitTurn": plan.split_turn,
                "estimateBefore": plan.estimate_before,
                "estimateAfterWithoutSummary": plan.estimate_after_without_summary,
                "messageTokens": tokens,
                "turnPrefixStart": plan.turn_prefix_messages.start,
                "summarized": plan.messages_to_summarize.len(),
                "turnPrefix": turn_prefix(&plan).len(),
            });
            (plan, record, Value::Null)
        }
    }
}

/// The messages a summary's turn prefix reads (the one cut inside included).
fn turn_prefix(plan: &Plan) -> std::ops::Range<usize> {
    let prefix = &plan.turn_prefix_messages;
    prefix.start..prefix.end + usize::from(plan.first_kept_part > 0)
}

fn clear_plan(clearing: &Clearing, facts: &RequestFacts, tokens: &[u64]) -> Value {
    let results: Vec<Value> = clearing
        .results
        .iter()
        .map(|r| {
            json!({
                "index": r.index,
                "toolCallId": r.tool_call_id,
                "toolName": r.tool_name,
                "tokens": r.tokens,
                "text": r.text,
            })
        })
        .collect();
    json!({
        "kind": "clear",
        "clearedResults": results,
        "argumentMessages": clearing.argument_messages,
        "estimateBefore": clearing.estimate_before,
        "estimateAfter": clearing.estimate_after,
        "tokensFreed": clearing.tokens_freed(),
        "estimateAfterWithoutSummary": clearing.estimate_after.saturating_sub(facts.summary),
        "messageTokens": tokens,
    })
}

/// Applies `clearing` to the messages of `input`: the record, and the rewritten messages
/// (index and message). The clearing done is the clearing planned.
fn cleared(input: &Input, clearing: &Clearing) -> (Value, Value) {
    let texts = |i: usize, _: &str| Ok(input.texts[i].clone());
    let len = input.texts.len();
    let edited = clearing::rewrite_json(input.format, clearing, len, texts).unwrap();
    let estimator = Heuristic::new();
    let done = clearing::done_json(
        clearing.clone(),
        input.format,
        &input.facts,
        &edited,
        &estimator,
    )
    .unwrap();
    assert_eq!(&done, clearing, "{:?}: applied as planned", input.format);
    let record = json!({
        "kind": "clear",
        "summary": "",
        "firstKeptIndex": 0,
        "estimateBefore": done.estimate_before,
        "estimateAfter": done.estimate_after,
        "tokensFreed": done.tokens_freed(),
        "clearedResults": done.results.len(),
    });
    let rewritten: Vec<Value> = edited
        .iter()
        .map(|(i, m)| json!([i, serde_json::from_str::<Value>(&m.text).unwrap()]))
        .collect();
    (record, Value::Array(rewritten))
}

/// What the Rust `ContextManager` does with canonical `input` as a state, its input budget
/// `budget` (the window that much above the default reserve): the reason and the record.
fn maintain(input: &Input, keep: u64, clearing: Option<ClearingPolicy>, budget: u64) -> Value {
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: keep,
        clearing,
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap();
    let estimator = Heuristic::new();
    let local = manager::Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let config = manager::ManagerConfig {
        context_window_tokens: budget + manager::DEFAULT_RESERVE_TOKENS,
        ..manager::ManagerConfig::default()
    };
    let state = manager::OwnedState {
        messages: input.hosts.iter().flat_map(|h| h.units.clone()).collect(),
        ..manager::OwnedState::default()
    };
    let manager = manager::ContextManager::new(config);
    let options = manager::MaintainOptions::default();
    let done = run(manager.maintain(&local, state, options, &())).unwrap();
    let record = match (&done.record, &done.cleared) {
        (None, _) => Value::Null,
        (Some(record), Some(cleared)) => json!({
            "kind": "clear",
            "summary": record.summary,
            "firstKeptIndex": record.first_kept_index,
            "estimateBefore": record.estimate_before,
            "estimateAfter": record.estimate_after,
            "tokensFreed": cleared.tokens_freed(),
            "clearedResults": cleared.results.len(),
        }),
        (Some(record), None) => json!({
            "summary": record.summary,
            "firstKeptIndex": record.first_kept_index,
            "estimateBefore": record.estimate_before,
            "estimateAfter": record.estimate_after,
        }),
    };
    json!({ "reason": done.outcome.as_str(), "record": record })
}

/// The cases of `input` (number `n`): every keep, clearing config and budget tried.
fn cases_of(input: &Input, n: usize) -> Vec<Value> {
    let total = input.facts.total();
    let budgets = [total * 9 / 10, total / 2, total / 4, 1].map(Some);
    let mut cases = Vec::new();
    for keep in [0, 300] {
        for (config, policy) in clearing_configs() {
            for budget in budgets.into_iter().chain([None]) {
                let options = PlanOptions {
                    input_token_budget: budget,
                    require_reduction: budget.is_none(),
                };
                let (plan, record, rewritten) = case(input, keep, policy.clone(), options);
                let maintained = match (input.format, budget) {
                    (Format::Canonical, Some(budget)) => {
                        maintain(input, keep, policy.clone(), budget)
                    }
                    _ => Value::Null,
                };
                cases.push(json!({
                    "input": n,
                    "keepRecentTokens": keep,
                    "clearing": config,
                    "inputTokenBudget": budget,
                    "requireReduction": options.require_reduction,
                    "plan": plan,
                    "record": record,
                    "rewritten": rewritten,
                    "maintain": maintained,
                }));
            }
        }
    }
    cases
}

/// Every input and case, one per line.
fn expected() -> String {
    let mut inputs = Vec::new();
    let mut cases = Vec::new();
    for (format, text) in FIXTURES {
        let messages: Vec<Value> = serde_json::from_str(text).unwrap();
        for (variant, messages) in [("as is", messages.clone()), ("grown", grown_all(&messages))] {
            let input = Input::new(format, messages);
            cases.extend(cases_of(&input, inputs.len()));
            inputs.push(json!({
                "name": format!("{} ({variant})", format.name()),
                "format": format.name(),
                "messages": input.messages,
            }));
        }
    }
    let lines = |items: &[Value]| {
        items
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(",\n")
    };
    format!(
        "{{\"inputs\": [\n{}\n],\n\"cases\": [\n{}\n]}}\n",
        lines(&inputs),
        lines(&cases)
    )
}

fn grown_all(messages: &[Value]) -> Vec<Value> {
    messages.iter().map(grown).collect()
}

#[test]
fn the_expected_file_is_what_the_rust_compactor_does() {
    let expected = expected();
    if std::env::var_os("UPDATE_DIFFERENTIAL").is_some() {
        std::fs::write(FILE, &expected).unwrap();
    }
    let kept = std::fs::read_to_string(FILE).unwrap_or_default();
    assert!(
        kept == expected,
        "tests/fixtures/differential.json is not what the Rust Compactor does: run \
         UPDATE_DIFFERENTIAL=1 cargo test --test differential and read the diff"
    );
}

#[test]
fn the_cases_clear_and_summarize_in_every_format() {
    let expected: Value = serde_json::from_str(&expected()).unwrap();
    let cases = expected["cases"].as_array().unwrap();
    for (format, _) in FIXTURES {
        let of_format = |kind: &str| {
            cases.iter().any(|c| {
                let input = &expected["inputs"][c["input"].as_u64().unwrap() as usize];
                input["format"] == format.name()
                    && match kind {
                        "clear" => c["plan"]["kind"] == "clear",
                        _ => c["plan"]["firstKeptIndex"].as_u64().is_some_and(|i| i > 0),
                    }
            })
        };
        assert!(of_format("clear"), "{format:?} clears");
        assert!(of_format("summarize"), "{format:?} summarizes");
    }
}

/// On canonical messages, the typed path (`Compactor::decide` over `Message`s) decides as the
/// readers' path above.
#[test]
fn typed_canonical_messages_decide_as_their_json() {
    let (_, text) = FIXTURES[0];
    let values: Vec<Value> = serde_json::from_str(text).unwrap();
    let input = Input::new(Format::Canonical, grown_all(&values));
    let messages: Vec<Message> = input.hosts.iter().flat_map(|h| h.units.clone()).collect();
    for (_, policy) in clearing_configs() {
        let compactor = Compactor::new(CompactorConfig {
            keep_recent_tokens: 0,
            clearing: policy.clone(),
            ..CompactorConfig::new(Fixed::new("S"))
        })
        .unwrap();
        for budget in [input.facts.total() / 2, input.facts.total() / 4] {
            let request = Request {
                input_token_budget: Some(budget),
                ..Request::new(&messages)
            };
            let typed = compactor.decide(&request).unwrap();
            let options = request.options();
            let (json_plan, _, _) = case(&input, 0, policy.clone(), options);
            match typed {
                Some(Planned::Clear(clearing)) => {
                    let tokens: Vec<u64> = input.facts.messages.iter().map(|f| f.tokens).collect();
                    assert_eq!(clear_plan(&clearing, &input.facts, &tokens), json_plan);
                }
                Some(Planned::Summarize(plan)) => {
                    assert_eq!(json_plan["firstKeptIndex"], plan.first_kept_index);
                }
                None => assert_eq!(json_plan, Value::Null),
            }
        }
    }
}
