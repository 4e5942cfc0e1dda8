//! The inputs of `tests/differential.rs` that pin messages or hold a provider's own summary:
//! the fixtures' conversation (its results grown) with messages pinned in every format, by
//! the format's marker where it has one and by the request's indices, a tool call and its
//! results among them; and the conversations of `fixtures/formats/provider-compaction.json`
//! with the provider's summary read as the window's start and ignored.

use super::*;

const PROVIDER: &str = include_str!("../fixtures/formats/provider-compaction.json");

/// `messages` (grown) of `format` with their first message pinned, by its marker where the
/// format has one, and the request's pinned indices.
fn pinned(format: Format, mut messages: Vec<Value>) -> (Vec<Value>, Vec<u32>) {
    let marker = match format {
        Format::Canonical => Some(json!({ "pinned": true })),
        Format::AiSdkUi => Some(json!({ "metadata": { "pinned": true } })),
        Format::AiSdk => {
            Some(json!({ "providerOptions": { "contextCompaction": { "pinned": true } } }))
        }
        _ => None,
    };
    let mut indices = match marker {
        Some(Value::Object(marker)) => {
            messages[0].as_object_mut().unwrap().extend(marker);
            Vec::new()
        }
        _ => vec![0],
    };
    // A call and its two results, pinned together (the fixture's first answer calls twice).
    if matches!(format, Format::Canonical | Format::OpenAIChat) {
        indices.extend([1, 2, 3]);
    }
    (messages, indices)
}

/// The name `providerCompaction` gives `mode`.
pub(crate) fn mode_name(mode: ProviderCompaction) -> &'static str {
    match mode {
        ProviderCompaction::Window => "window",
        ProviderCompaction::Ignore => "ignore",
    }
}

/// The inputs with pinned messages and with a provider's summary, each with its name.
pub(crate) fn inputs() -> Vec<(String, Input)> {
    let mut out = Vec::new();
    for (format, text) in FIXTURES {
        let messages: Vec<Value> = serde_json::from_str(text).unwrap();
        let (messages, indices) = pinned(format, grown_all(&messages));
        let input = Input::new(format, messages).with(indices, ProviderCompaction::Window);
        out.push((format!("{} (grown, pinned)", format.name()), input));
    }
    let provider: Value = serde_json::from_str(PROVIDER).unwrap();
    for (name, messages) in provider.as_object().unwrap() {
        let format = Format::from_name(name).unwrap();
        let messages = messages.as_array().unwrap();
        for mode in [ProviderCompaction::Window, ProviderCompaction::Ignore] {
            let input = Input::new(format, messages.clone()).with(Vec::new(), mode);
            let name = format!("{name} (a provider's summary, {})", mode_name(mode));
            out.push((name, input));
        }
    }
    out
}

/// The second keep `input`'s cases try: 300 tokens, or with a provider's summary what the
/// provider's window holds from it on (the window leaves nothing to summarize; ignored, the
/// cut falls before the summary).
pub(crate) fn second_keep(input: &Input) -> u64 {
    let mut facts = input.facts.clone();
    facts.provider_compaction = ProviderCompaction::Window;
    match facts.window_start() {
        0 => 300,
        start => facts.messages[start..].iter().map(|f| f.tokens).sum(),
    }
}

/// Checks that the cases pin messages in every format (a summary keeps them, a clearing clears
/// around them), read a provider's summary both ways (the window leaving nothing to summarize
/// where ignoring it cuts), and plan a long UIMessage chat from its tail with a cut between
/// the steps of a UIMessage.
pub(crate) fn check_coverage(expected: &Value) {
    let cases = expected["cases"].as_array().unwrap();
    let input = |c: &Value| &expected["inputs"][c["input"].as_u64().unwrap() as usize];
    let named = |c: &Value, part: &str| input(c)["name"].as_str().unwrap().contains(part);
    for (format, _) in FIXTURES {
        let pinned: Vec<&Value> = cases
            .iter()
            .filter(|c| input(c)["format"] == format.name() && named(c, "pinned"))
            .collect();
        let keeps = |c: &&Value| {
            c["plan"]["pinnedIndices"]
                .as_array()
                .is_some_and(|p| !p.is_empty())
        };
        assert!(pinned.iter().any(keeps), "{format:?} keeps pinned messages");
        assert!(
            pinned.iter().any(|c| c["plan"]["kind"] == "clear"),
            "{format:?} clears with pins"
        );
    }
    let provider = |mode: &str| -> Vec<&Value> {
        let name = format!("summary, {mode}");
        cases.iter().filter(|c| named(c, &name)).collect()
    };
    assert!(provider("window").iter().any(|c| c["plan"].is_null()));
    let cuts = |c: &&Value| c["plan"]["firstKeptIndex"].as_u64().is_some();
    assert!(provider("ignore").iter().any(cuts));
    let ui_tail = cases.iter().any(|c| {
        named(c, "a chat of")
            && !c["full"].is_null()
            && c["plan"]["firstKeptPart"].as_u64() > Some(0)
    });
    assert!(
        ui_tail,
        "a long UIMessage chat is planned from its tail, cut between steps"
    );
}
