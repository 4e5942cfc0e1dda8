//! Provider-native compaction (`docs/formats.md`): Anthropic's `compaction` block is read as the
//! readable summary it is, OpenAI's Responses `compaction` item (and the AI SDK's
//! `openai.compaction` part) counts what it decrypts to, not its encrypted text as prose.

use context_compaction::formats::Format;
use context_compaction::token::{Estimator, Heuristic};
use context_compaction::{BoxError, MessageFacts, MessageFlags};
use serde_json::{Value, json};

const FIXTURE: &str = include_str!("fixtures/formats/provider-compaction.json");

fn history(format: &str) -> Vec<Value> {
    let all: Value = serde_json::from_str(FIXTURE).unwrap();
    all[format].as_array().unwrap().clone()
}

fn facts(format: Format, message: &Value, estimator: &dyn Estimator) -> MessageFacts {
    format
        .facts_json(&message.to_string(), "messages[0]", estimator)
        .unwrap()
}

/// Counts characters: an estimator that is not the heuristic (facts are made from the units).
struct Chars;

impl Estimator for Chars {
    fn count_tokens(&self, text: &str) -> Result<u64, BoxError> {
        Ok(text.chars().count() as u64)
    }
}

/// The tokens a sealed summary of `chars` characters counts (three quarters of it in bytes, four
/// bytes a token), as `docs/behaviour.md` says.
fn sealed(chars: usize) -> u64 {
    (chars as u64 * 3).div_ceil(16)
}

#[test]
fn an_anthropic_compaction_block_counts_as_the_text_it_holds() {
    let messages = history("anthropic");
    let summary = messages[3]["content"][0]["content"].clone();
    let as_text = json!({"role": "assistant", "content": [
        {"type": "text", "text": summary},
        {"type": "text", "text": "I will change the operator."},
    ]});
    for estimator in [&Heuristic::new() as &dyn Estimator, &Chars] {
        let block = facts(Format::Anthropic, &messages[3], estimator);
        // A provider summary: the provider reads nothing before it (see below).
        assert!(block.provider_summary());
        assert_eq!(
            MessageFacts {
                flags: block.flags.with(MessageFlags::PROVIDER_SUMMARY, false),
                ..block
            },
            facts(Format::Anthropic, &as_text, estimator)
        );
    }
}

#[test]
fn an_anthropic_compaction_block_without_content_counts_nothing() {
    // The provider sends `content: null` when it made no summary; the server ignores the block.
    let messages = history("anthropic");
    let without = json!({"role": "assistant", "content": [
        {"type": "text", "text": "Done: add() now adds."},
    ]});
    assert_eq!(
        facts(Format::Anthropic, &messages[5], &Heuristic::new()),
        facts(Format::Anthropic, &without, &Heuristic::new())
    );
    // Content that is neither text nor null is an error that names it.
    let bad = json!({"role": "assistant", "content": [{"type": "compaction", "content": 3}]});
    let error = Format::Anthropic
        .facts_json(&bad.to_string(), "messages[7]", &Heuristic::new())
        .unwrap_err();
    assert!(
        error.to_string().contains("messages[7].content[0].content"),
        "{error}"
    );
}

#[test]
fn a_responses_compaction_item_counts_what_it_decrypts_to() {
    let h = Heuristic::new();
    // The item: 4,006 encrypted characters, which count 1,024 tokens as prose.
    let encrypted = "A".repeat(4006);
    let item = json!({"type": "compaction", "id": "cmp_1", "encrypted_content": encrypted});
    for estimator in [&h as &dyn Estimator, &Chars] {
        let tokens = facts(Format::OpenAIResponses, &item, estimator).tokens;
        assert_eq!(tokens, estimator.framing_tokens() + 752);
    }
    assert_eq!(sealed(4006), 752);
    // The fixture's item, with the other fields an item may carry.
    let messages = history("openai-responses");
    let chars = messages[3]["encrypted_content"].as_str().unwrap().len();
    let f = facts(Format::OpenAIResponses, &messages[3], &h);
    assert_eq!(f.tokens, h.framing_tokens() + sealed(chars));
    assert_eq!(f.role, context_compaction::Role::Assistant);
}

#[test]
fn a_responses_compaction_item_needs_its_encrypted_content() {
    let item = json!({"type": "compaction", "id": "cmp_1"});
    let error = Format::OpenAIResponses
        .facts_json(&item.to_string(), "messages[2]", &Heuristic::new())
        .unwrap_err();
    assert!(
        error.to_string().contains("messages[2].encrypted_content"),
        "{error}"
    );
}

