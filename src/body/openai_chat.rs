//! Facts of OpenAI Chat Completions messages read straight from a scanned body, mirroring
//! `formats::openai_chat` and `MessageFacts::of_host`: user, assistant and tool messages.
//! System and developer messages (their texts joined), legacy function calls and results, and
//! anything the adapter would reject or read differently give `None`, and the caller reads that
//! message the general way (for the same facts or the same error).

use super::count::{Counter, arguments_text_score};
use super::parts::{framed, optional_string, parts};
use crate::facts::{MessageFacts, Role};
use crate::token::{Estimator, rounded};
use context_compaction_scan::{Kind, Val};

const ATTACHMENTS: [&str; 3] = ["image_url", "input_audio", "file"];

/// The facts of one OpenAI Chat message, or `None` to read it the general way.
pub(super) fn facts(message: Val, counter: &Counter) -> Option<MessageFacts> {
    let [role, content, refusal, calls, legacy, result_id] = message.fields([
        "role",
        "content",
        "refusal",
        "tool_calls",
        "function_call",
        "tool_call_id",
    ]);
    let role = role?;
    let mut facts = framed(counter, Role::User, true);
    if role.is("user") {
        facts.tokens += parts(content, &["text"], &ATTACHMENTS, counter)?;
    } else if role.is("assistant") {
        facts.role = Role::Assistant;
        facts.starts_turn = false;
        if legacy.is_some_and(|v| !v.is_null()) {
            return None;
        }
        facts.tokens += parts(content, &["text", "refusal"], &[], counter)?;
        facts.tokens += optional_string(refusal)?.map_or(0, |text| counter.text(text));
        facts.tokens += tool_calls(calls, counter, &mut facts.tool_call_ids)?;
    } else if role.is("tool") {
        facts.role = Role::ToolResult;
        facts.starts_turn = false;
        let id = result_id.filter(|v| !v.is_null())?.str()?;
        facts.tool_result_ids.push(id.into_owned());
        facts.tokens += parts(content, &["text"], &[], counter)?;
    } else {
        return None;
    }
    Some(facts)
}

/// Each call's framing, name and arguments; the arguments are JSON text, counted as the value
/// it holds (or as the text when it is not JSON), as the adapter parses them.
fn tool_calls(calls: Option<Val>, counter: &Counter, ids: &mut Vec<String>) -> Option<u64> {
    let Some(calls) = calls.filter(|v| !v.is_null()) else {
        return Some(0);
    };
    if calls.kind() != Kind::Array {
        return None;
    }
    let mut tokens = 0;
    for call in calls.children() {
        let [id, function] = call.fields(["id", "function"]);
        let id = id.filter(|v| !v.is_null())?.str()?;
        let function = function.filter(|v| v.kind() == Kind::Object)?;
        let [name, arguments] = function.fields(["name", "arguments"]);
        let name = name.filter(|v| v.kind() == Kind::String)?;
        let arguments = optional_string(arguments)?.and_then(|text| text.str());
        let arguments = arguments.as_deref().unwrap_or("");
        let arguments = rounded(arguments_text_score(arguments));
        tokens += counter.heuristic.framing_tokens() + counter.text(name) + arguments;
        ids.push(id.into_owned());
    }
    Some(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Format;

    #[test]
    fn usual_messages_are_read_directly_with_the_facts_of_the_adapter() {
        super::super::parts::assert_read_directly(
            Format::OpenAIChat,
            facts,
            &[
                r#"{"role":"user","content":"hello"}"#,
                r#"{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"u"}}]}"#,
                r#"{"role":"assistant","content":"sure","refusal":"but","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.rs\"}"}}]}"#,
                r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"f","arguments":"not json"}}]}"#,
                r#"{"role":"tool","tool_call_id":"c1","content":"fn main() {}"}"#,
            ],
        );
    }
}
