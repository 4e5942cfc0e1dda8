//! Rust and JavaScript decide alike. The Rust `Compactor` plans, clears and applies every
//! fixture of `tests/fixtures/formats` in its format (and the same conversation with large
//! tool results), with clearing off and on, over a range of budgets, and the real session in
//! every format, with the provider's usage on its answers as it was recorded, and repeated
//! into long histories whose usage is fresh, stale or missing (`support/anchored.rs`): those
//! are planned from their tail (`context_compaction::tail`). What it does is kept in
//! `tests/fixtures/differential.json`, which `tests/js/differential.test.mjs` runs the
//! package's `Compactor` against (its `plan`, `planBytes`, a conversation handle's `plan`,
//! `apply` and `compact`), and, for the canonical fixture, the `ContextManager`'s `maintain`;
//! with each message's size, which the package's sizer must give too. This test fails when the
//! file is not what the Rust side gives: `UPDATE_DIFFERENTIAL=1 cargo test --test
//! differential` writes it again.

mod common;

#[path = "support/anchored.rs"]
mod anchored;

use anchored::{LONG, SESSION, Usage};
use common::{FIXTURES, Fixed, run};
use context_compaction::clearing::{self, Clearing, ClearingPolicy, Finder};
use context_compaction::formats::Format;
use context_compaction::history::{History, Parts, Texts};
use context_compaction::tail::{FromTail, fill_deferred};
use context_compaction::*;
use serde_json::{Value, json};

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/differential.json"
);

static ESTIMATOR: Heuristic = Heuristic::new();

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
    /// The facts of every message, calibrated to the usage on them.
    facts: RequestFacts,
    hosts: Vec<HostMessage>,
    /// Whether the expected file keeps digests of what is long (a history of the session).
    long: bool,
}

impl Input {
    fn new(format: Format, messages: Vec<Value>) -> Input {
        let texts: Vec<String> = messages.iter().map(Value::to_string).collect();
        let hosts = common::read_hosts(format, &messages);
        let mut input = Input {
            format,
            messages,
            texts,
            facts: RequestFacts::default(),
            hosts,
            long: false,
        };
        input.facts = reported::history_facts(&input.history(), &[]).unwrap();
        input
    }

