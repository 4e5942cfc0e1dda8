//! Reading canonical messages and tool definitions from JSON text, with errors that name the
//! place.
//!
//! Messages are read by the canonical format's reader (`formats`); unknown extra fields are
//! ignored, and anything the planner relies on (roles, block types, ids) is checked, so that bad
//! input becomes an `invalid_request` error rather than a wrong plan.

use context_compaction_scan::{Kind, Val};

use crate::error::{Error, Result};
use crate::formats::{Format, Path, Units, scan};
use crate::json::Json;
use crate::message::{Message, ToolDefinition};

/// Reads a JSON array of canonical messages; errors name `messages[i]…`.
pub fn messages(text: &str) -> Result<Vec<Message>> {
    let mut nodes = Vec::new();
    let tape = scan(text, "messages", &mut nodes)?;
    let value = tape.root();
    if value.kind() != Kind::Array {
        return Err(invalid("messages", "expected an array"));
    }
    value
        .children()
        .enumerate()
        .map(|(i, item)| read_message(item, &text!("messages[", i, "]")))
        .collect()
}

/// Reads one canonical message from its JSON text; `path` names it in errors.
pub fn message(text: &str, path: &str) -> Result<Message> {
    let mut nodes = Vec::new();
    read_message(scan(text, path, &mut nodes)?.root(), path)
}

fn read_message(value: Val, path: &str) -> Result<Message> {
    let mut units = Units::default();
    Format::Canonical.read_into(value, Path::root(path), &mut units)?;
    // A canonical message is exactly one unit.
    (units.finish().units.pop()).ok_or_else(|| invalid(path, "expected a message"))
}

/// Reads a JSON array of tool definitions `{ name, description?, parameters? }` from its JSON
/// text.
pub fn tools(text: &str) -> Result<Vec<ToolDefinition>> {
    tools_at(text, "tools")
}

/// [`tools`], with `label` naming the text in errors of its JSON (`request.tools`).
pub(crate) fn tools_at(text: &str, label: &str) -> Result<Vec<ToolDefinition>> {
    // Read as serde_json read it (one entry per key, its numbers), so that a definition's
    // parameters are that value's text, written once.
    let json = Json::parse(text).map_err(|e| invalid(label, &text!(e)))?;
    let mut nodes = Vec::new();
    let tape = scan(json.as_str(), label, &mut nodes)?;
    let value = tape.root();
    if value.kind() != Kind::Array {
        return Err(invalid("tools", "expected an array"));
    }
    value
        .children()
        .enumerate()
        .map(|(i, item)| tool(item, &text!("tools[", i, "]")))
        .collect()
}

fn tool(item: Val, path: &str) -> Result<ToolDefinition> {
    if item.kind() != Kind::Object {
        let what = text!("expected an object, got ", crate::formats::describe(item));
        return Err(invalid(path, &what));
    }
    // OpenAI Chat Completions nests the definition under `function`.
    let object = item
        .get("function")
        .filter(|function| function.kind() == Kind::Object)
        .unwrap_or(item);
    let name = string(object, "name", path)?
        .ok_or_else(|| invalid(&text!(path, ".name"), "missing (expected a string)"))?;
    let description = string(object, "description", path)?.unwrap_or_default();
    // `parameters` (OpenAI, pi-ai), `input_schema` (Anthropic), `inputSchema` (AI SDK).
    let parameters = ["parameters", "input_schema", "inputSchema"]
        .into_iter()
        .find_map(|key| object.get(key))
        .map_or_else(Json::null, Json::of_compact);
    Ok(ToolDefinition {
        name,
        description,
        parameters,
    })
}

/// The string at `key` of `object` (`null` read as missing).
fn string(object: Val, key: &str, path: &str) -> Result<Option<String>> {
    match object.field(key) {
        None => Ok(None),
        Some(value) => match value.str() {
            Some(text) => Ok(Some(text.into_owned())),
            None => Err(invalid(
                &text!(path, ".", key),
                &text!("expected a string, got ", crate::formats::describe(value)),
            )),
        },
    }
}

fn invalid(path: &str, what: &str) -> Error {
    Error::invalid_request(text!(path, ": ", what))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ContentBlock, UserMessage};
    use serde_json::{Value, json};

    fn error_of(value: Value) -> String {
        messages(&value.to_string()).unwrap_err().to_string()
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
        ])
        .to_string())
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
        let parsed = tools(
            r#"[{"name": "read", "description": "Read a file",
            "parameters": {"type": "object", "n": 1e2, "type": "x"}}, {"name": "bash"},
            {"function": {"name": "f", "inputSchema": null}}]"#,
        )
        .unwrap();
        assert_eq!(parsed[0].description, "Read a file");
        assert_eq!(parsed[0].parameters.as_str(), r#"{"type":"x","n":100.0}"#);
        assert_eq!(parsed[1].parameters, Json::null());
        assert_eq!(
            (parsed[2].name.as_str(), parsed[2].parameters.is_null()),
            ("f", true)
        );
        let err = |text: &str| tools(text).unwrap_err().to_string();
        assert!(err(r#"[{"description": "x"}]"#).contains("tools[0].name: missing"));
        assert!(err(r#"[{"name": 1}]"#).contains("tools[0].name: expected a string, got a number"));
        assert!(err("[3]").contains("tools[0]: expected an object, got a number"));
        assert!(err("{}").contains("tools: expected an array"));
        assert_eq!(
            err("[1,]"),
            "invalid request: tools: trailing comma at line 1 column 4"
        );
        let text = r#"[{"name": "a", "x": 1e999}]"#;
        let serde = crate::json::oracle::serde_value(text).unwrap_err();
        assert_eq!(err(text), format!("invalid request: tools: {serde}"));
    }
}