#[test]
fn the_ai_sdk_forwards_both_compactions_through_provider_options() {
    let h = Heuristic::new();
    let messages = history("ai-sdk");
    // Anthropic's: a text part marked in its providerOptions, counted as text.
    let plain = json!({"role": "assistant", "content": [
        {"type": "text", "text": messages[1]["content"][0]["text"]},
        {"type": "text", "text": "I will change the operator."},
    ]});
    let marked = facts(Format::AiSdk, &messages[1], &h);
    assert!(marked.provider_summary());
    assert_eq!(marked.tokens, facts(Format::AiSdk, &plain, &h).tokens);
    // OpenAI's: a custom part whose encryptedContent counts as the sealed summary.
    let encrypted = messages[2]["content"][0]["providerOptions"]["openai"]["encryptedContent"]
        .as_str()
        .unwrap();
    for estimator in [&h as &dyn Estimator, &Chars] {
        let tokens = facts(Format::AiSdk, &messages[2], estimator).tokens;
        assert_eq!(tokens, estimator.framing_tokens() + sealed(encrypted.len()));
    }
    // As a generated result gives it (providerMetadata), too.
    let result = json!({"role": "assistant", "content": [{"type": "custom", "kind": "openai.compaction",
        "providerMetadata": {"openai": {"itemId": "cmp_1", "encryptedContent": encrypted}}}]});
    assert_eq!(
        facts(Format::AiSdk, &result, &h).tokens,
        h.framing_tokens() + sealed(encrypted.len())
    );
}

#[test]
fn records_hold_the_readable_summary_and_not_the_sealed_one() {
    let texts =
        |format: &str| -> Vec<String> { history(format).iter().map(Value::to_string).collect() };
    let anthropic = texts("anthropic");
    let records = Format::Anthropic
        .records_json(anthropic.iter().map(String::as_str))
        .unwrap();
    assert!(records.contains("subtracts instead of adding"), "{records}");
    let responses = texts("openai-responses");
    let records = Format::OpenAIResponses
        .records_json(responses.iter().map(String::as_str))
        .unwrap();
    assert!(!records.contains("gAAAAB"), "{records}");
    assert!(records.contains("Go ahead."), "{records}");
}

// The provider's window (`docs/behaviour.md`, "Provider compaction"): the provider reads
// nothing before the newest compaction, so those messages count nothing and a cut of ours
// falls after it; `ProviderCompaction::Ignore` reads it as any message.

use context_compaction::body;
use context_compaction::clearing::ClearingPolicy;
use context_compaction::history::Parts;
use context_compaction::window::ProviderCompaction;
use context_compaction::{Compactor, CompactorConfig, Ledger, PlanOptions, Planned, RequestFacts};

mod common;
use common::Fixed;

/// Each fixture's newest provider compaction (Anthropic's block at 5 has no content: none).
const NEWEST: [(&str, Format, usize); 3] = [
    ("anthropic", Format::Anthropic, 3),
    ("openai-responses", Format::OpenAIResponses, 3),
    ("ai-sdk", Format::AiSdk, 2),
];

fn window_compactor(keep: u64, clearing: Option<ClearingPolicy>) -> Compactor<Fixed> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: keep,
        clearing,
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap()
}

fn budget(tokens: u64) -> PlanOptions {
    PlanOptions {
        input_token_budget: Some(tokens),
        require_reduction: false,
    }
}

/// What `planBytes` decides for `messages` (facts calibrated, the window opened).
fn decided(
    compactor: &Compactor<Fixed>,
    format: Format,
    messages: &[Value],
    mode: ProviderCompaction,
    options: PlanOptions,
) -> context_compaction::Result<body::Decided> {
    let estimator = Heuristic::new();
    let parts = Parts {
        system_prompt: "",
        summary: "",
        tools: &[],
        estimator: &estimator,
        reported: &[],
        provider_compaction: mode,
        pinned: &[],
    };
    let body = serde_json::to_vec(messages).unwrap();
    body::decide(compactor, &body, format, &parts, options)
}

fn raw_tokens(format: Format, messages: &[Value]) -> Vec<u64> {
    let h = Heuristic::new();
    messages
        .iter()
        .map(|m| facts(format, m, &h).tokens)
        .collect()
}