    /// The messages as a history a plan reads piece by piece, sized as the package sizes them.
    fn history(&self) -> Texts<'_, String> {
        Texts {
            format: self.format,
            messages: &self.texts,
            parts: Parts {
                system_prompt: "",
                summary: "",
                tools: &[],
                estimator: &ESTIMATOR,
                reported: &[],
            },
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

/// What one case gives: the plan `compactor.plan` makes and the record of applying it, the
/// rewritten messages of a clearing, and, where they differ from those (a long history planned
/// from its tail), the plan that reading every message gives (`planBytes`, a conversation
/// handle, `compact`) and the record `compact` writes.
struct Out {
    plan: Value,
    record: Value,
    rewritten: Value,
    full: Value,
    compacted: Value,
}

/// What the Rust `Compactor` decides for `input`, as the package says it.
fn case(input: &Input, keep: u64, clearing: Option<ClearingPolicy>, options: PlanOptions) -> Out {
    let compactor = Compactor::new(CompactorConfig {
        keep_recent_tokens: keep,
        clearing,
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap();
    let full = &input.facts;
    let mut summarize = || compactor.plan_with_facts(full, options);
    let decided = decide(&compactor, input, full, options, &mut summarize);
    let previewed = previewed(&compactor, input, options);
    let error = |error: &Error| json!({ "error": error.code() });
    let (plan, record, rewritten) = match &previewed {
        Ok((planned, facts, unread)) => {
            let plan = plan_json(input, planned.as_ref(), facts, unread.as_ref());
            let (record, rewritten) = applied(&compactor, input, planned.as_ref(), options);
            (plan, record, rewritten)
        }
        Err(e) => (error(e), Value::Null, Value::Null),
    };
    let (full_plan, compacted, rewritten) = match &decided {
        Ok(planned) => {
            let plan = plan_json(input, planned.as_ref(), full, None);
            let compacted = match planned {
                // `compact` records the clearing as planned (`Compactor::apply_planned`).
                Some(Planned::Clear(clearing)) => clear_record(clearing),
                _ => applied(&compactor, input, planned.as_ref(), options).0,
            };
            let cleared = match planned {
                Some(Planned::Clear(clearing)) if rewritten.is_null() => {
                    kept(cleared(input, clearing).1, input.long)
                }
                _ => rewritten,
            };
            (plan, compacted, cleared)
        }
        Err(e) => (error(e), Value::Null, rewritten),
    };
    let differs = |a: &Value, b: Value| if *a == b { Value::Null } else { b };
    Out {
        full: differs(&plan, full_plan),
        compacted: differs(&record, compacted),
        plan,
        record,
        rewritten,
    }
}

/// Clear first, else summarize ([`Compactor::decide_with`]) over `facts`, the clearing read
/// from the messages as the package reads them.
fn decide(
    compactor: &Compactor<Fixed>,
    input: &Input,
    facts: &RequestFacts,
    options: PlanOptions,
    summarize: &mut dyn FnMut() -> Result<Option<Plan>>,
) -> Result<Option<Planned>> {
    let mut find = |policy: &ClearingPolicy| {
        let tracking = &policy.file_tracking;
        let mut finder = Finder::new(&ESTIMATOR, tracking, false, policy.reads_arguments());
        for (i, text) in input.texts.iter().enumerate() {
            finder.read_json(input.format, i, text)?;
        }
        finder.finish()
    };
    compactor.decide_with(facts, options, &ESTIMATOR, &mut find, summarize)
}

/// What `compactor.plan` decides: a long anchored history is planned from its tail, unless
/// clearing may replace that plan (clearing reads every message); then clear first, else that
/// plan. The facts it was made over, and the messages it did not read.
fn previewed(
    compactor: &Compactor<Fixed>,
    input: &Input,
    options: PlanOptions,
) -> Result<(Option<Planned>, RequestFacts, Option<tail::Unread>)> {
    let from_tail = compactor.plan_tail(&input.history(), options)?;
    let FromTail {
        facts,
        plan,
        unread_before,
    } = match from_tail {
        Some(planned) if compactor.clearing().is_none() || planned.plan.is_none() => planned,
        _ => {
            let facts = input.facts.clone();
            let plan = compactor.plan_with_facts(&facts, options)?;
            FromTail {
                facts,
                plan,
                unread_before: None,
            }
        }
    };
    let mut plan = plan;
    let planned = decide(compactor, input, &facts, options, &mut || Ok(plan.take()))?;
    Ok((planned, facts, unread_before))
}

/// What the package's plan says of `planned` (over `facts`, with the messages `unread` not
/// read).
fn plan_json(
    input: &Input,
    planned: Option<&Planned>,
    facts: &RequestFacts,
    unread: Option<&tail::Unread>,
) -> Value {
    let mut tokens: Vec<f64> = facts.messages.iter().map(|f| f.tokens as f64).collect();
    if let Some(unread) = unread {
        // Filled in when the plan's `messageTokens` is first read: the sizer's pass.
        let sizes = input.history().sizes(None, false).unwrap();
        fill_deferred(
            &mut tokens,
            &sizes.sizes,
            unread.start,
            &unread.read,
            &sizes.failed,
        );
    }
    match planned {
        None => Value::Null,
        Some(Planned::Clear(clearing)) => clear_plan(clearing, facts, &tokens, input.long),
        Some(Planned::Summarize(plan)) => json!({
            "firstKeptIndex": plan.first_kept_index,
            "firstKeptPart": plan.first_kept_part,
            "splitTurn": plan.split_turn,
            "estimateBefore": plan.estimate_before,
            "estimateAfterWithoutSummary": plan.estimate_after_without_summary,
            "messageTokens": numbers(&tokens, input.long),
            "turnPrefixStart": plan.turn_prefix_messages.start,
            "summarized": plan.messages_to_summarize.len(),
            "turnPrefix": turn_prefix(plan).len(),
        }),
    }
}

/// The record of applying `planned` (over the facts of every message, as `apply` reads them),
/// and the messages a clearing rewrites.
fn applied(
    compactor: &Compactor<Fixed>,
    input: &Input,
    planned: Option<&Planned>,
    options: PlanOptions,
) -> (Value, Value) {
    match planned {
        None => (Value::Null, Value::Null),
        Some(Planned::Clear(clearing)) => {
            let (record, rewritten) = cleared(input, clearing);
            (record, kept(rewritten, input.long))
        }
        Some(Planned::Summarize(plan)) => {
            let input_apply = ApplyInput {
                facts: &input.facts,
                summary: "",
                history: &input.units(plan.messages_to_summarize.clone(), 0),
                turn_prefix: &input.units(turn_prefix(plan), plan.first_kept_part),
                require_reduction: options.require_reduction,
                estimator: &ESTIMATOR,
            };
            let record = match run(compactor.apply_with_facts(input_apply, plan, &())) {
                Ok(applied) => json!({
                    "summary": applied.record.summary,
                    "firstKeptIndex": applied.record.first_kept_index,
                    "estimateBefore": applied.record.estimate_before,
                    "estimateAfter": applied.record.estimate_after,
                }),
                Err(error) => json!({ "error": error.code() }),
            };
            (record, Value::Null)
        }
    }
}

/// Numbers as the expected file keeps them: as they are, or for a `long` input, their sum
/// and the digest of their decimal text joined by commas.
fn numbers(values: &[f64], long: bool) -> Value {
    if !long {
        return json!(values);
    }
    let text: Vec<String> = values.iter().map(f64::to_string).collect();
    json!({ "sum": values.iter().sum::<f64>(), "digest": digest(&text.join(",")) })
}

/// A value as the expected file keeps it: as it is, or for a `long` input, how many items it
/// has and the digest of its JSON.
fn kept(value: Value, long: bool) -> Value {
    match (long, &value) {
        (true, Value::Array(items)) => {
            json!({ "length": items.len(), "digest": digest(&value.to_string()) })
        }
        _ => value,
    }
}

/// The 32-bit FNV-1a hash of `text`'s UTF-16 code units, in hex (the JavaScript side computes
/// it too).
fn digest(text: &str) -> String {
    let units = text.encode_utf16();
    let hash = units.fold(0x811c_9dc5_u32, |h, u| {
        (h ^ u32::from(u)).wrapping_mul(0x0100_0193)
    });
    format!("{hash:08x}")
}

/// The messages a summary's turn prefix reads (the one cut inside included).
fn turn_prefix(plan: &Plan) -> std::ops::Range<usize> {
    let prefix = &plan.turn_prefix_messages;
    prefix.start..prefix.end + usize::from(plan.first_kept_part > 0)
}

fn clear_plan(clearing: &Clearing, facts: &RequestFacts, tokens: &[f64], long: bool) -> Value {
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
        "clearedResults": kept(Value::Array(results), long),
        "argumentMessages": kept(json!(clearing.argument_messages), long),
        "estimateBefore": clearing.estimate_before,
        "estimateAfter": clearing.estimate_after,
        "tokensFreed": clearing.tokens_freed(),
        "estimateAfterWithoutSummary": clearing.estimate_after.saturating_sub(facts.summary),
        "messageTokens": numbers(tokens, long),
    })
}

/// The record of `clearing` (its estimates as given).
fn clear_record(clearing: &Clearing) -> Value {
    json!({
        "kind": "clear",
        "summary": "",
        "firstKeptIndex": 0,
        "estimateBefore": clearing.estimate_before,
        "estimateAfter": clearing.estimate_after,
        "tokensFreed": clearing.tokens_freed(),
        "clearedResults": clearing.results.len(),
    })
}

/// Applies `clearing` to the messages of `input` as `apply` does a clear plan (re-reading the
/// rewritten messages for the estimate after): the record, and the rewritten messages
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
    // The clearing done is the clearing planned. Its estimate after is worked out per result
    // when planned and re-read per message when done: with usage, each side's calibration
    // rounds apart, at most a token a rewritten message.
    let same = Clearing {
        estimate_after: clearing.estimate_after,
        ..done.clone()
    };
    assert_eq!(&same, clearing, "{:?}: applied as planned", input.format);
    let apart = done.estimate_after.abs_diff(clearing.estimate_after);
    let calibrated = input.facts.calibration.ratio_ppm != 0;
    assert!(apart <= if calibrated { edited.len() as u64 } else { 0 });
    let record = clear_record(&done);
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
                let maintained = match (input.format, budget) {
                    (Format::Canonical, Some(budget)) => {
                        maintain(input, keep, policy.clone(), budget)
                    }
                    _ => Value::Null,
                };
                cases.push(one_case(
                    input,
                    n,
                    keep,
                    (&config, &policy),
                    budget,
                    maintained,
                ));
            }
        }
    }
    cases
}

