//! Pinned messages in every format: the markers of the formats that have a place for one
//! (`metadata.pinned` on a UIMessage, `providerOptions.contextCompaction.pinned` on a
//! ModelMessage), the request's pinned indices for any format (a history's `Parts::pinned`, a
//! body's), a pinned UIMessage kept whole with its tool parts, and pinned results never cleared.

use context_compaction::body;
use context_compaction::clearing::{self, ClearingPolicy};
use context_compaction::formats::Format;
use context_compaction::history::{Parts, Texts};
use context_compaction::{
    Compactor, CompactorConfig, Error, FileTracking, Heuristic, MessageFacts, PlanOptions,
    RequestFacts,
};
use serde_json::{Value, json};

mod common;
use common::Fixed;

static ESTIMATOR: Heuristic = Heuristic::new();

fn facts_of(format: Format, message: &Value) -> MessageFacts {
    format
        .facts_json(&message.to_string(), "messages[0]", &ESTIMATOR)
        .unwrap()
}

fn request(format: Format, messages: &[Value]) -> RequestFacts {
    let mut facts = RequestFacts::fixed("", "", &[], &ESTIMATOR).unwrap();
    facts.messages = messages.iter().map(|m| facts_of(format, m)).collect();
    facts
}

fn compactor(keep: u64) -> Compactor<Fixed> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: keep,
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap()
}

const REDUCE: PlanOptions = PlanOptions {
    input_token_budget: None,
    require_reduction: true,
};

fn words(n: usize) -> String {
    (0..n).map(|i| format!("word{i} ")).collect()
}

fn parts<'a>(pinned: &'a [u32]) -> Parts<'a> {
    Parts {
        system_prompt: "",
        summary: "",
        tools: &[],
        estimator: &ESTIMATOR,
        reported: &[],
        provider_compaction: Default::default(),
        pinned,
    }
}

#[test]
fn the_markers_pin_a_ui_message_and_a_model_message_and_only_true_does() {
    let ui = |metadata: Value| json!({ "id": "u", "role": "user", "metadata": metadata, "parts": [{ "type": "text", "text": "the task" }] });
    assert!(facts_of(Format::AiSdkUi, &ui(json!({ "pinned": true }))).pinned());
    for other in [
        json!({ "pinned": "yes" }),
        json!({ "pinned": false }),
        json!(null),
    ] {
        assert!(!facts_of(Format::AiSdkUi, &ui(other)).pinned());
    }
    let model = |options: Value| json!({ "role": "user", "content": "the task", "providerOptions": options });
    let marked = model(json!({ "contextCompaction": { "pinned": true }, "openai": {} }));
    assert!(facts_of(Format::AiSdk, &marked).pinned());
    assert!(
        Format::AiSdk
            .read_json(&marked.to_string(), "m")
            .unwrap()
            .pinned
    );
    assert!(
        !facts_of(
            Format::AiSdk,
            &model(json!({ "openai": { "pinned": true } }))
        )
        .pinned()
    );
    // Provider formats have no marker (a provider may reject an unknown field): a field named
    // so is not read.
    let anthropic = json!({ "role": "user", "content": "x", "pinned": true });
    assert!(!facts_of(Format::Anthropic, &anthropic).pinned());
    // The tail's sizer finds the markers where the readers do.
    let texts = [
        ui(json!({})).to_string(),
        ui(json!({ "pinned": true })).to_string(),
    ];
    let sizes =
        context_compaction::tail::size::of_texts(Format::AiSdkUi, &texts, None, false).unwrap();
    assert_eq!(sizes.system, vec![1]);
}

/// A UIMessage holds its tool loop, calls and results together: pinned, its pairs are intact,
/// and no cut falls between its steps.
#[test]
fn a_pinned_ui_message_is_kept_whole_with_its_tool_parts() {
    let step = |i: usize| {
        vec![
            json!({ "type": "step-start" }),
            json!({ "type": "tool-read", "toolCallId": format!("c{i}"), "state": "output-available", "input": { "path": "a" }, "output": words(300) }),
        ]
    };
    let loop_parts: Vec<Value> = (0..4).flat_map(step).collect();
    let assistant = |pinned: bool| json!({ "id": "a", "role": "assistant", "metadata": { "pinned": pinned }, "parts": loop_parts });
    let user = |id: &str, n: usize| json!({ "id": id, "role": "user", "parts": [{ "type": "text", "text": words(n) }] });
    let messages = |pinned| vec![user("u0", 600), assistant(pinned), user("u1", 5)];
    let plan = |pinned| {
        let facts = request(Format::AiSdkUi, &messages(pinned));
        (
            compactor(700).plan_with_facts(&facts, REDUCE).unwrap(),
            facts,
        )
    };
    // Unpinned, the cut falls between its steps.
    let (unpinned, _) = plan(false);
    let unpinned = unpinned.expect("a plan");
    assert_eq!(
        (unpinned.first_kept_index, unpinned.first_kept_part > 0),
        (1, true)
    );
    // Pinned: kept whole, after the summary, with its calls and results.
    let (pinned, facts) = plan(true);
    let pinned = pinned.expect("a plan");
    assert_eq!(pinned.first_kept_part, 0);
    let kept: Vec<(usize, bool)> = pinned.kept(&facts.messages, 3).collect();
    assert!(kept.contains(&(1, false)), "{kept:?}");
    assert!(!context_compaction::unpinned(&facts.messages, 0..3).any(|i| i == 1));
    let after: u64 = kept.iter().map(|&(i, _)| facts.messages[i].tokens).sum();
    assert_eq!(pinned.estimate_after_without_summary, after);
}