#[test]
fn the_messages_before_the_newest_provider_compaction_count_nothing() {
    let c = window_compactor(0, None);
    for (name, format, newest) in NEWEST {
        let messages = history(name);
        let raw = raw_tokens(format, &messages);
        let flags: Vec<bool> = messages
            .iter()
            .map(|m| facts(format, m, &Heuristic::new()).provider_summary())
            .collect();
        assert_eq!(flags.iter().rposition(|&f| f), Some(newest), "{name}");
        let window = decided(&c, format, &messages, Default::default(), budget(u64::MAX)).unwrap();
        let tokens: Vec<u64> = window.facts.messages.iter().map(|f| f.tokens).collect();
        let expected: Vec<u64> = (0..raw.len())
            .map(|i| if i < newest { 0 } else { raw[i] })
            .collect();
        assert_eq!(tokens, expected, "{name}");
        assert_eq!(
            window.facts.total(),
            raw[newest..].iter().sum::<u64>(),
            "{name}"
        );
        // Ignored, every message counts.
        let all = decided(
            &c,
            format,
            &messages,
            ProviderCompaction::Ignore,
            budget(u64::MAX),
        );
        assert_eq!(
            all.unwrap().facts.total(),
            raw.iter().sum::<u64>(),
            "{name}"
        );
    }
}

#[test]
fn a_system_message_before_the_window_still_counts() {
    let mut messages = history("ai-sdk");
    messages.insert(
        0,
        json!({"role": "system", "content": "You are a coding agent."}),
    );
    let c = window_compactor(0, None);
    let d = decided(
        &c,
        Format::AiSdk,
        &messages,
        Default::default(),
        budget(u64::MAX),
    )
    .unwrap();
    let tokens: Vec<u64> = d.facts.messages.iter().map(|f| f.tokens).collect();
    assert!(
        tokens[0] > 0 && tokens[1] == 0 && tokens[2] == 0,
        "{tokens:?}"
    );
}

#[test]
fn our_cut_falls_after_the_newest_provider_compaction() {
    for (name, format, newest) in NEWEST {
        let messages = history(name);
        let raw = raw_tokens(format, &messages);
        // Keeping nothing, the cut falls after the compaction whatever the mode.
        let c = window_compactor(0, None);
        let plan = |d: body::Decided| match d.planned {
            Some(Planned::Summarize(plan)) => Some(plan),
            _ => None,
        };
        let d = decided(&c, format, &messages, Default::default(), budget(0)).unwrap();
        assert!(plan(d).unwrap().first_kept_index > newest, "{name}");
        // Keeping what the window holds from the compaction on: only what the provider
        // compacted already is left before it, and no plan summarizes that alone.
        let keep = raw[newest..].iter().sum::<u64>();
        let c = window_compactor(keep, None);
        let d = decided(&c, format, &messages, Default::default(), budget(0)).unwrap();
        assert_eq!(plan(d), None, "{name}");
        let required = PlanOptions {
            input_token_budget: Some(0),
            require_reduction: true,
        };
        let error = decided(&c, format, &messages, Default::default(), required).unwrap_err();
        assert!(
            matches!(error, context_compaction::Error::NoReduction(_)),
            "{name}: {error}"
        );
        // Ignored, the same keep cuts before the compaction.
        let d = decided(&c, format, &messages, ProviderCompaction::Ignore, budget(0)).unwrap();
        assert!(plan(d).unwrap().first_kept_index <= newest, "{name}");
    }
}

#[test]
fn a_conversation_handle_plans_the_window_as_a_request_does() {
    let h = Heuristic::new();
    for (name, format, _) in NEWEST {
        let messages = history(name);
        let fixed = RequestFacts::fixed("", "", &[], &h).unwrap();
        for mode in [ProviderCompaction::Window, ProviderCompaction::Ignore] {
            for keep in [0, 5, 30, 60] {
                let c = window_compactor(keep, None);
                let mut ledger = Ledger::with_mode(mode);
                for m in &messages {
                    ledger.push(facts(format, m, &h));
                }
                let fixed = ledger.calibrate(&fixed, &[]);
                let from_ledger = c.plan_with_ledger(&fixed, &ledger, budget(0)).unwrap();
                let d = decided(&c, format, &messages, mode, budget(0)).unwrap();
                let tokens: Vec<u64> = ledger.facts().iter().map(|f| f.tokens).collect();
                let expected: Vec<u64> = d.facts.messages.iter().map(|f| f.tokens).collect();
                assert_eq!(tokens, expected, "{name} {mode:?}");
                let from_request = match d.planned {
                    Some(Planned::Summarize(plan)) => Some(plan),
                    _ => None,
                };
                assert_eq!(from_ledger, from_request, "{name} {mode:?} keep {keep}");
            }
        }
    }
}