/// How much of a history made from the session its cases try.
#[derive(Clone, Copy, PartialEq)]
enum Tried {
    /// A long history planned from its tail: with clearing off, a keep the first look holds,
    /// under the trigger, over it and with a required reduction, and a keep the tail grows
    /// for; with clearing on, over the trigger.
    Tail,
    /// A history read whole: the same but the required reduction.
    Whole,
    /// A long history whose usage decides whether it is planned from its tail: over the
    /// trigger, with either keep.
    Decision,
}

/// The cases of a history made from the session (number `n`).
fn session_cases(input: &Input, n: usize, tried: Tried) -> Vec<Value> {
    let total = input.facts.total();
    let configs = clearing_configs();
    let (off, eager) = (&configs[0], &configs[2]);
    let all = [
        (2_000, off, Some(total * 2)),
        (2_000, off, Some(total / 2)),
        (2_000, off, None),
        (20_000, off, Some(total / 2)),
        (2_000, eager, Some(total * 9 / 10)),
    ];
    all.into_iter()
        .filter(|(keep, (_, policy), budget)| match tried {
            Tried::Tail => true,
            Tried::Whole => budget.is_some(),
            Tried::Decision => policy.is_none() && *budget == Some(total / 2) && *keep > 0,
        })
        .map(|(keep, (config, policy), budget)| {
            one_case(input, n, keep, (config, policy), budget, Value::Null)
        })
        .collect()
}

