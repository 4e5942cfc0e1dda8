//! Clearing old tool results and trimming an oversized one (`clearing`): which results are
//! chosen, what protects a result, and that every format's rewritten message stays a valid
//! message of that format with its pairing untouched.

mod common;

use context_compaction::clearing::{self, CLEARED_PREFIX, ClearingPolicy};
use context_compaction::formats::{Edit, Format};
use context_compaction::*;
use serde_json::{Value, json};

const FORMATS: [Format; 5] = [
    Format::Canonical,
    Format::OpenAIChat,
    Format::OpenAIResponses,
    Format::Anthropic,
    Format::AiSdk,
];

fn user(format: Format, text: &str) -> Value {
    match format {
        Format::OpenAIResponses => json!({ "type": "message", "role": "user", "content": text }),
        _ => json!({ "role": "user", "content": text }),
    }
}

/// An assistant message with these calls (for Responses: one item per call).
fn calls(format: Format, calls: &[(&str, &str, Value)]) -> Vec<Value> {
    let each = |(id, name, args): &(&str, &str, Value)| match format {
        Format::Canonical => {
            json!({ "type": "toolCall", "id": id, "name": name, "arguments": args })
        }
        Format::OpenAIChat => {
            json!({ "id": id, "type": "function", "function": { "name": name, "arguments": args.to_string() } })
        }
        Format::OpenAIResponses => {
            json!({ "type": "function_call", "call_id": id, "name": name, "arguments": args.to_string() })
        }
        Format::Anthropic => json!({ "type": "tool_use", "id": id, "name": name, "input": args }),
        Format::AiSdk => {
            json!({ "type": "tool-call", "toolCallId": id, "toolName": name, "input": args })
        }
        Format::AiSdkUi => unimplemented!("UI messages hold calls and results together: see below"),
    };
    let blocks: Vec<Value> = calls.iter().map(each).collect();
    match format {
        Format::OpenAIResponses => blocks,
        Format::OpenAIChat => {
            vec![json!({ "role": "assistant", "content": null, "tool_calls": blocks })]
        }
        _ => vec![json!({ "role": "assistant", "content": blocks })],
    }
}

fn result(format: Format, id: &str, name: &str, text: &str) -> Value {
    match format {
        Format::Canonical => {
            json!({ "role": "toolResult", "toolCallId": id, "toolName": name, "content": [{ "type": "text", "text": text }], "isError": false })
        }
        Format::OpenAIChat => json!({ "role": "tool", "tool_call_id": id, "content": text }),
        Format::OpenAIResponses => {
            json!({ "type": "function_call_output", "call_id": id, "output": text })
        }
        Format::Anthropic => {
            json!({ "role": "user", "content": [{ "type": "tool_result", "tool_use_id": id, "content": text }] })
        }
        Format::AiSdk => {
            json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": id, "toolName": name, "output": { "type": "text", "value": text } }] })
        }
        Format::AiSdkUi => unimplemented!("UI messages hold calls and results together: see below"),
    }
}

fn assistant(format: Format, text: &str) -> Value {
    match format {
        Format::OpenAIResponses => {
            json!({ "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": text }] })
        }
        _ => json!({ "role": "assistant", "content": text }),
    }
}

fn big(label: &str, words: usize) -> String {
    (0..words).map(|i| format!("{label}{i} ")).collect()
}

/// Two old turns with a `read` and a `bash` result each about 2,000 tokens, then a turn whose
/// last assistant message has a call in flight.
fn conversation(format: Format) -> Vec<Value> {
    let mut m = vec![user(format, "look at the code")];
    m.extend(calls(
        format,
        &[("c1", "read", json!({ "path": "src/a.rs" }))],
    ));
    m.push(result(format, "c1", "read", &big("alpha", 1000)));
    m.extend(calls(
        format,
        &[("c2", "bash", json!({ "command": "cargo test" }))],
    ));
    m.push(result(format, "c2", "bash", &big("beta", 1000)));
    m.push(assistant(format, "done"));
    m.push(user(format, "now the docs"));
    m.extend(calls(
        format,
        &[("c3", "read", json!({ "path": "README.md" }))],
    ));
    m
}