#[test]
fn clearing_leaves_the_results_before_the_window_alone() {
    // A long tool output before the Responses compaction item: the provider reads nothing of
    // it, so clearing it frees nothing.
    let mut messages = history("openai-responses");
    messages[2]["output"] = json!("fn add(a: i32, b: i32) -> i32 { a - b }\n".repeat(100));
    let eager = Some(ClearingPolicy {
        protect_recent_tokens: Some(0),
        ..ClearingPolicy::default()
    });
    let c = window_compactor(0, eager);
    let format = Format::OpenAIResponses;
    // Over the trigger by what the window holds: the old result is not cleared.
    let d = decided(&c, format, &messages, Default::default(), budget(50)).unwrap();
    assert!(
        !matches!(d.planned, Some(Planned::Clear(_))),
        "{:?}",
        d.planned
    );
    let ignore = ProviderCompaction::Ignore;
    let total = decided(&c, format, &messages, ignore, budget(u64::MAX))
        .unwrap()
        .facts
        .total();
    let d = decided(&c, format, &messages, ignore, budget(total - 100)).unwrap();
    let Some(Planned::Clear(cleared)) = d.planned else {
        panic!("a clear plan: {:?}", d.planned);
    };
    assert_eq!(cleared.results[0].index, 2);
}

#[test]
fn a_uimessage_carries_both_compactions_in_its_provider_metadata() {
    // What the AI SDK's `useChat` keeps of a response: a `custom` part for OpenAI's compaction,
    // a text part marked in `providerMetadata` for Anthropic's. `convertToModelMessages` turns
    // each part's `providerMetadata` into `providerOptions`: the ModelMessage reader's facts.
    let h = Heuristic::new();
    let model = history("ai-sdk");
    let sealed_part = &model[2]["content"][0];
    let encrypted = sealed_part["providerOptions"]["openai"]["encryptedContent"].clone();
    let ui = json!({"id": "a1", "role": "assistant", "parts": [
        {"type": "step-start"},
        {"type": "custom", "kind": "openai.compaction",
            "providerMetadata": {"openai": {"itemId": "cmp_1", "encryptedContent": encrypted}}},
    ]});
    let f = facts(Format::AiSdkUi, &ui, &h);
    assert!(f.provider_summary());
    assert_eq!(f, facts(Format::AiSdk, &model[2], &h));
    let text = model[1]["content"][0]["text"].clone();
    let ui = json!({"id": "a0", "role": "assistant", "parts": [
        {"type": "text", "text": text, "providerMetadata": {"anthropic": {"type": "compaction"}}},
        {"type": "text", "text": "I will change the operator."},
    ]});
    let f = facts(Format::AiSdkUi, &ui, &h);
    assert!(f.provider_summary());
    assert_eq!(f, facts(Format::AiSdk, &model[1], &h));
    // An unmarked custom part is its kind, as before.
    let other = json!({"id": "a2", "role": "assistant", "parts": [{"type": "custom", "kind": "acme.note"}]});
    assert!(!facts(Format::AiSdkUi, &other, &h).provider_summary());
}

#[test]
fn a_typed_request_reads_a_sealed_summary_in_its_mode() {
    use context_compaction::{AssistantBlock, AssistantMessage, Message, Request};
    let sealed = Message::Assistant(AssistantMessage {
        content: vec![AssistantBlock::Sealed { chars: 400 }],
        ..AssistantMessage::default()
    });
    let messages = [
        Message::user("a question ".repeat(200)),
        Message::assistant("an answer ".repeat(200)),
        sealed,
        Message::user("go on"),
        Message::assistant("done"),
    ];
    let request = |mode| Request {
        input_token_budget: Some(0),
        provider_compaction: mode,
        ..Request::new(&messages)
    };
    let window = RequestFacts::of(&request(ProviderCompaction::Window)).unwrap();
    let ignored = RequestFacts::of(&request(ProviderCompaction::Ignore)).unwrap();
    // The default is the window: the two messages before the sealed summary count nothing.
    assert_eq!(
        RequestFacts::of(&Request::new(&messages)).unwrap().total(),
        window.total()
    );
    let before: Vec<u64> = ignored.messages[..2].iter().map(|f| f.tokens).collect();
    assert!(before.iter().all(|&t| t > 0));
    assert_eq!(ignored.total(), window.total() + before.iter().sum::<u64>());
    // Keeping what the window holds from the summary on, the window leaves nothing to
    // summarize; ignored, the cut falls before the summary.
    let keep = window.messages[2..].iter().map(|f| f.tokens).sum();
    let c = window_compactor(keep, None);
    let cut = |mode| match c.decide(&request(mode)).unwrap() {
        Some(Planned::Summarize(plan)) => Some(plan.first_kept_index),
        _ => None,
    };
    assert_eq!(cut(ProviderCompaction::Window), None);
    assert!(cut(ProviderCompaction::Ignore).is_some_and(|i| i <= 2));
}
