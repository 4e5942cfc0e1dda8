//! OpenAI Chat Completions messages: `system`/`developer`, `user`, `assistant` (content,
//! `tool_calls`, `refusal`, legacy `function_call`), `tool` and legacy `function`.

use std::borrow::Cow;

use super::object::Obj;
use super::sink::{Args, Joined, Shape, Sink, Spot, Text, Unit};
use crate::error::Result;

const ATTACHMENTS: [&str; 3] = ["image_url", "input_audio", "file"];

/// The top-level keys `read` looks at.
pub(super) const KEYS: &[&str] = &[
    "role",
    "content",
    "refusal",
    "tool_calls",
    "function_call",
    "tool_call_id",
    "name",
    "parts",
];

pub(super) fn read<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    match r.required_str("role")?.as_ref() {
        "system" | "developer" => {
            let mut joined = Joined::default();
            r.content("content", &["text"], &[], &mut joined)?;
            sink.system(joined.text());
        }
        "user" => {
            sink.unit(Unit::User);
            r.content("content", &["text"], &ATTACHMENTS, sink)?;
        }
        "assistant" => assistant(r, sink)?,
        "tool" => {
            let id = r.required_str("tool_call_id")?;
            sink.unit(Unit::ToolResult {
                id,
                name: None,
                is_error: false,
            });
            sink.spot(Spot::new(r, "content", Shape::Text));
            r.content("content", &["text"], &[], sink)?;
        }
        "function" => {
            let name = r.required_str("name")?;
            let id = legacy_id(&name);
            sink.unit(Unit::ToolResult {
                id,
                name: Some(name),
                is_error: false,
            });
            sink.spot(Spot::new(r, "content", Shape::Text));
            r.content("content", &["text"], &[], sink)?;
        }
        other => {
            return Err(r.error(
                "role",
                &format!("unknown role \"{other}\" (expected system, developer, user, assistant, tool or function)"),
            ));
        }
    }
    Ok(())
}

fn assistant<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    sink.unit(Unit::Assistant(None));
    if let Some(usage) = super::usage::field(r) {
        sink.usage(usage);
    }
    r.content("content", &["text", "refusal"], &[], sink)?;
    if let Some(refusal) = r.string("refusal")? {
        sink.text(Text::Str(refusal));
    }
    for (i, value) in r.array("tool_calls")?.enumerate() {
        let call = r.item(value, "tool_calls", i)?;
        let function = call
            .get("function")
            .ok_or_else(|| call.error("function", "missing"))?;
        let function = call.child(function, "function")?;
        let id = call.required_str("id")?;
        let name = function.required("name")?;
        let arguments = function.str("arguments")?.unwrap_or_default();
        sink.call(id, Text::Str(name), Args::JsonText(arguments));
        sink.spot(Spot::new(&function, "arguments", Shape::Arguments));
    }
    if let Some(value) = r.get("function_call") {
        let function = r.child(value, "function_call")?;
        let name = function.required_str("name")?;
        let arguments = function.str("arguments")?.unwrap_or_default();
        let id = legacy_id(&name);
        sink.call(id, Text::Made(name), Args::JsonText(arguments));
    }
    Ok(())
}

/// Legacy function calls have no id: a call and its `function` result pair by name.
fn legacy_id(name: &str) -> Cow<'static, str> {
    Cow::Owned(format!("function_call:{name}"))
}