fn facts(format: Format, messages: &[Value]) -> RequestFacts {
    let hosts: Vec<HostMessage> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            format
                .read_json(&m.to_string(), &format!("messages[{i}]"))
                .unwrap()
        })
        .collect();
    RequestFacts::of_hosts("", "", &[], &hosts, &Heuristic::new()).unwrap()
}

fn policy(protect: u64) -> ClearingPolicy {
    ClearingPolicy {
        protect_recent_tokens: Some(protect),
        ..ClearingPolicy::default()
    }
}

/// A clearing's limits: `tokens` of kept suffix, the budget unknown.
fn keep(tokens: u64) -> clearing::Limits {
    clearing::Limits {
        keep_recent_tokens: tokens,
        input_token_budget: None,
    }
}

/// The results and calls of `messages`, as the format's reader reports them.
fn found(format: Format, messages: &[Value], texts: bool) -> clearing::Found {
    let (heuristic, tracking) = (Heuristic::new(), FileTracking::default());
    let mut finder = clearing::Finder::new(&heuristic, &tracking, texts, true);
    for (i, message) in messages.iter().enumerate() {
        finder.read_json(format, i, &message.to_string()).unwrap();
    }
    finder.finish().unwrap()
}

fn plan(format: Format, messages: &[Value], policy: &ClearingPolicy) -> Option<clearing::Clearing> {
    let facts = facts(format, messages);
    let found = found(format, messages, false);
    clearing::plan(&found, &facts, policy, keep(0), &Heuristic::new()).unwrap()
}

/// The messages with the clearing's rewrites in place (each format's own edit of its JSON).
fn applied(format: Format, messages: &[Value], clearing: &clearing::Clearing) -> Vec<Value> {
    let mut out = messages.to_vec();
    for edit in clearing.edits(messages.len()) {
        let text = messages[edit.index].to_string();
        let edits = Edit {
            results: &edit.results,
            arguments: &edit.arguments,
        };
        if let Some(edited) = format.edit_json(&text, "m", &edits).unwrap() {
            out[edit.index] = serde_json::from_str(&edited.text).unwrap();
        }
    }
    out
}

#[test]
fn clears_old_results_in_every_format_keeping_them_valid_and_paired() {
    for format in FORMATS {
        let messages = conversation(format);
        let clearing = plan(format, &messages, &policy(0)).expect("something to clear");
        let ids: Vec<&str> = clearing
            .results
            .iter()
            .map(|r| r.tool_call_id.as_str())
            .collect();
        assert_eq!(ids, ["c1", "c2"], "{format:?}");
        assert!(
            clearing.results[0].text.contains("read of src/a.rs"),
            "{format:?}"
        );
        assert!(
            clearing.results[1].text.contains("bash returned about"),
            "{format:?}"
        );
        assert!(
            clearing.tokens_freed() > 3_000,
            "{format:?}: {}",
            clearing.tokens_freed()
        );

        let after = applied(format, &messages, &clearing);
        let (before_facts, after_facts) = (facts(format, &messages), facts(format, &after));
        assert_eq!(after_facts.total(), clearing.estimate_after, "{format:?}");
        for (old, new) in before_facts.messages.iter().zip(&after_facts.messages) {
            assert_eq!(old.tool_call_ids, new.tool_call_ids, "{format:?}");
            assert_eq!(old.tool_result_ids, new.tool_result_ids, "{format:?}");
            assert_eq!(old.role, new.role, "{format:?}");
        }
        // Only the two result messages are new; the in-flight call and the rest are untouched.
        let changed = (0..messages.len())
            .filter(|&i| after[i] != messages[i])
            .count();
        assert_eq!(changed, 2, "{format:?}");
        assert_eq!(clearing.edits(messages.len()).len(), 2, "{format:?}");
        // Cleared results are never cleared again.
        assert_eq!(plan(format, &after, &policy(0)), None, "{format:?}");
    }
}

