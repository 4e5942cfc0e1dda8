//! Rust and JavaScript decide alike. The Rust `Compactor` plans, clears and applies every
//! fixture of `tests/fixtures/formats` in its format (and the same conversation with large
//! tool results), with clearing off and on, over a range of budgets, and the real session in
//! every format, with the provider's usage on its answers as it was recorded, and repeated
//! into long histories whose usage is fresh, stale or missing (`support/anchored.rs`; for
//! UIMessages a long chat made up, whose cuts fall between steps): those are planned from
//! their tail (`context_compaction::tail`); and the fixtures with pinned messages and with a
//! provider's summary read both ways (`differential/pins.rs`). What it does is kept in
//! `tests/fixtures/differential.json`, which `tests/js/differential.test.mjs` runs the
//! package's `Compactor` against (its `plan`, `planBytes`, a conversation handle's `plan`,
//! `apply` and `compact`), and, for the canonical fixture, the `ContextManager`'s `maintain`;
//! with each message's size, which the package's sizer must give too. This test fails when the
//! file is not what the Rust side gives: `UPDATE_DIFFERENTIAL=1 cargo test --test
//! differential` writes it again.

mod common;

#[path = "support/anchored.rs"]
mod anchored;
#[path = "differential/pins.rs"]
mod pins;
#[path = "differential/said.rs"]
mod said;

use anchored::{Tried, digest, kept, numbers, session_inputs};
use common::{FIXTURES, Fixed, run};
use context_compaction::clearing::{self, Clearing, ClearingPolicy, Finder};
use context_compaction::formats::Format;
use context_compaction::history::{History, Parts, Texts};
use context_compaction::tail::{FromTail, fill_deferred};
use context_compaction::window::ProviderCompaction;
use context_compaction::*;
use said::{applied, clear_plan, clear_record, cleared, plan_json, sizer_arguments};
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
    /// The messages the request pins (besides those its format's marker pins).
    pinned: Vec<u32>,
    /// How a summary the provider made is read.
    mode: ProviderCompaction,
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
            pinned: Vec::new(),
            mode: ProviderCompaction::Window,
        };
        input.facts = reported::history_facts(&input.history(), &[]).unwrap();
        input
    }

    /// This input with the request's `pinned` messages, its provider summaries read as `mode`.
    fn with(self, pinned: Vec<u32>, mode: ProviderCompaction) -> Input {
        let mut input = Input {
            pinned,
            mode,
            ..self
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
                provider_compaction: self.mode,
                pinned: &self.pinned,
            },
        }
    }

    /// The units a summary of `range` reads, the last message's only up to its step at
    /// `last_part` (when not 0): the pinned messages' none (they are kept).
    fn units(&self, range: std::ops::Range<usize>, last_part: usize) -> Vec<Message> {
        let mut units = Vec::new();
        for i in range.clone() {
            if self.facts.messages[i].is_pinned() {
                continue;
            }
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
    // Maintained: the canonical fixture as it is and grown, not with pins.
    let plain = input.pinned.is_empty();
    for keep in [0, pins::second_keep(input)] {
        for (config, policy) in clearing_configs() {
            for budget in budgets.into_iter().chain([None]) {
                let maintained = match (input.format, budget) {
                    (Format::Canonical, Some(budget)) if plain => {
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
    // As the sizer finds them, which is not told the request's pins.
    let mut history = input.history();
    history.parts.pinned = &[];
    let sizes = history.sizes(None, false).unwrap();
    json!({
        "name": name,
        "format": input.format.name(),
        "sizes": numbers(&sizes.sizes, input.long),
        "system": sizes.system,
        "failed": sizes.failed,
        "pinned": input.pinned,
        "providerCompaction": pins::mode_name(input.mode),
    })
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
    for (name, input) in pins::inputs() {
        cases.extend(cases_of(&input, inputs.len()));
        let mut described = described(&input, name);
        described["messages"] = json!(input.messages);
        inputs.push(described);
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
    for (usage, tried) in anchored::ui_chat_inputs() {
        let made = anchored::made_ui_chat(anchored::UI_TURNS, usage);
        let input = Input {
            long: true,
            ..Input::new(Format::AiSdkUi, made.messages)
        };
        cases.extend(session_cases(&input, inputs.len(), tried));
        let turns = anchored::UI_TURNS;
        let name = format!("ai-sdk-ui (a chat of {turns} turns, {})", usage.name());
        let mut described = described(&input, name);
        described["recipe"] = made.recipe;
        described["digest"] = json!(digest(&Value::Array(input.messages).to_string()));
        inputs.push(described);
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
    pins::check_coverage(&expected);
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
