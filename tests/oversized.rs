//! Trimming an oversized user message (`trim_oversized`, `src/oversized.rs`): a pasted document
//! larger than the window is cut in its middle (head and tail kept, a marker saying how much
//! went) instead of failing with `too_large`, in every format and through a `ContextManager`;
//! without the option, `too_large` as before.

mod common;

use std::cell::RefCell;

use common::*;
use context_compaction::formats::Format;
use context_compaction::manager::*;
use context_compaction::oversized::Oversized;
use context_compaction::*;
use serde_json::{Value, json};

/// A paste whose head and tail can be told from its middle.
fn paste(words: usize) -> String {
    format!("BEGIN {} END", "lorem ipsum dolor sit amet ".repeat(words))
}

/// The same user message holding `text` in each format.
fn user_in(format: Format, text: &str) -> Value {
    match format {
        Format::Canonical => json!({"role": "user", "content": text}),
        Format::Anthropic => json!({"role": "user", "content": [
            {"type": "text", "text": "Read this:"},
            {"type": "text", "text": text, "cache_control": {"type": "ephemeral"}},
        ]}),
        Format::OpenAIChat => json!({"role": "user", "content": text, "name": "ann"}),
        Format::OpenAIResponses => json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": text},
        ]}),
        Format::AiSdk => json!({"role": "user", "content": [{"type": "text", "text": text}]}),
        Format::AiSdkUi => json!({"id": "u1", "role": "user", "parts": [
            {"type": "text", "text": "Read this:"},
            {"type": "text", "text": text},
        ]}),
    }
}

const FORMATS: [Format; 6] = [
    Format::Canonical,
    Format::Anthropic,
    Format::OpenAIChat,
    Format::OpenAIResponses,
    Format::AiSdk,
    Format::AiSdkUi,
];

#[test]
fn a_user_message_is_trimmed_in_its_middle_in_every_format() {
    let h = Heuristic::new();
    let text = paste(40_000);
    for format in FORMATS {
        let message = user_in(format, &text).to_string();
        let before = format.facts_json(&message, "messages[2]", &h).unwrap();
        let over = Oversized {
            index: 2,
            tokens: before.tokens,
            target: 20_000,
        };
        let (trimmed, tokens) = format
            .trim_user_json(&message, "messages[2]", &over, &h)
            .unwrap()
            .expect("trimmed");
        // Still a message of its format, with every other field as it was.
        let after = format.facts_json(&trimmed, "messages[2]", &h).unwrap();
        assert_eq!(after.tokens, tokens);
        assert!(
            after.tokens <= 20_000 && after.tokens > 18_000,
            "{format:?}: {} tokens",
            after.tokens
        );
        let value: Value = serde_json::from_str(&trimmed).unwrap();
        let all = value.to_string();
        assert!(
            all.contains("BEGIN lorem") && all.contains("amet  END"),
            "{format:?}"
        );
        assert!(
            all.contains("trimmed from the middle of this message"),
            "{format:?}"
        );
        let mut without: Value = serde_json::from_str(&message).unwrap();
        let mut with = value.clone();
        // The paste is the only thing that changed.
        blank(&mut without, &text);
        blank_trimmed(&mut with);
        assert_eq!(with, without, "{format:?}");
    }
}

/// `value` with the string `text` replaced by `"…"`.
fn blank(value: &mut Value, text: &str) {
    match value {
        Value::String(s) if s == text => *s = "…".to_owned(),
        Value::Array(items) => items.iter_mut().for_each(|v| blank(v, text)),
        Value::Object(map) => map.values_mut().for_each(|v| blank(v, text)),
        _ => {}
    }
}

/// `value` with the trimmed string replaced by `"…"`.
fn blank_trimmed(value: &mut Value) {
    match value {
        Value::String(s) if s.contains("trimmed from the middle") => *s = "…".to_owned(),
        Value::Array(items) => items.iter_mut().for_each(blank_trimmed),
        Value::Object(map) => map.values_mut().for_each(blank_trimmed),
        _ => {}
    }
}

#[test]
fn a_message_without_user_text_is_not_trimmed() {
    let over = Oversized {
        index: 0,
        tokens: 5_000,
        target: 1_000,
    };
    let answer = json!({"role": "assistant", "content": paste(2_000)}).to_string();
    assert_eq!(
        Format::Canonical
            .trim_user_json(&answer, "m", &over, &Heuristic::new())
            .unwrap(),
        None
    );
    let short = json!({"role": "user", "content": "hi"}).to_string();
    assert_eq!(
        Format::Canonical
            .trim_user_json(&short, "m", &over, &Heuristic::new())
            .unwrap(),
        None
    );
}

