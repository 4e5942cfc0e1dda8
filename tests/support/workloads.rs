//! The real session as `bench/workloads.mjs` makes it, in Rust: `history(n)` (its messages
//! repeated with fresh tool-call ids, `flatIds`) and the same history in each format. A port
//! that must stay byte for byte the same: `tests/differential.rs` writes a digest of each
//! converted history, which `tests/js/differential.test.mjs` checks against the JavaScript
//! converters' output before comparing anything else.

use context_compaction::formats::Format;
use serde_json::{Map, Value, json};

/// The real session's canonical messages (read once).
pub fn session() -> &'static [Value] {
    static SESSION: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    SESSION.get_or_init(|| {
        include_str!("../fixtures/large-session.jsonl")
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|entry| entry["type"] == "message")
            .map(|entry| entry["message"].clone())
            .collect()
    })
}

/// `n` canonical messages: the session repeated, each round's tool-call ids suffixed `#round`.
pub fn history(n: usize) -> Vec<Value> {
    let base = session();
    let mut out = Vec::with_capacity(n);
    for round in 0.. {
        for message in base {
            if out.len() == n {
                return out;
            }
            let mut copy = message.clone();
            let id = |v: &mut Value| *v = Value::String(format!("{}#{round}", v.as_str().unwrap()));
            if copy["role"] == "assistant" {
                for block in copy["content"].as_array_mut().unwrap() {
                    if block["type"] == "toolCall" {
                        id(&mut block["id"]);
                    }
                }
            }
            if copy["role"] == "toolResult" {
                id(&mut copy["toolCallId"]);
            }
            out.push(copy);
        }
    }
    out
}

/// A host message, and the canonical assistant message it was made from (the latest one, for a
/// UIMessage that holds several), if any.
pub type Host = (Value, Option<usize>);

/// `messages` (canonical) in `format`.
pub fn convert(format: Format, messages: &[Value]) -> Vec<Host> {
    match format {
        Format::Canonical => messages
            .iter()
            .enumerate()
            .map(|(i, m)| (m.clone(), (m["role"] == "assistant").then_some(i)))
            .collect(),
        Format::OpenAIChat => messages.iter().enumerate().map(openai_chat).collect(),
        Format::Anthropic => anthropic(messages),
        Format::AiSdk => ai_sdk(messages),
        Format::AiSdkUi => ai_sdk_ui(messages),
        Format::OpenAIResponses => openai_responses(messages),
    }
}

/// A canonical content as one text: a string as it is, text blocks joined by newlines.
fn text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .map(|b| b["text"].as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn blocks(m: &Value) -> &[Value] {
    m["content"].as_array().map_or(&[], Vec::as_slice)
}

/// An object of the pairs whose value is not missing (`JSON.stringify` leaves `undefined` out).
fn object(pairs: &[(&str, Option<&Value>)]) -> Value {
    let map: Map<String, Value> = pairs
        .iter()
        .filter_map(|(k, v)| Some(((*k).to_owned(), (*v)?.clone())))
        .collect();
    Value::Object(map)
}

fn arguments(b: &Value) -> Value {
    b.get("arguments").cloned().unwrap_or_else(|| json!({}))
}

fn openai_chat((i, m): (usize, &Value)) -> Host {
    if m["role"] == "user" {
        return (
            json!({ "role": "user", "content": text(&m["content"]) }),
            None,
        );
    }
    if m["role"] == "toolResult" {
        let message = json!({ "role": "tool", "tool_call_id": m["toolCallId"], "content": text(&m["content"]) });
        return (message, None);
    }
    let said = text(&m["content"]);
    let content = if said.is_empty() {
        Value::Null
    } else {
        Value::String(said)
    };
    let mut message = json!({ "role": "assistant", "content": content });
    let calls: Vec<Value> = blocks(m)
        .iter()
        .filter(|b| b["type"] == "toolCall")
        .map(|b| {
            let function = json!({ "name": b["name"], "arguments": arguments(b).to_string() });
            json!({ "id": b["id"], "type": "function", "function": function })
        })
        .collect();
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    (message, Some(i))
}

fn anthropic(messages: &[Value]) -> Vec<Host> {
    let blocks_of = |content: &Value| match content {
        Value::String(_) => content.clone(),
        _ => Value::Array(
            content
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|b| match b["type"] == "text" {
                    true => object(&[("type", Some(&json!("text"))), ("text", b.get("text"))]),
                    false => {
                        let source = object(&[
                            ("type", Some(&json!("base64"))),
                            ("media_type", b.get("mimeType")),
                            ("data", b.get("data")),
                        ]);
                        json!({ "type": "image", "source": source })
                    }
                })
                .collect(),
        ),
    };
    let mut out: Vec<Host> = Vec::new();
    // Whether the last message is one of merged tool results.
    let mut results = false;
    for (i, m) in messages.iter().enumerate() {
        if m["role"] == "toolResult" {
            let block = object(&[
                ("type", Some(&json!("tool_result"))),
                ("tool_use_id", m.get("toolCallId")),
                ("is_error", m.get("isError")),
                ("content", Some(&blocks_of(&m["content"]))),
            ]);
            match out.last_mut() {
                Some((last, _)) if results => last["content"].as_array_mut().unwrap().push(block),
                _ => out.push((json!({ "role": "user", "content": [block] }), None)),
            }
            results = true;
            continue;
        }
        results = false;
        if m["role"] == "user" {
            out.push((
                json!({ "role": "user", "content": blocks_of(&m["content"]) }),
                None,
            ));
            continue;
        }
        let content: Vec<Value> = blocks(m)
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("toolCall") => json!({ "type": "tool_use", "id": b["id"], "name": b["name"], "input": arguments(b) }),
                Some("thinking") => object(&[
                    ("type", Some(&json!("thinking"))),
                    ("thinking", b.get("thinking")),
                    ("signature", Some(&json!(""))),
                ]),
                _ => object(&[("type", Some(&json!("text"))), ("text", b.get("text"))]),
            })
            .collect();
        out.push((json!({ "role": "assistant", "content": content }), Some(i)));
    }
    out
}

