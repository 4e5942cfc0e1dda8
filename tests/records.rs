//! Records written as a format's reader reads each message (the path of `summarizerInput`)
//! equal the records written from the units the same reader builds (the path of `apply`): on
//! every format's fixture, the real session, and random messages with awkward content.

mod common;

use common::FIXTURES;
use context_compaction::formats::Format;
use context_compaction::*;
use proptest::prelude::*;
use serde_json::{Value, json};

/// The records as they were written before the records writer, all at once from the units:
/// the oracle the writer is checked against.
fn reference(messages: &[Message]) -> String {
    use records::{Keep, truncate};
    use std::collections::HashMap;
    let call_names: HashMap<&str, &str> = messages
        .iter()
        .flat_map(Message::calls)
        .map(|call| (call.id.as_str(), call.name.as_str()))
        .collect();
    let content_text = |content: &[ContentBlock]| {
        let mut parts: Vec<String> = Vec::new();
        let mut images = 0;
        for block in content {
            match block {
                ContentBlock::Text(text) => parts.push(text.clone()),
                ContentBlock::Image => images += 1,
                ContentBlock::Opaque(_) => {}
            }
        }
        match images {
            0 => {}
            1 => parts.push("[1 image]".to_owned()),
            n => parts.push(format!("[{n} images]")),
        }
        parts.join("\n")
    };
    let mut records = Vec::new();
    for message in messages {
        if message.is_failed_attempt() {
            continue;
        }
        match message {
            Message::User(user) => records.push(format!("[User]: {}", content_text(&user.content))),
            Message::Assistant(assistant) => {
                for block in &assistant.content {
                    records.push(match block {
                        AssistantBlock::Opaque(_) | AssistantBlock::Sealed { .. } => continue,
                        AssistantBlock::Text(text) => format!("[Assistant]: {text}"),
                        AssistantBlock::Thinking(text) => {
                            format!("[Assistant thinking]: {}", truncate(text, Keep::Tail))
                        }
                        AssistantBlock::ToolCall(call) => format!(
                            "[Tool call] {}: {}",
                            call.name,
                            truncate(&call.arguments.to_string(), Keep::Head)
                        ),
                    });
                }
            }
            Message::ToolResult(result) => {
                let name = result
                    .tool_name
                    .as_deref()
                    .or_else(|| call_names.get(result.tool_call_id.as_str()).copied())
                    .unwrap_or("unknown");
                let keep = if result.is_error || name == "bash" {
                    Keep::Tail
                } else {
                    Keep::Head
                };
                let status = if result.is_error { "error" } else { "ok" };
                let text = content_text(&result.content);
                records.push(format!(
                    "[Tool result] {name} ({status}): {}",
                    truncate(&text, keep)
                ));
            }
        }
    }
    records.join("\n\n")
}

/// Records of `texts` both ways: read in place, and from the units `read_json` builds (checked
/// against the oracle).
fn both_ways(format: Format, texts: &[String]) -> (String, String) {
    let in_place = format
        .records_json(texts.iter().map(String::as_str))
        .unwrap();
    let units: Vec<Message> = texts
        .iter()
        .enumerate()
        .flat_map(|(i, t)| {
            format
                .read_json(t, &format!("messages[{i}]"))
                .unwrap()
                .units
        })
        .collect();
    let from_units = records::serialize(&units);
    assert_eq!(from_units, reference(&units), "{}", format.name());
    (in_place, from_units)
}

fn texts(json: &str) -> Vec<String> {
    let messages: Vec<Value> = serde_json::from_str(json).unwrap();
    messages.iter().map(Value::to_string).collect()
}

#[test]
fn every_format_fixture_writes_the_same_records_over_every_range() {
    for (format, json) in FIXTURES {
        let all = texts(json);
        for start in 0..all.len() {
            for end in start..=all.len() {
                let (in_place, from_units) = both_ways(format, &all[start..end]);
                assert_eq!(in_place, from_units, "{} {start}..{end}", format.name());
            }
        }
    }
}