#[test]
fn each_format_keeps_its_own_result_shape() {
    let text_of = |format: Format| {
        let messages = conversation(format);
        let clearing = plan(format, &messages, &policy(0)).unwrap();
        let index = clearing.results[0].index;
        (
            applied(format, &messages, &clearing)[index].clone(),
            clearing.results[0].text.clone(),
        )
    };
    let (m, t) = text_of(Format::Canonical);
    assert_eq!(
        m,
        json!({ "role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{ "type": "text", "text": t }], "isError": false })
    );
    let (m, t) = text_of(Format::OpenAIChat);
    assert_eq!(
        m,
        json!({ "role": "tool", "tool_call_id": "c1", "content": t })
    );
    let (m, t) = text_of(Format::OpenAIResponses);
    assert_eq!(
        m,
        json!({ "type": "function_call_output", "call_id": "c1", "output": t })
    );
    let (m, t) = text_of(Format::Anthropic);
    assert_eq!(
        m,
        json!({ "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "c1", "content": t }] })
    );
    let (m, t) = text_of(Format::AiSdk);
    assert_eq!(
        m,
        json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "c1", "toolName": "read", "output": { "type": "text", "value": t } }] })
    );
}

#[test]
fn the_newest_tool_output_is_protected() {
    for format in FORMATS {
        let messages = conversation(format);
        // The newest 1,000 tokens of output cover the `bash` result only.
        let clearing = plan(format, &messages, &policy(1_000)).unwrap();
        let ids: Vec<&str> = clearing
            .results
            .iter()
            .map(|r| r.tool_call_id.as_str())
            .collect();
        assert_eq!(ids, ["c1"], "{format:?}");
        assert_eq!(
            plan(format, &messages, &policy(1_000_000)),
            None,
            "{format:?}"
        );
    }
}

/// What `clearable` lists is what a plan may clear: a stored list of cleared results (a chat
/// route's state) is checked against it, so it never names a protected one.
#[test]
fn clearable_results_are_those_a_plan_may_clear() {
    for format in FORMATS {
        let messages = conversation(format);
        let (facts, found) = (facts(format, &messages), found(format, &messages, false));
        let ids = |policy: &ClearingPolicy, suffix: u64| -> Vec<String> {
            clearing::clearable(&found, &facts, policy, keep(suffix))
                .into_iter()
                .map(|k| found.results[k].id.clone())
                .collect()
        };
        // The newest 1,000 tokens of output cover the `bash` result only.
        assert_eq!(ids(&policy(1_000), 0), ["c1"], "{format:?}");
        assert_eq!(ids(&policy(0), 0), ["c1", "c2"], "{format:?}");
        assert!(ids(&policy(1_000_000), 0).is_empty(), "{format:?}");
        // The kept suffix protects too, and so does `neverClear`.
        assert!(ids(&policy(0), 1_000_000).is_empty(), "{format:?}");
        let never = ClearingPolicy {
            never_clear: vec!["read".to_owned()],
            ..policy(0)
        };
        assert_eq!(ids(&never, 0), ["c2"], "{format:?}");
        // A chat's stored list is checked with the kept suffix left out (a route clears
        // between the steps of the message the suffix starts in), the rest protected alike.
        let stored = |policy: &ClearingPolicy| -> Vec<String> {
            clearing::stored_clearable(&found, &facts, policy, None)
                .into_iter()
                .map(|k| found.results[k].id.clone())
                .collect()
        };
        assert_eq!(stored(&policy(0)), ids(&policy(0), 0), "{format:?}");
        assert_ne!(stored(&policy(0)), ids(&policy(0), 1_000_000), "{format:?}");
        assert_eq!(stored(&policy(1_000)), ["c1"], "{format:?}");
        assert_eq!(stored(&never), ["c2"], "{format:?}");
    }
}

#[test]
fn the_kept_suffix_and_calls_in_flight_are_protected() {
    for format in FORMATS {
        // Parallel calls in the last assistant message: c5 is answered, c6 is in flight.
        let mut messages = conversation(format);
        messages.truncate(messages.len() - calls(format, &[("c3", "read", json!({}))]).len());
        messages.extend(calls(
            format,
            &[
                ("c5", "bash", json!({ "command": "ls" })),
                ("c6", "bash", json!({})),
            ],
        ));
        messages.push(result(format, "c5", "bash", &big("gamma", 1000)));
        let clearing = plan(format, &messages, &policy(0)).unwrap();
        let ids: Vec<&str> = clearing
            .results
            .iter()
            .map(|r| r.tool_call_id.as_str())
            .collect();
        assert_eq!(
            ids,
            ["c1", "c2"],
            "{format:?}: the answered call of the in-flight message"
        );

        // What the summary plan would keep word for word is kept here too.
        let facts = facts(format, &messages);
        let keep_all = clearing::plan(
            &found(format, &messages, false),
            &facts,
            &policy(0),
            keep(1_000_000),
            &Heuristic::new(),
        )
        .unwrap();
        assert_eq!(keep_all, None, "{format:?}");
    }
}

