//! Facts from body bytes (`body::facts`) equal facts from parsed messages, in every format,
//! for arrays and JSON lines; malformed bodies and bad messages give the same errors.

use context_compaction::body::{self, BodyFacts};
use context_compaction::formats::Format;
use context_compaction::*;
use proptest::prelude::*;
use serde_json::{Value, json};

const FIXTURES: [(Format, &str); 5] = [
    (
        Format::Canonical,
        include_str!("fixtures/formats/canonical.json"),
    ),
    (
        Format::OpenAIChat,
        include_str!("fixtures/formats/openai-chat.json"),
    ),
    (
        Format::OpenAIResponses,
        include_str!("fixtures/formats/openai-responses.json"),
    ),
    (
        Format::Anthropic,
        include_str!("fixtures/formats/anthropic.json"),
    ),
    (Format::AiSdk, include_str!("fixtures/formats/ai-sdk.json")),
];

/// The facts of each message the objects path computes (JSON text per message, as JS sends it).
fn expected(
    format: Format,
    messages: &[Value],
    estimator: &dyn Estimator,
) -> Result<Vec<MessageFacts>> {
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let path = format!("messages[{i}]");
            let host = format.read_json(&m.to_string(), &path)?;
            MessageFacts::of_host(&host, estimator)
                .map_err(|e| Error::invalid_request(e.to_string()))
        })
        .collect()
}

fn session() -> Vec<Value> {
    include_str!("fixtures/large-session.jsonl")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["type"] == "message")
        .map(|entry| entry["message"].clone())
        .collect()
}

fn of(text: &str, format: Format) -> Result<BodyFacts> {
    body::facts(text.as_bytes(), format, &Heuristic::new())
}

/// Counts like the heuristic but is not one, so every message takes the general reader.
struct Plain;

impl Estimator for Plain {
    fn count_tokens(&self, text: &str) -> std::result::Result<u64, BoxError> {
        Ok(Heuristic::new().count(text))
    }
}

#[test]
fn the_real_session_reads_the_same_from_bytes() {
    let messages = session();
    let want = expected(Format::Canonical, &messages, &Heuristic::new()).unwrap();
    let array = serde_json::to_string(&messages).unwrap();
    assert_eq!(of(&array, Format::Canonical).unwrap().messages, want);
    let pretty = serde_json::to_string_pretty(&messages).unwrap();
    assert_eq!(of(&pretty, Format::Canonical).unwrap().messages, want);
    let lines: Vec<String> = messages.iter().map(Value::to_string).collect();
    let jsonl = lines.join("\n") + "\n";
    assert_eq!(of(&jsonl, Format::Canonical).unwrap().messages, want);
    let general = body::facts(array.as_bytes(), Format::Canonical, &Plain).unwrap();
    assert_eq!(general.messages, want);
}

#[test]
fn every_format_reads_the_same_from_bytes() {
    for (format, text) in FIXTURES {
        let messages: Vec<Value> = serde_json::from_str(text).unwrap();
        let want = expected(format, &messages, &Heuristic::new()).unwrap();
        assert_eq!(of(text, format).unwrap().messages, want, "{format:?}");
    }
}

#[test]
fn spans_locate_each_message_in_the_body() {
    let text = r#" [ {"role":"user","content":"a"} ,
        {"role":"user","content":"b\n"}]  "#;
    let facts = of(text, Format::Canonical).unwrap();
    let spans: Vec<&str> = facts.spans.iter().map(|s| &text[s.clone()]).collect();
    assert_eq!(
        spans,
        [
            r#"{"role":"user","content":"a"}"#,
            r#"{"role":"user","content":"b\n"}"#
        ]
    );
    let lines =
        "{\"role\":\"user\",\"content\":\"a\"}\r\n\n  {\"role\":\"user\",\"content\":\"b\"}";
    let facts = of(lines, Format::Canonical).unwrap();
    assert_eq!(facts.spans.len(), 2);
    assert_eq!(
        &lines[facts.spans[1].clone()],
        r#"{"role":"user","content":"b"}"#
    );
    assert!(of("", Format::Canonical).unwrap().messages.is_empty());
    assert!(of(" [ ] ", Format::Canonical).unwrap().messages.is_empty());
}