/// Two small messages, then a 200,000-character paste (one token a character).
fn pasted() -> OwnedState {
    OwnedState {
        messages: vec![
            user("hello"),
            say("hi"),
            user(&format!("HEAD {} TAIL", "d".repeat(200_000))),
        ],
        ..OwnedState::default()
    }
}

fn trimming(on: bool) -> Compactor<Fixed> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: 100,
        trim_oversized: on,
        ..CompactorConfig::new(Fixed::new("S"))
    })
    .unwrap()
}

fn manager(window: u64) -> ContextManager {
    ContextManager::new(ManagerConfig {
        context_window_tokens: window,
        reserve_tokens: 0,
        ..ManagerConfig::default()
    })
}

fn text_of(message: &Message) -> String {
    match message {
        Message::User(user) => user
            .content
            .iter()
            .map(|b| match b {
                ContentBlock::Text(t) => t.clone(),
                _ => String::new(),
            })
            .collect(),
        _ => String::new(),
    }
}

#[test]
fn a_200k_paste_in_a_128k_window_is_trimmed_with_no_summary_call() {
    let estimator = CharEstimator::default();
    let events = RefCell::new(Vec::new());
    let compactor = trimming(true);
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|e| {
            events
                .borrow_mut()
                .push(format!("{e:?}").chars().take(12).collect::<String>())
        },
    };
    let state = pasted();
    let out =
        run(manager(128_000).maintain(&local, state.clone(), MaintainOptions::default(), &()))
            .unwrap();
    assert_eq!(out.outcome, Outcome::Trimmed);
    assert!(
        compactor.summarizer().seen.borrow().is_empty(),
        "no model call"
    );
    let record = out.record.expect("a record");
    assert!(record.trimmed);
    // The receipt names the message rewritten; the new state's messages are the old ones.
    assert_eq!(record.receipt.cleared, [2]);
    assert_eq!(
        out.origins.iter().map(|o| o.index).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert!(
        record.estimate_after <= 128_000,
        "{}",
        record.estimate_after
    );
    assert_eq!(record.summary, "");
    // The first two as they were; the paste's head, a marker and its tail.
    assert_eq!(out.state.messages[..2], state.messages[..2]);
    let text = text_of(&out.state.messages[2]);
    assert!(text.starts_with("HEAD ddd") && text.ends_with("ddd TAIL"));
    assert!(
        text.contains("trimmed from the middle of this message"),
        "{:.200}",
        &text[60_000..]
    );
    assert_eq!(events.borrow().len(), 2, "a start and an end event");
    // The trimmed state is under the threshold: nothing more to do.
    let again =
        run(manager(128_000).maintain(&local, out.state, MaintainOptions::default(), &())).unwrap();
    assert_eq!(again.outcome, Outcome::BelowThreshold);
    // Without the option, `too_large` as before, and still no model call.
    let off = trimming(false);
    let local = Local {
        compactor: &off,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let out =
        run(manager(128_000).maintain(&local, pasted(), MaintainOptions::default(), &())).unwrap();
    assert_eq!(out.outcome, Outcome::Irreducible);
    assert_eq!(out.error.map(|e| e.code()), Some("too_large"));
    assert!(off.summarizer().seen.borrow().is_empty());
}

#[test]
fn a_paste_alone_is_trimmed_too() {
    // Nothing before it to summarize: the plan is none, the paste still does not fit.
    let estimator = CharEstimator::default();
    let compactor = trimming(true);
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let state = OwnedState {
        messages: vec![user(&"d".repeat(200_000))],
        ..OwnedState::default()
    };
    let out =
        run(manager(128_000).maintain(&local, state, MaintainOptions::default(), &())).unwrap();
    assert_eq!(out.outcome, Outcome::Trimmed);
}

#[test]
fn overflow_recovery_trims_the_paste_when_no_summary_can_fit() {
    let estimator = CharEstimator::default();
    let compactor = trimming(true);
    let local = Local {
        compactor: &compactor,
        estimator: &estimator,
        on_event: &|_| {},
    };
    let sent = RefCell::new(Vec::new());
    let ran = run(manager(128_000).run(
        &local,
        pasted(),
        &(),
        async |s: &OwnedState| {
            let tokens: usize = s.messages.iter().map(|m| text_of(m).len()).sum();
            sent.borrow_mut().push(tokens);
            if tokens > 128_000 {
                Err("prompt is too long")
            } else {
                Ok("answer")
            }
        },
        |e: &&str| is_context_overflow(e, None, None),
    ))
    .unwrap();
    assert_eq!(ran.response, "answer");
    assert_eq!(sent.borrow().len(), 2);
    assert!(ran.compactions[0].trimmed);
    assert!(compactor.summarizer().seen.borrow().is_empty());
}
