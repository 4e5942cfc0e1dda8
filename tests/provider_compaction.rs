//! Provider-native compaction (`docs/formats.md`): Anthropic's `compaction` block is read as the
//! readable summary it is, OpenAI's Responses `compaction` item (and the AI SDK's
//! `openai.compaction` part) counts what it decrypts to, not its encrypted text as prose.

use context_compaction::formats::Format;
use context_compaction::token::{Estimator, Heuristic};
use context_compaction::{BoxError, MessageFacts};
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
        assert_eq!(
            facts(Format::Anthropic, &messages[3], estimator),
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
    assert_eq!(
        facts(Format::AiSdk, &messages[1], &h),
        facts(Format::AiSdk, &plain, &h)
    );
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
