//! Facts of Anthropic Messages read straight from a scanned body, mirroring
//! `formats::anthropic` and `MessageFacts::of_host`. One host message may hold several units,
//! each framed: a user message's runs of text and attachments and each of its tool results; an
//! assistant message and the results of server tools in it. Anything the adapter would reject
//! or read differently (and a user message without blocks, which has no units) gives `None`,
//! and the caller reads that message the general way.

use super::count::Counter;
use super::parts::{blocks, framed, optional_string, parts, required_text};
use crate::facts::{MessageFacts, Role};
use crate::token::Estimator;
use context_compaction_scan::{Kind, Val};

const ATTACHMENTS: [&str; 3] = ["image", "document", "search_result"];

/// The facts of one Anthropic message, or `None` to read it the general way.
pub(super) fn facts(message: Val, counter: &Counter) -> Option<MessageFacts> {
    let [role, content] = message.fields(["role", "content"]);
    let role = role?;
    if role.is("user") {
        user(content.filter(|v| !v.is_null())?, counter)
    } else if role.is("assistant") {
        assistant(content, counter)
    } else {
        None
    }
}

/// A user message: a string, or blocks. Only tool results make a tool-result message, which
/// does not start a turn.
fn user(content: Val, counter: &Counter) -> Option<MessageFacts> {
    let mut facts = framed(counter, Role::User, true);
    if content.kind() == Kind::String {
        facts.tokens += counter.text(content);
        return Some(facts);
    }
    let framing = counter.heuristic.framing_tokens();
    let (mut units, mut user_units, mut in_user_unit) = (0, 0, false);
    let ids = &mut facts.tool_result_ids;
    facts.tokens += blocks(Some(content), counter, &mut |block, kind| {
        let result = kind.is("tool_result");
        // Each run of text and attachments is a unit, and so is each tool result; the first
        // unit is framed above.
        let starts_unit = result || !in_user_unit;
        let framed = if starts_unit && units > 0 { framing } else { 0 };
        units += usize::from(starts_unit);
        user_units += usize::from(starts_unit && !result);
        in_user_unit = !result;
        let tokens = if result {
            tool_result(block, counter, ids)?
        } else if kind.is("text") {
            required_text(block, "text", counter)?
        } else if ATTACHMENTS.iter().any(|t| kind.is(t)) {
            counter.heuristic.image_tokens()
        } else {
            return None;
        };
        Some(framed + tokens)
    })?;
    match (units, user_units) {
        // No blocks: no units, which the general reader reads.
        (0, _) => None,
        (_, 0) => {
            facts.role = Role::ToolResult;
            facts.starts_turn = false;
            Some(facts)
        }
        _ => Some(facts),
    }
}

fn tool_result(block: Val, counter: &Counter, ids: &mut Vec<String>) -> Option<u64> {
    let [id, content, is_error] = block.fields(["tool_use_id", "content", "is_error"]);
    let id = id.filter(|v| !v.is_null())?.str()?;
    if is_error.is_some_and(|v| !v.is_null() && v.kind() != Kind::Bool) {
        return None;
    }
    ids.push(id.into_owned());
    parts(content, &["text"], &ATTACHMENTS, counter)
}

/// An assistant message: a string, or blocks; server tools' results are units of their own.
fn assistant(content: Option<Val>, counter: &Counter) -> Option<MessageFacts> {
    let mut facts = framed(counter, Role::Assistant, false);
    let framing = counter.heuristic.framing_tokens();
    let (calls, results) = (&mut facts.tool_call_ids, &mut facts.tool_result_ids);
    facts.tokens += blocks(content, counter, &mut |block, kind| {
        if kind.is("text") {
            return required_text(block, "text", counter);
        } else if kind.is("thinking") {
            return required_text(block, "thinking", counter);
        } else if kind.is("redacted_thinking") {
            return Some(optional_string(block.get("data"))?.map_or(0, |data| counter.text(data)));
        }
        let kind = kind.str()?;
        let [id, name, input, result_id, result] =
            block.fields(["id", "name", "input", "tool_use_id", "content"]);
        if kind == "tool_use" || kind.ends_with("_tool_use") {
            let id = id.filter(|v| !v.is_null())?.str()?;
            let name = name.filter(|v| v.kind() == Kind::String)?;
            calls.push(id.into_owned());
            Some(framing + counter.text(name) + compact(input, counter)?)
        } else if kind.ends_with("_tool_result") {
            let id = result_id.filter(|v| !v.is_null())?.str()?;
            results.push(id.into_owned());
            Some(framing + json_text(result, counter)?)
        } else {
            None
        }
    })?;
    Some(facts)
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

    #[test]
    fn usual_messages_are_read_directly_with_the_facts_of_the_adapter() {
        super::super::parts::assert_read_directly(
            Format::Anthropic,
            facts,
            &[
                r#"{"role":"user","content":"hello"}"#,
                r#"{"role":"user","content":[{"type":"text","text":"see"},{"type":"image","source":{}},{"type":"tool_result","tool_use_id":"t0","content":"ok"},{"type":"text","text":"and"}]}"#,
                r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"}],"is_error":true},{"type":"tool_result","tool_use_id":"t2"}]}"#,
                r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"redacted_thinking","data":"x"},{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"read","input":{"path":"a.rs"}}]}"#,
                r#"{"role":"assistant","content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{"q":"x"}},{"type":"web_search_tool_result","tool_use_id":"s1","content":[{"url":"u"}]},{"type":"mcp_tool_result","tool_use_id":"s2","content":"text"}]}"#,
                r#"{"role":"assistant","content":"plain"}"#,
            ],
        );
    }
}
