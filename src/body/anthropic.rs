//! Facts of Anthropic Messages read straight from a scanned body, mirroring
//! `formats::anthropic` and `MessageFacts::of_host`. One host message may hold several units,
//! each framed: a user message's runs of text and attachments and each of its tool results; an
//! assistant message and the results of server tools in it. Anything the adapter would reject
//! or read differently (and a user message without blocks, which has no units) gives `None`,
//! and the caller reads that message the general way.

use super::count::Counter;
use super::parts::{optional_string, parts, required_text};
use crate::facts::{MessageFacts, Role};
use crate::token::Estimator;
use context_compaction_scan::{Kind, Val};

const ATTACHMENTS: [&str; 3] = ["image", "document", "search_result"];

/// The facts of one Anthropic message, or `None` to read it the general way.
pub(super) fn facts(message: Val, counter: &Counter) -> Option<MessageFacts> {
    let [role, content] = message.fields(["role", "content"]);
    let role = role?;
    let content = content.filter(|v| !v.is_null());
    let mut facts = MessageFacts {
        tokens: counter.heuristic.framing_tokens(),
        role: Role::Assistant,
        starts_turn: false,
        tool_call_ids: Vec::new(),
        tool_result_ids: Vec::new(),
    };
    if role.is("user") {
        user(content?, counter, &mut facts)?;
    } else if role.is("assistant") {
        assistant(content, counter, &mut facts)?;
    } else {
        return None;
    }
    Some(facts)
}

/// A user message: a string, or blocks. Only tool results make a tool-result message, which
/// does not start a turn.
fn user(content: Val, counter: &Counter, facts: &mut MessageFacts) -> Option<()> {
    facts.role = Role::User;
    facts.starts_turn = true;
    if content.kind() == Kind::String {
        facts.tokens += counter.text(content);
        return Some(());
    }
    if content.kind() != Kind::Array {
        return None;
    }
    let framing = counter.heuristic.framing_tokens();
    let (mut units, mut in_user_unit, mut user_units) = (0, false, 0);
    for block in content.children() {
        let kind = block.field("type")?;
        let result = kind.is("tool_result");
        // The first unit is framed above.
        if (result || !in_user_unit) && units > 0 {
            facts.tokens += framing;
        }
        units += 1;
        if !result && !in_user_unit {
            user_units += 1;
        }
        in_user_unit = !result;
        facts.tokens += if result {
            tool_result(block, counter, facts)?
        } else if kind.is("text") {
            required_text(block, "text", counter)?
        } else if ATTACHMENTS.iter().any(|t| kind.is(t)) {
            counter.heuristic.image_tokens()
        } else {
            return None;
        };
    }
    match (units, user_units) {
        (0, _) => None,
        (_, 0) => {
            facts.role = Role::ToolResult;
            facts.starts_turn = false;
            Some(())
        }
        _ => Some(()),
    }
}

fn tool_result(block: Val, counter: &Counter, facts: &mut MessageFacts) -> Option<u64> {
    let [id, content, is_error] = block.fields(["tool_use_id", "content", "is_error"]);
    let id = id.filter(|v| !v.is_null())?.str()?;
    if is_error.is_some_and(|v| !v.is_null() && v.kind() != Kind::Bool) {
        return None;
    }
    facts.tool_result_ids.push(id.into_owned());
    parts(content, &["text"], &ATTACHMENTS, counter)
}

/// An assistant message: a string, or blocks; server tools' results are units of their own.
fn assistant(content: Option<Val>, counter: &Counter, facts: &mut MessageFacts) -> Option<()> {
    let Some(content) = content else {
        return Some(());
    };
    if content.kind() == Kind::String {
        facts.tokens += counter.text(content);
        return Some(());
    }
    if content.kind() != Kind::Array {
        return None;
    }
    let framing = counter.heuristic.framing_tokens();
    for block in content.children() {
        let kind = block.field("type")?;
        facts.tokens += if kind.is("text") {
            required_text(block, "text", counter)?
        } else if kind.is("thinking") {
            required_text(block, "thinking", counter)?
        } else if kind.is("redacted_thinking") {
            optional_string(block.get("data"))?.map_or(0, |data| counter.text(data))
        } else {
            let kind = kind.str()?;
            let [id, name, input, result_id, result] =
                block.fields(["id", "name", "input", "tool_use_id", "content"]);
            if kind == "tool_use" || kind.ends_with("_tool_use") {
                let id = id.filter(|v| !v.is_null())?.str()?;
                let name = name.filter(|v| v.kind() == Kind::String)?;
                facts.tool_call_ids.push(id.into_owned());
                framing + counter.text(name) + compact(input, counter)?
            } else if kind.ends_with("_tool_result") {
                let id = result_id.filter(|v| !v.is_null())?.str()?;
                facts.tool_result_ids.push(id.into_owned());
                framing + json_text(result, counter)?
            } else {
                return None;
            }
        };
    }
    Some(())
}

/// The tokens of a value as compact JSON; a missing one is `null`, one word.
fn compact(value: Option<Val>, counter: &Counter) -> Option<u64> {
    match value.filter(|v| !v.is_null()) {
        Some(value) => counter.compact(value),
        None => Some(1),
    }
}

/// The tokens of a value as a text: a string as it is, anything else as its compact JSON.
fn json_text(value: Option<Val>, counter: &Counter) -> Option<u64> {
    match value {
        Some(text) if text.kind() == Kind::String => Some(counter.text(text)),
        other => compact(other, counter),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;
    use crate::token::Heuristic;
    use context_compaction_scan as tape;

    #[test]
    fn usual_messages_are_read_directly_with_the_facts_of_the_adapter() {
        let counter = Counter {
            heuristic: Heuristic::new(),
        };
        for text in [
            r#"{"role":"user","content":"hello"}"#,
            r#"{"role":"user","content":[{"type":"text","text":"see"},{"type":"image","source":{}},{"type":"tool_result","tool_use_id":"t0","content":"ok"},{"type":"text","text":"and"}]}"#,
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"}],"is_error":true},{"type":"tool_result","tool_use_id":"t2"}]}"#,
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"redacted_thinking","data":"x"},{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"read","input":{"path":"a.rs"}}]}"#,
            r#"{"role":"assistant","content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{"q":"x"}},{"type":"web_search_tool_result","tool_use_id":"s1","content":[{"url":"u"}]},{"type":"mcp_tool_result","tool_use_id":"s2","content":"text"}]}"#,
            r#"{"role":"assistant","content":"plain"}"#,
            r#"{"role":"assistant"}"#,
        ] {
            let mut nodes = Vec::new();
            tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
            let direct = facts(Val::root(text, &nodes), &counter);
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            let host = Format::Anthropic.read(&value, "m").unwrap();
            let general = MessageFacts::of_host(&host, &Heuristic::new()).unwrap();
            assert_eq!(direct, Some(general), "{text}");
        }
    }
}