#[test]
fn canonical_edge_cases_match_the_general_reader() {
    let cases = [
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "x"}]}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "x", "arguments": null}]}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "a\"b", "name": "x", "arguments": {"k": [1, 2.5, "é\n"], "n": {"m": true}}}]}),
        json!({"role": "assistant", "content": "plain", "stopReason": "length"}),
        json!({"role": "assistant", "content": null, "stopReason": null}),
        json!({"role": "user", "content": [{"type": "image", "data": "AAAA"}, {"type": "text", "text": ""}]}),
        json!({"role": "toolResult", "toolCallId": "c", "toolName": null, "isError": true, "content": "out"}),
        json!({"role": "user", "content": null}),
        json!({"role": "user", "content": "日本語 and emoji 😀", "extra": {"deep": [[[]]]}}),
    ];
    let text = serde_json::to_string(&cases).unwrap();
    let want = expected(Format::Canonical, &cases, &Heuristic::new()).unwrap();
    assert_eq!(of(&text, Format::Canonical).unwrap().messages, want);
    // Escapes serde_json would not write, numbers it would write differently, a repeated key.
    let text = r#"[{"role":"assistant","content":[{"type":"toolCall","id":"\u0061","name":"r\/w","arguments":{"a":1.50,"b":1e2,"c":"\u00e9"}}]},
        {"role":"user","content":"x","role":"user"},
        {"role":"assistant","content":[{"type":"toolCall","id":"a","name":"n","arguments":{"k":1,"k":2}}]}]"#;
    // The objects path sees the numbers `JSON.parse` reads: 1.5 and 100.
    let parsed = text.replace("1.50", "1.5").replace("1e2", "100");
    let messages: Vec<Value> = serde_json::from_str(&parsed).unwrap();
    let want = expected(Format::Canonical, &messages, &Heuristic::new()).unwrap();
    assert_eq!(of(text, Format::Canonical).unwrap().messages, want);
}

#[test]
fn openai_chat_edge_cases_match_the_general_reader() {
    let cases = [
        json!({"role": "user", "content": "plain, 日本語 and 😀"}),
        json!({"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:,"}}, {"type": "input_audio"}, {"type": "file"}, {"type": "text", "text": null}, {"type": "text", "refusal": "r"}]}),
        json!({"role": "user", "content": null, "name": "someone"}),
        json!({"role": "user", "content": null}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "calling"}, {"type": "refusal", "refusal": "no"}, {"type": "text", "text": "", "refusal": "ignored"}], "refusal": "I can't",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "edit", "arguments": "{\"path\":\"a.rs\",\"n\":1.50,\"e\":1e2,\"s\":\"caf\\u00e9 \\/\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "spaced", "arguments": "  { \"a\" : [1, 2] }\n"}},
            {"id": "c3", "type": "function", "function": {"name": "notJson", "arguments": "{broken"}},
            {"id": "c4", "type": "function", "function": {"name": "empty", "arguments": ""}},
            {"id": "c5", "type": "function", "function": {"name": "missing"}},
            {"id": "c6", "type": "function", "function": {"name": "nullArgs", "arguments": null}},
            {"id": "c7", "type": "function", "function": {"name": "repeated", "arguments": "{\"k\":1,\"k\":2}"}},
        ]}),
        json!({"role": "assistant", "content": null, "tool_calls": null, "refusal": null}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "done"}),
        json!({"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}),
        // Read the general way: system texts are joined, legacy function calls and results.
        json!({"role": "system", "content": [{"type": "text", "text": "be"}, {"type": "text", "text": "brief"}]}),
        json!({"role": "developer", "content": "rules"}),
        json!({"role": "assistant", "content": null, "function_call": {"name": "legacy", "arguments": "{}"}}),
        json!({"role": "function", "name": "legacy", "content": "legacy result"}),
    ];
    let text = serde_json::to_string(&cases).unwrap();
    let want = expected(Format::OpenAIChat, &cases, &Heuristic::new()).unwrap();
    assert_eq!(of(&text, Format::OpenAIChat).unwrap().messages, want);
    // Escapes in the body itself: in ids, texts and in the arguments' JSON text.
    let text = r#"[{"role":"assistant","content":"caf\u00e9\n","tool_calls":[{"id":"\u0063\"1","function":{"name":"r\/w","arguments":"{\"s\":\"\\u00e9\\n\",\"x\":[1.50]}"}}]},
        {"role":"tool","tool_call_id":"\u0063\"1","content":[{"type":"text","text":"tab\there"}]}]"#;
    let messages: Vec<Value> = serde_json::from_str(text).unwrap();
    let want = expected(Format::OpenAIChat, &messages, &Heuristic::new()).unwrap();
    assert_eq!(of(text, Format::OpenAIChat).unwrap().messages, want);
}