/// The request's indices pin messages of any format: a history's facts, its sizer's list of
/// messages read exactly, a body's facts; an index past the end is an error naming `pinned`.
#[test]
fn the_request_pins_by_index_in_every_path() {
    let messages = [
        json!({ "role": "user", "content": words(800) }),
        json!({ "role": "assistant", "content": [{ "type": "text", "text": words(800) }] }),
        json!({ "role": "user", "content": words(800) }),
        json!({ "role": "assistant", "content": [{ "type": "text", "text": "ok" }] }),
    ];
    let texts: Vec<String> = messages.iter().map(Value::to_string).collect();
    let pins = [1u32];
    let history = Texts {
        format: Format::Anthropic,
        messages: &texts,
        parts: parts(&pins),
    };
    use context_compaction::History;
    let all = history.all_facts().unwrap();
    assert_eq!(
        all.iter().map(|f| f.pinned()).collect::<Vec<_>>(),
        [false, true, false, false]
    );
    assert_eq!(history.sizes(None, false).unwrap().system, vec![1]);
    assert_eq!(history.sizes(Some(&[0, 1]), false).unwrap().system, vec![1]);
    let planned = compactor(10).plan_history(&history, REDUCE).unwrap();
    let plan = planned.plan.expect("a plan");
    assert!(plan.first_kept_index > 1);
    let kept: Vec<usize> = plan
        .kept(&planned.facts.messages, 4)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(kept[0], 1);
    // A body: the same pins, checked against the messages it holds.
    let bytes = serde_json::to_vec(&messages).unwrap();
    let c = compactor(10);
    let decided = body::decide(&c, &bytes, Format::Anthropic, &parts(&pins), REDUCE).unwrap();
    assert!(decided.facts.messages[1].pinned());
    let Err(error) = body::decide(&c, &bytes, Format::Anthropic, &parts(&[4]), REDUCE) else {
        panic!("an index past the end is refused");
    };
    assert!(matches!(error, Error::InvalidRequest { .. }));
    assert!(
        error
            .to_string()
            .contains("pinned: index 4 is out of range for 4 messages"),
        "{error}"
    );
}

#[test]
fn a_pinned_message_s_results_are_never_cleared_nor_trimmed() {
    let format = Format::Canonical;
    let messages = |pinned: bool| {
        vec![
            json!({ "role": "user", "content": "read it" }),
            json!({ "role": "assistant", "pinned": pinned, "content": [{ "type": "toolCall", "id": "c1", "name": "read", "arguments": { "path": "a" } }] }),
            json!({ "role": "toolResult", "pinned": pinned, "toolCallId": "c1", "toolName": "read", "content": words(2_000) }),
            json!({ "role": "assistant", "content": [{ "type": "text", "text": "done" }] }),
            json!({ "role": "user", "content": "next" }),
        ]
    };
    let policy = ClearingPolicy {
        protect_recent_tokens: Some(0),
        ..ClearingPolicy::default()
    };
    let limits = clearing::Limits {
        keep_recent_tokens: 0,
        input_token_budget: None,
    };
    let (tracking, texts) = (FileTracking::default(), true);
    let cleared = |pinned: bool| {
        let messages = messages(pinned);
        let mut finder = clearing::Finder::new(&ESTIMATOR, &tracking, texts, true);
        for (i, m) in messages.iter().enumerate() {
            finder.read_json(format, i, &m.to_string()).unwrap();
        }
        let found = finder.finish().unwrap();
        let facts = request(format, &messages);
        let clearable = clearing::clearable(&found, &facts, &policy, limits);
        let budget = facts.total() - 300;
        let trimmed = clearing::trim(&found, &facts, budget, &ESTIMATOR).unwrap();
        (clearable, trimmed.is_some())
    };
    assert_eq!(cleared(false), (vec![0], true));
    assert_eq!(cleared(true), (vec![], false));
}
