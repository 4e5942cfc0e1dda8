//! Pinned messages (`pinned: true` on a canonical message): never summarized, kept verbatim
//! after the summary in their order, counted by the estimate and the cut, refused where a tool
//! pair would be split between a pinned message and one that is not, and a clear `too_large` when they alone do not fit.

use context_compaction::formats::Format;
use context_compaction::{
    Compactor, CompactorConfig, Error, Heuristic, MessageFacts, PlanOptions, RequestFacts,
    holds_pinned, unpinned,
};
use serde_json::{Value, json};

mod common;
use common::Fixed;

static ESTIMATOR: Heuristic = Heuristic::new();

fn facts_of(text: &str, i: usize) -> context_compaction::Result<MessageFacts> {
    Format::Canonical.facts_json(text, &format!("messages[{i}]"), &ESTIMATOR)
}

fn request(texts: &[String], summary: &str) -> RequestFacts {
    let mut facts =
        RequestFacts::fixed("You are a coding agent.", summary, &[], &ESTIMATOR).unwrap();
    facts.messages = texts
        .iter()
        .enumerate()
        .map(|(i, t)| facts_of(t, i).unwrap())
        .collect();
    facts
}

fn compactor(keep: u64) -> Compactor<Fixed> {
    Compactor::new(CompactorConfig {
        keep_recent_tokens: keep,
        ..CompactorConfig::new(Fixed::new("summary"))
    })
    .unwrap()
}

fn budget(tokens: u64) -> PlanOptions {
    PlanOptions {
        input_token_budget: Some(tokens),
        require_reduction: false,
    }
}

fn pin(mut message: Value) -> String {
    message["pinned"] = json!(true);
    message.to_string()
}

#[test]
fn the_marker_pins_a_message_in_both_readers() {
    let text = pin(json!({ "role": "user", "content": "the task" }));
    assert!(facts_of(&text, 0).unwrap().pinned());
    assert!(Format::Canonical.read_json(&text, "m").unwrap().pinned);
    let plain = json!({ "role": "user", "content": "the task", "pinned": false }).to_string();
    assert!(!facts_of(&plain, 0).unwrap().pinned());
    let wrong = json!({ "role": "user", "content": "x", "pinned": "yes" }).to_string();
    let error = facts_of(&wrong, 3).unwrap_err().to_string();
    assert!(error.contains("messages[3].pinned"), "{error}");
}

#[test]
fn a_pinned_message_is_kept_and_not_summarized() {
    let long = "word ".repeat(400);
    let mut texts: Vec<String> = (0..12)
        .map(|i| json!({ "role": if i % 2 == 0 { "user" } else { "assistant" }, "content": if i % 2 == 0 { json!(long) } else { json!([{ "type": "text", "text": long }]) } }).to_string())
        .collect();
    texts[2] = pin(json!({ "role": "user", "content": "the spec" }));
    let facts = request(&texts, "");
    let plan = compactor(1_000)
        .plan_with_facts(&facts, budget(2_000))
        .unwrap()
        .expect("a plan");
    assert!(plan.first_kept_index > 2);
    let kept: Vec<usize> = plan
        .kept(&facts.messages, texts.len())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(kept[0], 2, "the pinned message first, after the summary");
    assert!(holds_pinned(&facts.messages, &plan.messages_to_summarize));
    let summarized: Vec<usize> =
        unpinned(&facts.messages, plan.messages_to_summarize.clone()).collect();
    assert!(!summarized.contains(&2));
    // The estimate after counts it.
    let without: u64 = facts.system_prompt
        + facts.messages[plan.first_kept_index..]
            .iter()
            .map(|f| f.tokens)
            .sum::<u64>();
    assert_eq!(
        plan.estimate_after_without_summary,
        without + facts.messages[2].tokens
    );
}

#[test]
fn pinned_messages_that_alone_exceed_the_budget_are_too_large() {
    let big = "word ".repeat(4_000);
    let texts = vec![
        pin(json!({ "role": "user", "content": big })),
        json!({ "role": "assistant", "content": [{ "type": "text", "text": "ok" }] }).to_string(),
        json!({ "role": "user", "content": "more" }).to_string(),
    ];
    let facts = request(&texts, "");
    let error = compactor(100_000)
        .plan_with_facts(&facts, budget(1_000))
        .unwrap_err();
    assert!(matches!(error, Error::TooLarge(_)), "{error:?}");
    let text = error.to_string();
    assert!(
        text.contains("messages[0]") && text.contains("1000") && text.contains("pinned"),
        "{text}"
    );
}