#[test]
fn bad_openai_chat_messages_give_the_errors_of_the_general_reader() {
    let cases = [
        json!([{"role": "tool", "content": "no id"}]),
        json!([{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}]}]),
        json!([{"role": "assistant", "tool_calls": [{"id": "c"}]}]),
        json!([{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}]),
        json!([{"role": "assistant", "tool_calls": {"id": "c"}}]),
        json!([{"role": "assistant", "refusal": 5}]),
        json!([{"role": "user", "content": [{"type": "video"}]}]),
        json!([{"role": "user", "content": [{"type": "text", "text": 5}]}]),
        json!([{"role": "user", "content": [7]}]),
        json!([{"role": "robot"}]),
    ];
    for case in cases {
        let messages = case.as_array().unwrap();
        let want = expected(Format::OpenAIChat, messages, &Heuristic::new()).unwrap_err();
        let got = of(&case.to_string(), Format::OpenAIChat).unwrap_err();
        assert_eq!(got.to_string(), want.to_string(), "{case}");
    }
}

#[test]
fn anthropic_edge_cases_match_the_general_reader() {
    let cases = [
        json!({"role": "user", "content": "plain, 日本語 and 😀"}),
        json!({"role": "user", "content": [
            {"type": "text", "text": "before"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
            {"type": "tool_result", "tool_use_id": "t1", "content": "plain result"},
            {"type": "tool_result", "tool_use_id": "t2", "is_error": true, "content": [{"type": "text", "text": "failed"}, {"type": "image", "source": {}}, {"type": "document", "source": {}}]},
            {"type": "document", "source": {}},
            {"type": "search_result", "source": "s", "title": "t", "content": []},
            {"type": "text", "text": "after", "cache_control": {"type": "ephemeral"}},
        ]}),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t3"}, {"type": "tool_result", "tool_use_id": "t4", "content": null, "is_error": null}]}),
        json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm\n\nyes", "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque bytes"},
            {"type": "redacted_thinking"},
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "t1", "name": "edit", "input": {"path": "a.rs", "n": 1.5, "list": [1, null, "x"]}},
            {"type": "tool_use", "id": "t2", "name": "noInput"},
            {"type": "tool_use", "id": "t3", "name": "nullInput", "input": null},
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "oslo"}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result", "url": "https://example.com", "title": "Oslo"}]},
            {"type": "web_search_tool_result", "tool_use_id": "s2", "content": {"type": "web_search_tool_result_error", "error_code": "unavailable"}},
            {"type": "code_execution_tool_result", "tool_use_id": "s3", "content": "a string result"},
            {"type": "mcp_tool_result", "tool_use_id": "s4"},
        ]}),
        json!({"role": "assistant", "content": "a string answer"}),
        json!({"role": "assistant", "content": null}),
        // Read the general way: no blocks, so no units.
        json!({"role": "user", "content": []}),
        json!({"role": "user", "content": null}),
    ];
    let text = serde_json::to_string(&cases).unwrap();
    let want = expected(Format::Anthropic, &cases, &Heuristic::new()).unwrap();
    assert_eq!(of(&text, Format::Anthropic).unwrap().messages, want);
    let text = r#"[{"role":"assistant","content":[{"type":"tool_use","id":"\u0074\"1","name":"r\/w","input":{"a":1.50,"s":"\u00e9"}},{"type":"web_search_tool_result","tool_use_id":"s\"1","content":"caf\u00e9\n"}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"\u0074\"1","content":"tab\there"}]}]"#;
    let messages: Vec<Value> = serde_json::from_str(text).unwrap();
    let want = expected(Format::Anthropic, &messages, &Heuristic::new()).unwrap();
    assert_eq!(of(text, Format::Anthropic).unwrap().messages, want);
}