#[test]
fn never_clear_tools_are_left_alone() {
    for format in FORMATS {
        let messages = conversation(format);
        let policy = ClearingPolicy {
            never_clear: vec!["read".to_owned()],
            ..policy(0)
        };
        let clearing = plan(format, &messages, &policy).unwrap();
        let ids: Vec<&str> = clearing
            .results
            .iter()
            .map(|r| r.tool_call_id.as_str())
            .collect();
        assert_eq!(ids, ["c2"], "{format:?}");
    }
}

#[test]
fn arguments_of_cleared_calls_are_cleared_on_request() {
    for format in FORMATS {
        let mut messages = conversation(format);
        // Large arguments, so that clearing them shows in the estimate.
        let args = json!({ "path": "src/a.rs", "note": big("delta", 300) });
        let first_call = calls(format, &[("c1", "read", args)]);
        messages[1] = first_call[0].clone();
        let with = ClearingPolicy {
            clear_arguments: Some(true),
            ..policy(0)
        };
        let never = ClearingPolicy {
            clear_arguments: Some(false),
            ..policy(0)
        };
        let without = plan(format, &messages, &never).unwrap();
        assert!(without.argument_messages.is_empty(), "{format:?}");
        let clearing = plan(format, &messages, &with).unwrap();
        assert_eq!(clearing.argument_messages, [1, 3], "{format:?}");
        assert!(
            clearing.tokens_freed() > without.tokens_freed() + 500,
            "{format:?}"
        );
        let after = applied(format, &messages, &clearing);
        let hosts: Vec<HostMessage> = after
            .iter()
            .map(|m| format.read_json(&m.to_string(), "m").unwrap())
            .collect();
        let call = hosts[1]
            .units
            .iter()
            .flat_map(Message::calls)
            .next()
            .unwrap();
        assert_eq!(
            (call.id.as_str(), call.arguments.as_str()),
            ("c1", "{}"),
            "{format:?}"
        );
        // The path is still named by the placeholder.
        assert!(clearing.results[0].text.contains("src/a.rs"), "{format:?}");
    }
}

#[test]
fn an_oversized_newest_result_is_trimmed_in_the_middle() {
    for format in FORMATS {
        let mut messages = conversation(format);
        messages.pop();
        messages.extend(calls(
            format,
            &[("c9", "bash", json!({ "command": "cat big.log" }))],
        ));
        messages.push(result(
            format,
            "c9",
            "bash",
            &format!("FIRST {} LAST", big("log", 20_000)),
        ));
        let facts = facts(format, &messages);
        let budget = 20_000;
        assert!(facts.total() > budget);
        let trimmed = clearing::trim(
            &found(format, &messages, true),
            &facts,
            budget,
            &Heuristic::new(),
        )
        .unwrap()
        .expect("trimmed");
        assert!(trimmed.estimate_after <= budget, "{format:?}");
        assert_eq!(trimmed.results.len(), 1);
        let text = &trimmed.results[0].text;
        assert!(
            text.starts_with("FIRST ") && text.ends_with(" LAST"),
            "{format:?}"
        );
        assert!(
            text.contains("trimmed from the middle of this tool result"),
            "{format:?}"
        );
        let after = applied(format, &messages, &trimmed);
        assert_eq!(
            facts_total(format, &after),
            trimmed.estimate_after,
            "{format:?}"
        );
        // Under the budget already: nothing to trim; a budget below what the rest needs: none.
        assert_eq!(
            clearing::trim(
                &found(format, &messages, true),
                &facts,
                1_000_000,
                &Heuristic::new()
            )
            .unwrap(),
            None
        );
        assert_eq!(
            clearing::trim(
                &found(format, &messages, true),
                &facts,
                2_000,
                &Heuristic::new()
            )
            .unwrap(),
            None
        );
    }
}

fn facts_total(format: Format, messages: &[Value]) -> u64 {
    facts(format, messages).total()
}

