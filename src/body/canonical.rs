//! Facts of canonical messages read straight from a scanned body, mirroring `parse::message`
//! and `MessageFacts::of`. Anything that reader would reject, or read differently, gives
//! `None`, and the caller reads that message through it instead (for the same facts or the
//! same error).

use super::count::Counter;
use super::parts::{blocks, framed, required_text};
use crate::facts::{MessageFacts, Role};
use crate::token::Estimator;
use context_compaction_scan::{Kind, Val};

/// The facts of one canonical message, or `None` to read it the general way.
pub(super) fn facts(message: Val, counter: &Counter) -> Option<MessageFacts> {
    let [role, content, stop, is_error, tool_name, tool_call_id] = message.fields([
        "role",
        "content",
        "stopReason",
        "isError",
        "toolName",
        "toolCallId",
    ]);
    let role = role?;
    let mut facts = framed(counter, Role::User, false);
    if role.is("user") {
        facts.starts_turn = true;
        facts.tokens += self::content(content, counter)?;
    } else if role.is("assistant") {
        facts.role = Role::Assistant;
        stop_reason(stop)?;
        facts.tokens += assistant_content(content, counter, &mut facts)?;
    } else if role.is("toolResult") {
        facts.role = Role::ToolResult;
        optional(is_error, Kind::Bool)?;
        optional(tool_name, Kind::String)?;
        let id = tool_call_id.filter(|v| !v.is_null())?.str()?;
        facts.tool_result_ids.push(id.into_owned());
        facts.tokens += self::content(content, counter)?;
    } else {
        return None;
    }
    Some(facts)
}

/// `Some` when `value` is missing, `null` or of `kind`.
fn optional(value: Option<Val>, kind: Kind) -> Option<()> {
    match value {
        Some(v) if !v.is_null() && v.kind() != kind => None,
        _ => Some(()),
    }
}

fn stop_reason(value: Option<Val>) -> Option<()> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Some(());
    };
    let text = value.str()?;
    ["stop", "length", "toolUse", "error", "aborted"]
        .contains(&text.as_ref())
        .then_some(())
}

/// The tokens of user or tool-result content: a string, or text and image blocks.
fn content(value: Option<Val>, counter: &Counter) -> Option<u64> {
    blocks(value, counter, &mut |block, kind| {
        if kind.is("text") {
            required_text(block, "text", counter)
        } else if kind.is("image") {
            Some(counter.heuristic.image_tokens())
        } else {
            None
        }
    })
}

fn assistant_content(
    value: Option<Val>,
    counter: &Counter,
    facts: &mut MessageFacts,
) -> Option<u64> {
    blocks(value, counter, &mut |block, kind| {
        if kind.is("text") {
            required_text(block, "text", counter)
        } else if kind.is("thinking") {
            required_text(block, "thinking", counter)
        } else if kind.is("toolCall") {
            let id = block.field("id")?.str()?;
            let name = required_text(block, "name", counter)?;
            let arguments = match block.get("arguments") {
                Some(arguments) => counter.compact(arguments)?,
                // A missing value is written as `null`: one word.
                None => 1,
            };
            facts.tool_call_ids.push(id.into_owned());
            Some(counter.heuristic.framing_tokens() + name + arguments)
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::Heuristic;
    use context_compaction_scan as tape;

    #[test]
    fn every_message_of_the_real_session_is_read_directly() {
        let counter = Counter {
            heuristic: Heuristic::new(),
        };
        let mut nodes = Vec::new();
        let mut read = 0;
        for line in include_str!("../../tests/fixtures/large-session.jsonl").lines() {
            let Some(at) = line.find(r#""message":{"#) else {
                continue;
            };
            let start = at + r#""message":"#.len();
            tape::value(line.as_bytes(), start, &mut nodes).unwrap();
            assert!(facts(Val::root(line, &nodes), &counter).is_some(), "{line}");
            read += 1;
        }
        assert!(read > 900);
    }
}