#[test]
fn bad_anthropic_messages_give_the_errors_of_the_general_reader() {
    let cases = [
        json!([{"role": "user", "content": [{"type": "tool_result", "content": "no id"}]}]),
        json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}]}]),
        json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "video"}]}]}]),
        json!([{"role": "user", "content": [{"type": "text", "text": "ok"}, {"type": "video"}]}]),
        json!([{"role": "user", "content": 5}]),
        json!([{"role": "assistant", "content": [{"type": "text", "text": 5}]}]),
        json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]}]),
        json!([{"role": "assistant", "content": [{"type": "web_search_tool_result", "content": []}]}]),
        json!([{"role": "assistant", "content": [{"type": "redacted_thinking", "data": 1}]}]),
        json!([{"role": "system", "content": "no system role here"}]),
    ];
    for case in cases {
        let messages = case.as_array().unwrap();
        let want = expected(Format::Anthropic, messages, &Heuristic::new()).unwrap_err();
        let got = of(&case.to_string(), Format::Anthropic).unwrap_err();
        assert_eq!(got.to_string(), want.to_string(), "{case}");
    }
}

#[test]
fn bad_messages_give_the_errors_of_the_general_reader() {
    let cases = [
        json!([{"role": "robot"}]),
        json!([{"role": "user", "content": "ok"}, {"role": "assistant", "content": [{"type": "toolCall", "name": "x"}]}]),
        json!([{"role": "assistant", "stopReason": "maybe"}]),
        json!([{"role": "toolResult", "toolCallId": "a", "isError": "yes"}]),
        json!([{"role": "toolResult", "toolCallId": 7}]),
        json!([{"role": "user", "content": [{"type": "video"}]}]),
        json!([{"role": "user", "content": 5}]),
        json!([42]),
    ];
    for case in cases {
        let messages = case.as_array().unwrap();
        let want = expected(Format::Canonical, messages, &Heuristic::new()).unwrap_err();
        let got = of(&case.to_string(), Format::Canonical).unwrap_err();
        assert_eq!(got.to_string(), want.to_string(), "{case}");
        assert_eq!(got.code(), "invalid_request");
    }
}