#[test]
fn placeholders_start_with_the_marker() {
    assert!(clearing::placeholder(Some("bash"), 10, None).starts_with(CLEARED_PREFIX));
}

/// AI SDK UIMessages hold a call and its result in one tool part of an assistant message.
#[test]
fn ui_messages_clear_the_output_of_their_tool_parts() {
    let format = Format::AiSdkUi;
    let part = |id: &str, tool: &str, input: Value, output: &str| json!({ "type": format!("tool-{tool}"), "toolCallId": id, "state": "output-available", "input": input, "output": output });
    let messages = vec![
        json!({ "id": "u1", "role": "user", "parts": [{ "type": "text", "text": "look" }] }),
        json!({ "id": "a1", "role": "assistant", "parts": [
            { "type": "step-start" },
            part("c1", "read", json!({ "path": "src/a.rs" }), &big("alpha", 1000)),
            { "type": "step-start" },
            part("c2", "bash", json!({ "command": "ls" }), &big("beta", 1000)),
            { "type": "text", "text": "done" },
        ] }),
        json!({ "id": "u2", "role": "user", "parts": [{ "type": "text", "text": "next" }] }),
        json!({ "id": "a2", "role": "assistant", "parts": [
            { "type": "step-start" },
            { "type": "tool-read", "toolCallId": "c3", "state": "input-available", "input": { "path": "README.md" } },
        ] }),
    ];
    let with = ClearingPolicy {
        clear_arguments: Some(true),
        ..policy(0)
    };
    let clearing = plan(format, &messages, &with).expect("something to clear");
    let ids: Vec<&str> = clearing
        .results
        .iter()
        .map(|r| r.tool_call_id.as_str())
        .collect();
    assert_eq!(ids, ["c1", "c2"]);
    assert_eq!(clearing.edits(messages.len()).len(), 1);
    assert_eq!(clearing.edits(messages.len())[0].index, 1);
    let after = applied(format, &messages, &clearing);
    let parts = after[1]["parts"].as_array().unwrap();
    assert_eq!(parts[1]["output"], json!(clearing.results[0].text));
    assert_eq!(parts[1]["input"], json!({}));
    assert_eq!(parts[1]["state"], json!("output-available"));
    assert_eq!(parts[3]["output"], json!(clearing.results[1].text));
    let (before, after) = (facts(format, &messages), facts(format, &after));
    for (old, new) in before.messages.iter().zip(&after.messages) {
        assert_eq!(
            (&old.tool_call_ids, &old.tool_result_ids),
            (&new.tool_call_ids, &new.tool_result_ids)
        );
    }
    assert_eq!(after.total(), clearing.estimate_after);
}

#[test]
fn ui_messages_never_clear_provider_executed_results() {
    let format = Format::AiSdkUi;
    let search = |id: &str, state: &str, key: &str| json!({ "type": "tool-web_search", "toolCallId": id, "state": state, "input": { "q": id }, key: big(id, 1000), "providerExecuted": true });
    let messages = vec![
        json!({ "id": "u1", "role": "user", "parts": [{ "type": "text", "text": "look" }] }),
        json!({ "id": "a1", "role": "assistant", "parts": [
            { "type": "step-start" },
            search("p1", "output-available", "output"),
            search("p2", "output-error", "errorText"),
            { "type": "step-start" },
            { "type": "tool-read", "toolCallId": "c1", "state": "output-available", "input": { "path": "a" }, "output": big("alpha", 1000) },
            { "type": "text", "text": "done" },
        ] }),
        json!({ "id": "u2", "role": "user", "parts": [{ "type": "text", "text": "next" }] }),
    ];
    let clearing = plan(format, &messages, &policy(0)).expect("the application's result");
    let ids: Vec<&str> = clearing
        .results
        .iter()
        .map(|r| r.tool_call_id.as_str())
        .collect();
    assert_eq!(ids, ["c1"]);
    let after = applied(format, &messages, &clearing);
    assert_eq!(after[1]["parts"][1], messages[1]["parts"][1]);
    assert_eq!(after[1]["parts"][2], messages[1]["parts"][2]);
}