fn ai_sdk(messages: &[Value]) -> Vec<Host> {
    let mut out: Vec<Host> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if m["role"] == "toolResult" {
            let kind = if m["isError"] == true {
                "error-text"
            } else {
                "text"
            };
            let output = json!({ "type": kind, "value": text(&m["content"]) });
            let part = object(&[
                ("type", Some(&json!("tool-result"))),
                ("toolCallId", m.get("toolCallId")),
                ("toolName", m.get("toolName")),
                ("output", Some(&output)),
            ]);
            match out.last_mut() {
                Some((last, _)) if last["role"] == "tool" => {
                    last["content"].as_array_mut().unwrap().push(part)
                }
                _ => out.push((json!({ "role": "tool", "content": [part] }), None)),
            }
        } else if m["role"] == "user" {
            out.push((
                json!({ "role": "user", "content": text(&m["content"]) }),
                None,
            ));
        } else {
            let content: Vec<Value> = blocks(m)
                .iter()
                .map(|b| match b["type"].as_str() {
                    Some("toolCall") => json!({ "type": "tool-call", "toolCallId": b["id"], "toolName": b["name"], "input": arguments(b) }),
                    Some("thinking") => object(&[("type", Some(&json!("reasoning"))), ("text", b.get("thinking"))]),
                    _ => object(&[("type", Some(&json!("text"))), ("text", b.get("text"))]),
                })
                .collect();
            out.push((json!({ "role": "assistant", "content": content }), Some(i)));
        }
    }
    out
}

fn ai_sdk_ui(messages: &[Value]) -> Vec<Host> {
    let mut out: Vec<Host> = Vec::new();
    // Where each call's part is: its message and its place among the parts.
    let mut calls: std::collections::HashMap<String, (usize, usize)> = Default::default();
    let mut assistant: Option<usize> = None;
    for (i, m) in messages.iter().enumerate() {
        if m["role"] == "user" {
            assistant = None;
            let parts = json!([{ "type": "text", "text": text(&m["content"]) }]);
            out.push((
                json!({ "id": format!("m{i}"), "role": "user", "parts": parts }),
                None,
            ));
        } else if m["role"] == "toolResult" {
            let id = m["toolCallId"].as_str().unwrap_or_default();
            let Some(&(at, k)) = calls.get(id) else {
                continue;
            };
            let part = &mut out[at].0["parts"][k];
            if m["isError"] == true {
                part["state"] = json!("output-error");
                part["errorText"] = json!(text(&m["content"]));
            } else {
                part["state"] = json!("output-available");
                part["output"] = json!(text(&m["content"]));
            }
        } else {
            let at = *assistant.get_or_insert_with(|| {
                out.push((
                    json!({ "id": format!("m{i}"), "role": "assistant", "parts": [] }),
                    None,
                ));
                out.len() - 1
            });
            out[at].1 = Some(i);
            let parts = out[at].0["parts"].as_array_mut().unwrap();
            parts.push(json!({ "type": "step-start" }));
            for b in blocks(m) {
                match b["type"].as_str() {
                    Some("text") => parts.push(object(&[
                        ("type", Some(&json!("text"))),
                        ("text", b.get("text")),
                        ("state", Some(&json!("done"))),
                    ])),
                    Some("thinking") => parts.push(object(&[
                        ("type", Some(&json!("reasoning"))),
                        ("text", b.get("thinking")),
                        ("state", Some(&json!("done"))),
                    ])),
                    Some("toolCall") => {
                        let name = b["name"].as_str().unwrap_or_default();
                        let part = json!({ "type": format!("tool-{name}"), "toolCallId": b["id"], "state": "input-available", "input": arguments(b) });
                        calls.insert(
                            b["id"].as_str().unwrap_or_default().to_owned(),
                            (at, parts.len()),
                        );
                        parts.push(part);
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

fn openai_responses(messages: &[Value]) -> Vec<Host> {
    let mut out: Vec<Host> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if m["role"] == "user" {
            let content = json!([{ "type": "input_text", "text": text(&m["content"]) }]);
            out.push((
                json!({ "type": "message", "role": "user", "content": content }),
                None,
            ));
        } else if m["role"] == "toolResult" {
            let item = json!({ "type": "function_call_output", "call_id": m["toolCallId"], "output": text(&m["content"]) });
            out.push((item, None));
        } else {
            for b in blocks(m) {
                let item = match b["type"].as_str() {
                    Some("thinking") => {
                        let summary = object(&[
                            ("type", Some(&json!("summary_text"))),
                            ("text", b.get("thinking")),
                        ]);
                        json!({ "type": "reasoning", "summary": [summary] })
                    }
                    Some("text") => {
                        let content = object(&[
                            ("type", Some(&json!("output_text"))),
                            ("text", b.get("text")),
                            ("annotations", Some(&json!([]))),
                        ]);
                        json!({ "type": "message", "role": "assistant", "content": [content] })
                    }
                    Some("toolCall") => {
                        json!({ "type": "function_call", "call_id": b["id"], "name": b["name"], "arguments": arguments(b).to_string() })
                    }
                    _ => continue,
                };
                out.push((item, Some(i)));
            }
        }
    }
    out
}