#[test]
fn malformed_bodies_name_the_place() {
    let err = |text: &str| of(text, Format::Canonical).unwrap_err().to_string();
    let e = err(r#"[{"role":"user","content":"a"},]"#);
    assert!(
        e.contains("request: messages: invalid JSON: ") && e.contains("column"),
        "{e}"
    );
    let e = err(r#"[{"role":"user","content":"a"}] x"#);
    assert!(e.contains("request: messages: invalid JSON"), "{e}");
    let e = err("{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",}\n");
    assert!(e.contains("request: messages[1]: invalid JSON: "), "{e}");
    let e = err("{\"role\":\"user\",\"content\":\"a\"} {\"role\":\"user\"}\n");
    assert!(e.contains("request: messages[0]: invalid JSON"), "{e}");
    let e = err("[\"a\u{1}\"]");
    assert!(e.contains("control character"), "{e}");
    let e = body::facts(b"[\"\xff\"]", Format::Canonical, &Heuristic::new())
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("messages: the body is not UTF-8 (at byte 2)"),
        "{e}"
    );
}

fn text_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("word ".to_owned()),
            Just("camelCase".to_owned()),
            Just("12345".to_owned()),
            Just("\n    ".to_owned()),
            Just("\"quoted\\\"".to_owned()),
            Just("é😀".to_owned()),
            Just("{}[],:".to_owned()),
            Just("\t\u{1}".to_owned()),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

fn message_strategy() -> impl Strategy<Value = Value> {
    let arguments = arguments_strategy();
    prop_oneof![
        text_strategy().prop_map(|t| json!({"role": "user", "content": t})),
        (text_strategy(), text_strategy())
            .prop_map(|(a, b)| json!({"role": "user", "content": [{"type": "text", "text": a}, {"type": "image"}, {"type": "text", "text": b}]})),
        (text_strategy(), text_strategy(), arguments)
            .prop_map(|(t, id, args)| json!({"role": "assistant", "stopReason": "toolUse", "content": [{"type": "thinking", "thinking": t}, {"type": "toolCall", "id": id, "name": "read", "arguments": args}]})),
        (text_strategy(), text_strategy())
            .prop_map(|(id, t)| json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": t}], "isError": false})),
    ]
}

/// Tool-call arguments as a value: nothing, a text, or an object of texts, numbers and flags.
fn arguments_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        text_strategy().prop_map(Value::from),
        (text_strategy(), any::<i32>(), any::<bool>())
            .prop_map(|(s, n, b)| json!({"path": s, "n": n, "flags": [b, null], "x": 0.25})),
    ]
}

/// OpenAI Chat messages; arguments as JSON text, or as a text that is not JSON.
fn openai_chat_strategy() -> impl Strategy<Value = Value> {
    let arguments = prop_oneof![
        arguments_strategy().prop_map(|v| Value::from(v.to_string())),
        text_strategy().prop_map(Value::from),
    ];
    prop_oneof![
        text_strategy().prop_map(|t| json!({"role": "user", "content": t})),
        (text_strategy(), text_strategy())
            .prop_map(|(a, b)| json!({"role": "user", "content": [{"type": "text", "text": a}, {"type": "image_url", "image_url": {"url": "u"}}, {"type": "text", "text": b}]})),
        (text_strategy(), text_strategy(), arguments)
            .prop_map(|(t, id, args)| json!({"role": "assistant", "content": t, "tool_calls": [{"id": id, "type": "function", "function": {"name": "read", "arguments": args}}]})),
        (text_strategy(), text_strategy())
            .prop_map(|(id, t)| json!({"role": "tool", "tool_call_id": id, "content": [{"type": "text", "text": t}]})),
        text_strategy().prop_map(|t| json!({"role": "system", "content": t})),
    ]
}

/// Anthropic messages: runs of text and tool results in a user message, tool uses and server
/// tools' results in an assistant one.
fn anthropic_strategy() -> impl Strategy<Value = Value> {
    let user_block = prop_oneof![
        text_strategy().prop_map(|t| json!({"type": "text", "text": t})),
        Just(json!({"type": "image", "source": {}})),
        (text_strategy(), text_strategy())
            .prop_map(|(id, t)| json!({"type": "tool_result", "tool_use_id": id, "content": t})),
        (text_strategy(), any::<bool>())
            .prop_map(|(id, e)| json!({"type": "tool_result", "tool_use_id": id, "is_error": e, "content": [{"type": "text", "text": "x"}]})),
    ];
    let assistant_block = prop_oneof![
        text_strategy().prop_map(|t| json!({"type": "text", "text": t})),
        text_strategy().prop_map(|t| json!({"type": "thinking", "thinking": t})),
        (text_strategy(), arguments_strategy())
            .prop_map(|(id, input)| json!({"type": "tool_use", "id": id, "name": "read", "input": input})),
        (text_strategy(), arguments_strategy())
            .prop_map(|(id, content)| json!({"type": "web_search_tool_result", "tool_use_id": id, "content": content})),
    ];
    prop_oneof![
        text_strategy().prop_map(|t| json!({"role": "user", "content": t})),
        prop::collection::vec(user_block, 0..5).prop_map(|b| json!({"role": "user", "content": b})),
        prop::collection::vec(assistant_block, 0..5)
            .prop_map(|b| json!({"role": "assistant", "content": b})),
    ]
}