/// The Rust `Compactor` clears canonical messages as every format's reader path does: the
/// same results, the same estimate, the same rewritten messages (on the real session).
#[test]
fn canonical_messages_clear_as_the_readers_do_on_the_real_session() {
    let texts: Vec<String> = include_str!("fixtures/large-session.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["type"] == "message")
        .map(|entry| entry["message"].to_string())
        .collect();
    let format = Format::Canonical;
    let hosts: Vec<HostMessage> = texts
        .iter()
        .map(|t| format.read_json(t, "m").unwrap())
        .collect();
    let messages: Vec<Message> = hosts.iter().flat_map(|h| h.units.clone()).collect();
    assert_eq!(messages.len(), texts.len());
    let compactor = Compactor::new(CompactorConfig::new(common::Fixed::new("S"))).unwrap();
    let policy = ClearingPolicy {
        clear_arguments: Some(true),
        ..ClearingPolicy::default()
    };
    let facts = RequestFacts::of(&Request::new(&messages)).unwrap();
    let options = PlanOptions {
        input_token_budget: Some(facts.total() * 9 / 10),
        require_reduction: false,
    };
    let request = Request {
        input_token_budget: options.input_token_budget,
        ..Request::new(&messages)
    };
    let typed = compactor
        .plan_clearing(&request, &policy)
        .unwrap()
        .expect("a clearing");
    assert!(typed.results.len() > 10);

    let (heuristic, tracking) = (Heuristic::new(), policy.file_tracking.clone());
    let mut finder = clearing::Finder::new(&heuristic, &tracking, false, true);
    for (i, text) in texts.iter().enumerate() {
        finder.read_json(format, i, text).unwrap();
    }
    let found = finder.finish().unwrap();
    let read = compactor
        .clearing_instead(&found, &facts, options, &policy, &heuristic)
        .unwrap();
    assert_eq!(read.as_ref(), Some(&typed));

    // The rewritten messages agree, and their estimate is the one planned.
    let cleared = clearing::clear_messages(&messages, &typed);
    let values: Vec<Value> = texts
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect();
    let edited = applied(format, &values, &typed);
    let reread: Vec<Message> = edited
        .iter()
        .flat_map(|v| format.read_json(&v.to_string(), "m").unwrap().units)
        .collect();
    assert_eq!(reread, cleared);
    let after = RequestFacts::of(&Request::new(&cleared)).unwrap();
    assert_eq!(after.total(), typed.estimate_after);
    // A required reduction, or an estimate under the trigger, always summarizes.
    let required = Request {
        require_reduction: true,
        ..request
    };
    assert_eq!(compactor.plan_clearing(&required, &policy).unwrap(), None);
    let roomy = Request {
        input_token_budget: Some(facts.total()),
        ..request
    };
    assert_eq!(compactor.plan_clearing(&roomy, &policy).unwrap(), None);
}

#[test]
fn a_rewrite_of_calibrated_facts_frees_calibrated_tokens() {
    // Facts calibrated at 2×: a message of 100 of our tokens counts 200. Rewritten to 10 of
    // ours (20 calibrated), it frees 180, not 200 - 10 or (200 - 10) × 2.
    let message = |tokens| MessageFacts {
        tokens,
        ..MessageFacts::default()
    };
    let facts = RequestFacts {
        messages: vec![message(200), message(50)],
        calibration: Calibration {
            ratio_ppm: 2_000_000,
            ..Calibration::default()
        },
        ..RequestFacts::default()
    };
    let cleared = clearing::Clearing::of_rewrite(&facts, Vec::new(), Vec::new(), &[(0, 100, 10)]);
    assert_eq!(cleared.estimate_before, facts.total());
    assert_eq!(cleared.estimate_before - cleared.estimate_after, 180);
}

#[test]
fn clearing_reads_the_messages_with_calls_or_results_and_a_trim_the_newest_result() {
    let of = |calls: &[&str], results: &[&str]| MessageFacts {
        tool_call_ids: calls.iter().collect(),
        tool_result_ids: results.iter().collect(),
        ..MessageFacts::default()
    };
    let facts = [
        of(&[], &[]),
        of(&["a"], &[]),
        of(&[], &["a"]),
        of(&[], &["b"]),
        of(&["c"], &[]),
    ];
    assert_eq!(clearing::read_indices(&facts, false), vec![1, 2, 3, 4]);
    assert_eq!(clearing::read_indices(&facts, true), vec![3]);
    assert!(clearing::read_indices(&facts[..2], true).is_empty());
}