#[test]
fn a_message_cut_between_steps_writes_the_records_of_the_steps_before_the_cut() {
    let (format, json) = (
        Format::AiSdkUi,
        include_str!("fixtures/formats/ai-sdk-ui.json"),
    );
    let all = texts(json);
    let mut cuts = 0;
    for (k, text) in all.iter().enumerate() {
        let host = format.read_json(text, "m").unwrap();
        for step in &host.steps {
            let texts: Vec<&str> = all[..=k].iter().map(String::as_str).collect();
            let in_place = format.records_json_until(&texts, &[], step.part).unwrap();
            let mut units: Vec<Message> = all[..k]
                .iter()
                .flat_map(|t| format.read_json(t, "m").unwrap().units)
                .collect();
            units.extend(host.units[..step.unit].iter().cloned());
            assert_eq!(
                in_place,
                Some(records::serialize(&units)),
                "message {k} part {}",
                step.part
            );
            cuts += 1;
        }
        // A part where no step starts is no place to cut.
        let texts: Vec<&str> = all[..=k].iter().map(String::as_str).collect();
        let no_step = (1..100)
            .find(|p| host.steps.iter().all(|s| s.part != *p))
            .unwrap();
        assert_eq!(
            format.records_json_until(&texts, &[], no_step).unwrap(),
            None
        );
    }
    assert!(cuts > 0, "the fixture has steps to cut between");
}

#[test]
fn the_real_session_writes_the_same_records() {
    let session: Vec<String> = include_str!("fixtures/large-session.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["type"] == "message")
        .map(|entry| entry["message"].to_string())
        .collect();
    assert!(session.len() > 900);
    for range in [0..session.len(), 1..300, 300..session.len()] {
        let (in_place, from_units) = both_ways(Format::Canonical, &session[range]);
        assert!(in_place.len() > 10_000);
        assert_eq!(in_place, from_units);
    }
}

/// Any JSON value, with the numbers, keys and strings serde_json writes back its own way.
fn value() -> impl Strategy<Value = Value> {
    let number = prop_oneof![
        Just("1.50"),
        Just("1e2"),
        Just("-0"),
        Just("1e999"),
        Just("12345678901234567890"),
        Just("-7"),
        Just("0.1"),
        Just("1E-7"),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number.prop_map(|n| json!({ "__raw": n })),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-c]{1,2}", inner), 0..4)
                .prop_map(|entries| { Value::Object(entries.into_iter().collect()) }),
        ]
    })
}

/// Text with escapes, control characters, non-ASCII and sometimes many lines or bytes.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z \"\\\\/\\n\\t\\x00-\\x1f\u{e9}\u{65e5}\u{1f600}\u{2028}]{0,30}",
        ("[a-z]{1,8}\n", 90..130usize).prop_map(|(line, n)| line.repeat(n)),
        (".{1}", 1000..1500usize).prop_map(|(c, n)| c.repeat(n)),
    ]
}

/// A value as JSON text, numbers written as `raw` (so that they reach the readers as written);
/// sometimes with a key repeated.
fn json_text(value: &Value, repeat: bool) -> String {
    let text = value.to_string();
    let mut text = raw_numbers(&text);
    if repeat && text.starts_with("{\"") {
        text = format!("{{\"a\":1,{}", &text[1..]);
    }
    text
}

fn raw_numbers(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("{\"__raw\":\"") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 10..];
        let end = after.find("\"}").unwrap();
        out.push_str(&after[..end]);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

#[derive(Debug, Clone)]
enum Msg {
    User(String, usize),
    Assistant {
        text: String,
        thinking: Option<String>,
        calls: Vec<(usize, String, Value, bool)>,
        stop: usize,
    },
    Result {
        id: usize,
        name: Option<String>,
        text: String,
        images: usize,
        error: bool,
    },
    System(String),
}

