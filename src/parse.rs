//! Reading canonical messages and tool definitions from JSON, with errors that name the place.
//!
//! Messages are read by the canonical format's reader (`formats`); unknown extra fields are
//! ignored, and anything the planner relies on (roles, block types, ids) is checked, so that bad
//! input becomes an `invalid_request` error rather than a wrong plan.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::formats::Format;
use crate::message::{Message, ToolDefinition};

/// Reads a JSON array of canonical messages; errors name `messages[i]…`.
pub fn messages(value: &Value) -> Result<Vec<Message>> {
    let items = value
        .as_array()
        .ok_or_else(|| invalid("messages", "expected an array"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| message(item, &format!("messages[{i}]")))
        .collect()
}

/// Reads one canonical message; `path` names it in errors.
pub fn message(value: &Value, path: &str) -> Result<Message> {
    let mut units = Format::Canonical.read(value, path)?.units;
    // A canonical message is exactly one unit.
    units
        .pop()
        .ok_or_else(|| invalid(path, "expected a message"))
}

/// Reads a JSON array of tool definitions `{ name, description?, parameters? }`.
pub fn tools(value: &Value) -> Result<Vec<ToolDefinition>> {
    tools_of(value.clone())
}

/// [`tools`] of a value the caller gives up: each definition's parameters are moved out of it
/// rather than copied (the bindings read tools into a value of their own; with no copy, the
/// module carries no code to clone `serde_json` values).
pub(crate) fn tools_of(value: Value) -> Result<Vec<ToolDefinition>> {
    let Value::Array(items) = value else {
        return Err(invalid("tools", "expected an array"));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let path = format!("tools[{i}]");
            let mut object = match item {
                Value::Object(object) => object,
                other => return Err(not_object(&other, &path)),
            };
            // OpenAI Chat Completions nests the definition under `function`.
            if let Some(Value::Object(function)) = object.get_mut("function") {
                object = std::mem::take(function);
            }
            let name = required_str(&object, "name", &path)?.to_owned();
            let description = optional_str(&object, "description", &path)?
                .unwrap_or_default()
                .to_owned();
            // `parameters` (OpenAI, pi-ai), `input_schema` (Anthropic), `inputSchema` (AI SDK).
            let key = ["parameters", "input_schema", "inputSchema"]
                .into_iter()
                .find(|key| object.contains_key(*key));
            let parameters = key
                .and_then(|key| object.get_mut(key))
                .map_or(Value::Null, Value::take);
            Ok(ToolDefinition {
                name,
                description,
                parameters,
            })
        })
        .collect()
}

fn not_object(value: &Value, path: &str) -> Error {
    invalid(path, &format!("expected an object, got {}", kind(value)))
}

fn required_str<'a>(object: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str> {
    optional_str(object, key, path)?
        .ok_or_else(|| invalid(&format!("{path}.{key}"), "missing (expected a string)"))
}

fn optional_str<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(invalid(
            &format!("{path}.{key}"),
            &format!("expected a string, got {}", kind(other)),
        )),
    }
}

/// How a JSON value is described in errors ("a number", "an array", …).
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn invalid(path: &str, what: &str) -> Error {
    Error::invalid_request(format!("{path}: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ContentBlock, UserMessage};
    use serde_json::json;

    fn error_of(value: Value) -> String {
        messages(&value).unwrap_err().to_string()
    }

    #[test]
    fn reads_every_canonical_shape() {
        let parsed = messages(&json!([
            {"role": "user", "content": "hi", "timestamp": 1},
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "AAA", "mimeType": "image/png"}]},
            {"role": "assistant", "stopReason": "toolUse", "usage": {"input": 1}, "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                {"type": "text", "text": "ok"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.rs"}}
            ]},
            {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "fn"}], "isError": false}
        ]))
        .unwrap();
        assert_eq!(parsed.len(), 4);
        assert_eq!(
            parsed[1],
            Message::User(UserMessage {
                content: vec![ContentBlock::Text("a".into()), ContentBlock::Image]
            })
        );
        assert_eq!(parsed[2].calls().count(), 1);
        assert!(matches!(&parsed[3], Message::ToolResult(r) if r.tool_call_id == "c1"));
    }

    #[test]
    fn errors_name_the_place() {
        let err = error_of(
            json!([{"role": "user", "content": "x"}, {"role": "assistant", "content": [
                {"type": "text", "text": "a"}, {"type": "foo"}
            ]}]),
        );
        assert!(
            err.contains(r#"messages[1].content[1].type: unknown block type "foo""#),
            "{err}"
        );
        let err = error_of(json!([{"role": "robot"}]));
        assert!(
            err.contains("messages[0].role: unknown role \"robot\""),
            "{err}"
        );
        let err = error_of(json!([{"role": "toolResult", "content": []}]));
        assert!(err.contains("messages[0].toolCallId: missing"), "{err}");
        let err = error_of(json!([{"role": "assistant", "stopReason": "maybe"}]));
        assert!(err.contains("messages[0].stopReason"), "{err}");
        let err = error_of(json!([42]));
        assert!(
            err.contains("messages[0]: expected an object, got a number"),
            "{err}"
        );
        let err = error_of(json!({"role": "user"}));
        assert!(err.contains("messages: expected an array"), "{err}");
        let err = error_of(json!([{"role": "toolResult", "toolCallId": "a", "isError": "yes"}]));
        assert!(
            err.contains("messages[0].isError: expected a boolean"),
            "{err}"
        );
    }

    #[test]
    fn reads_tools() {
        let parsed = tools(&json!([{"name": "read", "description": "Read a file",
            "parameters": {"type": "object"}}, {"name": "bash"}]))
        .unwrap();
        assert_eq!(parsed[0].description, "Read a file");
        assert_eq!(parsed[1].parameters, Value::Null);
        let err = tools(&json!([{"description": "x"}]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("tools[0].name: missing"), "{err}");
    }
}