/// One case of `input` (number `n`), as the expected file writes it.
fn one_case(
    input: &Input,
    n: usize,
    keep: u64,
    (config, policy): (&Value, &Option<ClearingPolicy>),
    budget: Option<u64>,
    maintained: Value,
) -> Value {
    let options = PlanOptions {
        input_token_budget: budget,
        require_reduction: budget.is_none(),
    };
    let out = case(input, keep, policy.clone(), options);
    json!({
        "input": n,
        "keepRecentTokens": keep,
        "clearing": config,
        "inputTokenBudget": budget,
        "requireReduction": options.require_reduction,
        "plan": out.plan,
        "record": out.record,
        "rewritten": out.rewritten,
        "full": out.full,
        "compacted": out.compacted,
        "maintain": maintained,
    })
}

/// What the expected file says of an input: its name and format, each message's size and
/// which are system messages and failed attempts, as the package's sizer must find them.
fn described(input: &Input, name: String) -> Value {
    let sizes = input.history().sizes(None, false).unwrap();
    json!({
        "name": name,
        "format": input.format.name(),
        "sizes": numbers(&sizes.sizes, input.long),
        "system": sizes.system,
        "failed": sizes.failed,
    })
}

/// The histories made from the session in `format`: the session with its recorded usage;
/// long histories with usage fresh (on every answer, or the latest only), stale (more than
/// twice or more than four times our estimate), missing on the latest answers, missing, and
/// recorded (fresh in the first round, stale after): fresh in every format, the others in the
/// canonical one.
fn session_inputs(format: Format) -> Vec<(usize, Usage, Tried)> {
    let mut made = vec![
        (SESSION, Usage::Recorded, Tried::Whole),
        (LONG, Usage::Scaled(1.22), Tried::Tail),
    ];
    if format == Format::Canonical {
        made.extend(
            [
                Usage::LatestOnly,
                Usage::Scaled(2.6),
                Usage::Scaled(5.0),
                Usage::OldOnly(400),
                Usage::RecentOnly(60),
                Usage::Recorded,
                Usage::Missing,
            ]
            .map(|usage| (LONG, usage, Tried::Decision)),
        );
    }
    made
}

/// Every input and case, one per line (made once for the tests that read it).
fn expected() -> &'static str {
    static EXPECTED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    EXPECTED.get_or_init(made_expected)
}

fn made_expected() -> String {
    let mut inputs = Vec::new();
    let mut cases = Vec::new();
    for (format, text) in FIXTURES {
        let messages: Vec<Value> = serde_json::from_str(text).unwrap();
        for (variant, messages) in [("as is", messages.clone()), ("grown", grown_all(&messages))] {
            let input = Input::new(format, messages);
            cases.extend(cases_of(&input, inputs.len()));
            let mut described = described(&input, format!("{} ({variant})", format.name()));
            described["messages"] = json!(input.messages);
            inputs.push(described);
        }
    }
    for (format, _) in FIXTURES {
        for (length, usage, tried) in session_inputs(format) {
            let made = anchored::made(format, length, usage);
            let input = Input {
                long: true,
                ..Input::new(format, made.messages)
            };
            cases.extend(session_cases(&input, inputs.len(), tried));
            let name = format!(
                "{} (the session, {length} messages, {})",
                format.name(),
                usage.name()
            );
            let mut described = described(&input, name);
            described["recipe"] = made.recipe;
            described["digest"] = json!(digest(&Value::Array(input.messages).to_string()));
            inputs.push(described);
        }
    }
    let lines = |items: &[Value]| {
        items
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(",\n")
    };
    let formats: serde_json::Map<String, Value> = FIXTURES
        .iter()
        .map(|(format, _)| (format.name().to_owned(), sizer_arguments(*format)))
        .collect();
    format!(
        "{{\"formats\": {},\n\"inputs\": [\n{}\n],\n\"cases\": [\n{}\n]}}\n",
        Value::Object(formats),
        lines(&inputs),
        lines(&cases)
    )
}