/// Reading `messages` from bytes, as an array and as JSON lines, gives the general facts.
fn reads_the_same(format: Format, messages: &[Value]) -> std::result::Result<(), TestCaseError> {
    let want = expected(format, messages, &Heuristic::new()).unwrap();
    let text = serde_json::to_string(messages).unwrap();
    prop_assert_eq!(&of(&text, format).unwrap().messages, &want);
    let jsonl: Vec<String> = messages.iter().map(Value::to_string).collect();
    prop_assert_eq!(&of(&jsonl.join("\n"), format).unwrap().messages, &want);
    Ok(())
}

proptest! {
    #[test]
    fn generated_messages_read_the_same_from_bytes(messages in prop::collection::vec(message_strategy(), 0..8)) {
        reads_the_same(Format::Canonical, &messages)?;
    }

    #[test]
    fn generated_openai_chat_messages_read_the_same_from_bytes(messages in prop::collection::vec(openai_chat_strategy(), 0..8)) {
        reads_the_same(Format::OpenAIChat, &messages)?;
    }

    #[test]
    fn generated_anthropic_messages_read_the_same_from_bytes(messages in prop::collection::vec(anthropic_strategy(), 0..8)) {
        reads_the_same(Format::Anthropic, &messages)?;
    }
}

#[test]
fn a_message_without_content_is_an_error_naming_it() {
    for format in [
        Format::Canonical,
        Format::OpenAIChat,
        Format::Anthropic,
        Format::AiSdk,
    ] {
        let e = of(r#"[{"role":"user","content":"a"},{"role":"user","parts":[{"type":"text","text":"hi"}]}]"#, format)
            .unwrap_err();
        assert_eq!(e.code(), "invalid_request");
        assert!(
            e.to_string()
                .contains("messages[1].content: missing (the message has `parts`"),
            "{format:?}: {e}"
        );
    }
    // An OpenAI assistant message with tool calls may leave its content out.
    let calls = r#"[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]"#;
    assert!(of(calls, Format::OpenAIChat).is_ok());
    // OpenAI Responses: a message item (typed or not) needs its content, other items do not,
    // and a message's unknown role is reported before its missing content.
    let responses = |text: &str| of(text, Format::OpenAIResponses).map_err(|e| e.to_string());
    for item in [
        r#"{"type":"message","role":"user","parts":[]}"#,
        r#"{"role":"assistant","parts":[]}"#,
    ] {
        let e = responses(&format!("[{item}]")).unwrap_err();
        assert!(
            e.contains("messages[0].content: missing (the message has `parts`"),
            "{item}: {e}"
        );
    }
    let e = responses(r#"[{"type":"message","role":"robot"}]"#).unwrap_err();
    assert!(e.contains("messages[0].role: unknown role"), "{e}");
    let items = r#"[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"},{"type":"reasoning","summary":[]}]"#;
    assert!(responses(items).is_ok());
}

#[test]
fn numbers_read_as_json_parse_reads_them() {
    let call = |args: &str| {
        format!(
            r#"[{{"role":"assistant","content":[{{"type":"toolCall","id":"a","name":"f","arguments":{{"n":{args}}}}}]}}]"#
        )
    };
    let facts = |args: &str| of(&call(args), Format::Canonical).unwrap().messages;
    assert_eq!(facts("1e999"), facts("null"));
    assert_eq!(facts(&"9".repeat(400)), facts("null"));
    assert_eq!(facts("1.0"), facts("1"));
    assert_eq!(facts("1e2"), facts("100"));
    assert_eq!(facts("-0"), facts("0"));
    // Any other estimator counts the texts of the units made from the bytes: the same numbers.
    let counted = |args: &str| {
        body::facts(call(args).as_bytes(), Format::Canonical, &Plain)
            .unwrap()
            .messages
    };
    assert_eq!(counted("1e999"), counted("null"));
    assert_eq!(counted("1.0"), counted("1"));
    assert_eq!(counted("1e2"), counted("100"));
    assert_eq!(counted("-0"), counted("0"));
}