#[test]
fn too_large_names_a_pinned_message_kept_from_before_the_cut() {
    // The pinned message alone fits; with what the plan keeps after the cut it does not: the
    // manager's error names the largest kept message, the pinned one before the cut.
    let texts = vec![
        pin(json!({ "role": "user", "content": "word ".repeat(900) })),
        json!({ "role": "assistant", "content": [{ "type": "text", "text": "ok ".repeat(300) }] })
            .to_string(),
        json!({ "role": "user", "content": "word ".repeat(300) }).to_string(),
        json!({ "role": "assistant", "content": [{ "type": "text", "text": "ok" }] }).to_string(),
    ];
    let facts = request(&texts, "");
    let limit = facts.messages[0].tokens + 5;
    let plan = compactor(10)
        .plan_with_facts(&facts, budget(limit))
        .unwrap()
        .expect("a plan");
    assert!(plan.first_kept_index > 0);
    let text = plan
        .too_large(&facts.messages, limit)
        .expect("too large")
        .to_string();
    assert!(text.contains("messages[0]"), "{text}");
}

#[test]
fn a_tool_pair_cannot_be_pinned_by_halves() {
    let call = json!({ "role": "assistant", "content": [{ "type": "toolCall", "id": "c1", "name": "read", "arguments": {} }] });
    let result =
        json!({ "role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": "x" });
    let long = json!({ "role": "user", "content": "word ".repeat(2_000) }).to_string();
    let tail = json!({ "role": "user", "content": "go on" }).to_string();
    // The call pinned, its result not: the plan names both messages.
    let texts = vec![
        long.clone(),
        pin(call.clone()),
        result.to_string(),
        tail.clone(),
    ];
    let error = compactor(10)
        .plan_with_facts(&request(&texts, ""), budget(100))
        .unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, Error::InvalidRequest { .. }), "{error:?}");
    assert!(
        text.contains("messages[1]: pinned") && text.contains("messages[2]"),
        "{text}"
    );
    // The result pinned, its call not.
    let texts = vec![
        long.clone(),
        call.to_string(),
        pin(result.clone()),
        tail.clone(),
    ];
    let text = compactor(10)
        .plan_with_facts(&request(&texts, ""), budget(100))
        .unwrap_err()
        .to_string();
    assert!(text.contains("messages[2]: pinned"), "{text}");
    // Both pinned: the pair is kept whole, in order, after the summary.
    let texts = vec![long, pin(call), pin(result), tail];
    let facts = request(&texts, "");
    let plan = compactor(10)
        .plan_with_facts(&facts, budget(500))
        .unwrap()
        .expect("a plan");
    let kept: Vec<usize> = plan.kept(&facts.messages, 4).map(|(i, _)| i).collect();
    assert_eq!(kept, vec![1, 2, 3]);
    // An assistant message of text alone may be pinned (a decision).
    let decision =
        pin(json!({ "role": "assistant", "content": [{ "type": "text", "text": "we use X" }] }));
    assert!(facts_of(&decision, 6).unwrap().pinned());
}

#[test]
fn the_tail_sizer_lists_pinned_messages_with_the_system_ones() {
    let texts = [
        json!({ "role": "user", "content": "a" }).to_string(),
        pin(json!({ "role": "user", "content": "b" })),
    ];
    let sizes =
        context_compaction::tail::size::of_texts(Format::Canonical, &texts, None, false).unwrap();
    assert_eq!(sizes.system, vec![1]);
}

/// The real session, replayed: messages arrive one by one, and whenever the request is over the
/// budget it is compacted (what a host does). The first user message and one in the middle are
/// pinned; after each of ten compactions both are there, verbatim and in order, right after the
/// summary.
#[test]
fn pinned_messages_survive_ten_compactions_of_a_replayed_session() {
    let session: Vec<String> = include_str!("fixtures/large-session.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["type"] == "message")
        .map(|entry| entry["message"].to_string())
        .collect();
    let is_user = |t: &String| t.contains(r#""role":"user""#);
    let first = session.iter().position(is_user).unwrap();
    let middle = (session.len() / 2..)
        .find(|&i| is_user(&session[i]))
        .unwrap();
    let pinned_text = |i: usize| {
        let mut v: Value = serde_json::from_str(&session[i]).unwrap();
        v["pinned"] = json!(true);
        v.to_string()
    };
    let expected_first = pinned_text(first);
    let expected_middle = pinned_text(middle);
    let compactor = compactor(4_000);
    let (mut messages, mut summary, mut compactions) = (Vec::<String>::new(), String::new(), 0);
    for (i, text) in session.iter().enumerate() {
        messages.push(if i == first || i == middle {
            pinned_text(i)
        } else {
            text.clone()
        });
        let facts = request(&messages, &summary);
        let Some(plan) = compactor.plan_with_facts(&facts, budget(16_000)).unwrap() else {
            continue;
        };
        let kept: Vec<String> = plan
            .kept(&facts.messages, messages.len())
            .map(|(k, _)| messages[k].clone())
            .collect();
        compactions += 1;
        summary = format!("summary {compactions}");
        messages = kept;
        let mut expected = vec![&expected_first];
        if i >= middle {
            expected.push(&expected_middle);
        }
        let found: Vec<&String> = messages
            .iter()
            .filter(|m| m.contains(r#""pinned":true"#))
            .collect();
        assert_eq!(found, expected, "after compaction {compactions}");
        assert_eq!(&messages[0], &expected_first, "first after the summary");
    }
    assert!(compactions >= 10, "{compactions} compactions");
}