/// What the package's sizer is told of `format`: the keys its reader reads, its system roles,
/// and how a failed attempt is marked.
fn sizer_arguments(format: Format) -> Value {
    let mark = format.failed_mark();
    json!({
        "keys": format.keys(),
        "systemRoles": format.system_roles(),
        "failRole": mark.map(|m| m.role),
        "failKey": mark.map(|m| m.key),
        "failValues": mark.map_or(&[][..], |m| m.values),
    })
}

fn grown_all(messages: &[Value]) -> Vec<Value> {
    messages.iter().map(grown).collect()
}

#[test]
fn the_expected_file_is_what_the_rust_compactor_does() {
    let expected = expected();
    if std::env::var_os("UPDATE_DIFFERENTIAL").is_some() {
        std::fs::write(FILE, expected).unwrap();
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
    let expected: Value = serde_json::from_str(expected()).unwrap();
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
            let json_plan = case(&input, 0, policy.clone(), options).plan;
            match typed {
                Some(Planned::Clear(clearing)) => {
                    let tokens: Vec<f64> = input
                        .facts
                        .messages
                        .iter()
                        .map(|f| f.tokens as f64)
                        .collect();
                    assert_eq!(
                        clear_plan(&clearing, &input.facts, &tokens, false),
                        json_plan
                    );
                }
                Some(Planned::Summarize(plan)) => {
                    assert_eq!(json_plan["firstKeptIndex"], plan.first_kept_index);
                }
                None => assert_eq!(json_plan, Value::Null),
            }
        }
    }
}

/// A history that counts the messages whose facts were read.
struct Counted<'a> {
    history: Texts<'a, String>,
    read: std::cell::Cell<usize>,
}

impl History for Counted<'_> {
    fn len(&self) -> usize {
        self.history.len()
    }

    fn parts(&self) -> Parts<'_> {
        self.history.parts()
    }

    fn facts(&self, indices: &[u32]) -> Result<Vec<MessageFacts>> {
        self.read.set(self.read.get() + indices.len());
        self.history.facts(indices)
    }

    fn usages(&self, indices: &[u32]) -> Result<Vec<Option<formats::MessageUsage>>> {
        self.history.usages(indices)
    }

    fn sizes(&self, only: Option<&[u32]>, skip: bool) -> Result<history::Sizes> {
        self.history.sizes(only, skip)
    }

    fn system_messages(&self) -> Result<Vec<u32>> {
        self.history.system_messages()
    }
}

/// The long histories take each path of a plan from the tail (`context_compaction::tail`):
/// fresh usage, the first tail decides; usage on the latest answers only, every message sized,
/// after a tail grew (its reports span too little) or at once (one report); stale or missing
/// usage, every message read.
#[test]
fn the_long_histories_take_every_path_of_a_plan_from_the_tail() {
    // The plan from the tail, and how many messages' facts it read.
    let tail_of = |usage: Usage| {
        let made = anchored::made(Format::Canonical, LONG, usage);
        let input = Input::new(Format::Canonical, made.messages);
        let compactor = Compactor::new(CompactorConfig {
            keep_recent_tokens: 2_000,
            ..CompactorConfig::new(Fixed::new("S"))
        })
        .unwrap();
        let options = PlanOptions {
            input_token_budget: Some(input.facts.total() / 2),
            require_reduction: false,
        };
        let history = Counted {
            history: input.history(),
            read: std::cell::Cell::new(0),
        };
        let planned = compactor.plan_tail(&history, options).unwrap();
        (planned, history.read.get())
    };
    // The first tail, the latest 256 messages, decides.
    let (fresh, read) = tail_of(Usage::Scaled(1.22));
    let fresh = fresh.unwrap();
    assert_eq!(fresh.unread_before.map(|u| u.start), Some(LONG - 256));
    assert_eq!(read, 256);
    // Reports too close together to calibrate: the tail grows to the whole history, then
    // every message is sized and a tail of it decides.
    let (grown, read) = tail_of(Usage::RecentOnly(60));
    let grown = grown.unwrap();
    assert!(grown.unread_before.is_none() && grown.plan.is_some());
    assert!(read >= LONG, "{read}");
    let (sized, read) = tail_of(Usage::LatestOnly);
    assert!(sized.unwrap().unread_before.is_none());
    assert!(read < LONG / 2, "{read}");
    // Stale everywhere, or no usage on the latest answers: read whole.
    for usage in [Usage::Scaled(5.0), Usage::OldOnly(400), Usage::Missing] {
        assert!(tail_of(usage).0.is_none(), "{usage:?}");
    }
}