fn msg() -> impl Strategy<Value = Msg> {
    let name = prop_oneof![
        Just("bash".to_owned()),
        Just("read".to_owned()),
        "[a-z]{1,5}"
    ];
    prop_oneof![
        (text(), 0..3usize).prop_map(|(t, i)| Msg::User(t, i)),
        (
            text(),
            prop::option::of(text()),
            prop::collection::vec((0..4usize, name.clone(), value(), any::<bool>()), 0..3),
            0..7usize
        )
            .prop_map(|(text, thinking, calls, stop)| Msg::Assistant {
                text,
                thinking,
                calls,
                stop
            }),
        (
            0..5usize,
            prop::option::of(name),
            text(),
            0..2usize,
            any::<bool>()
        )
            .prop_map(|(id, name, text, images, error)| Msg::Result {
                id,
                name,
                text,
                images,
                error
            }),
        text().prop_map(Msg::System),
    ]
}

const STOPS: [&str; 7] = ["stop", "length", "toolUse", "error", "aborted", "", ""];

fn canonical(m: &Msg) -> Option<String> {
    Some(match m {
        Msg::User(text, images) => {
            let mut content = vec![json!({"type": "text", "text": text})];
            content.extend(
                (0..*images)
                    .map(|_| json!({"type": "image", "data": "x", "mimeType": "image/png"})),
            );
            json!({"role": "user", "content": content}).to_string()
        }
        Msg::Assistant {
            text,
            thinking,
            calls,
            stop,
        } => {
            let mut blocks = vec![json!({"type": "text", "text": text})];
            blocks.extend(
                thinking
                    .iter()
                    .map(|t| json!({"type": "thinking", "thinking": t})),
            );
            let mut out = String::new();
            for (id, name, args, repeat) in calls {
                out.push_str(&format!(
                    ",{{\"type\":\"toolCall\",\"id\":\"c{id}\",\"name\":{},\"arguments\":{}}}",
                    Value::String(name.clone()),
                    json_text(args, *repeat)
                ));
            }
            let blocks = Value::Array(blocks).to_string();
            let blocks = format!("{}{out}]", &blocks[..blocks.len() - 1]);
            let stop = match STOPS[*stop] {
                "" => String::new(),
                s => format!(",\"stopReason\":\"{s}\""),
            };
            format!("{{\"role\":\"assistant\",\"content\":{blocks}{stop}}}")
        }
        Msg::Result {
            id,
            name,
            text,
            images,
            error,
        } => {
            let mut content = vec![json!({"type": "text", "text": text})];
            content.extend(
                (0..*images)
                    .map(|_| json!({"type": "image", "data": "x", "mimeType": "image/png"})),
            );
            let mut result = json!({"role": "toolResult", "toolCallId": format!("c{id}"), "content": content, "isError": error});
            if let Some(name) = name {
                result["toolName"] = json!(name);
            }
            result.to_string()
        }
        Msg::System(_) => return None,
    })
}

fn openai_chat(m: &Msg) -> String {
    match m {
        Msg::User(text, _) => json!({"role": "user", "content": text}).to_string(),
        Msg::Assistant { text, calls, .. } => {
            let calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(k, (id, name, args, repeat))| {
                    // Arguments text that is JSON, or sometimes not.
                    let arguments = if k == 1 { format!("{{\"path\": {args}") } else { json_text(args, *repeat) };
                    json!({"id": format!("c{id}"), "type": "function", "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            json!({"role": "assistant", "content": text, "tool_calls": calls}).to_string()
        }
        Msg::Result { id, text, .. } => {
            json!({"role": "tool", "tool_call_id": format!("c{id}"), "content": text}).to_string()
        }
        Msg::System(text) => json!({"role": "system", "content": text}).to_string(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_messages_write_the_same_records(messages in prop::collection::vec(msg(), 0..12)) {
        let canonical: Vec<String> = messages.iter().filter_map(canonical).collect();
        let (in_place, from_units) = both_ways(Format::Canonical, &canonical);
        prop_assert_eq!(in_place, from_units);
        let chat: Vec<String> = messages.iter().map(openai_chat).collect();
        let (in_place, from_units) = both_ways(Format::OpenAIChat, &chat);
        prop_assert_eq!(in_place, from_units);
    }
}
