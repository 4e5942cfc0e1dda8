//! OpenAI Responses API input items: messages (`input_text`, `output_text`, `input_image`,
//! `input_file`, refusals), `function_call` / `function_call_output`, other `*_call` items and
//! their `*_output`, `reasoning` (summary and encrypted size), `compaction` (a sealed provider
//! summary, counted by its decrypted size), and unknown items carried as
//! opaque content that still counts.

use std::borrow::Cow;

use context_compaction_scan::Kind;

use super::object::Obj;
use super::sink::{Args, Joined, Shape, Sink, Spot, Text, Unit};
use crate::error::Result;
use crate::search::trim_end;

const TEXTS: [&str; 3] = ["input_text", "output_text", "refusal"];
const ATTACHMENTS: [&str; 3] = ["input_image", "input_file", "input_audio"];

pub(super) fn read<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    let kind = match r.str("type")? {
        Some(kind) => kind,
        // An "easy" input message: `{ role, content }` without a type.
        None if r.get("role").is_some() => Cow::Borrowed("message"),
        None => return Err(r.error("type", "missing (expected a string)")),
    };
    // Looked up only for the items that need it.
    let has_call_id = || r.get("call_id").is_some();
    match kind.as_ref() {
        "message" => message(r, sink),
        "function_call" => {
            let name = r.required("name")?;
            let arguments = r.string("arguments")?;
            call(r, Text::Str(name), Args::Held(arguments), sink)?;
            sink.spot(Spot::new(r, "arguments", Shape::Arguments));
            Ok(())
        }
        "reasoning" => reasoning(r, sink),
        "compaction" => compaction(r, sink),
        kind if kind.ends_with("_output") && has_call_id() => output(r, kind, sink),
        kind if kind.ends_with("_call") && has_call_id() => {
            let name = match r.string("name")? {
                Some(name) => Text::Str(name),
                None => Text::Made(Cow::Owned(trim_end(kind, "_call").to_owned())),
            };
            let arguments = r.get("input").or(r.get("action")).or(r.get("arguments"));
            call(r, name, Args::Value(arguments), sink)
        }
        _ => {
            sink.unit(Unit::Assistant(None));
            sink.opaque(Text::Json(Some(r.value)));
            Ok(())
        }
    }
}

/// A message item; only these need a `content` (checked here rather than by
/// [`super::Format::check_content`], which would look the item's type up again).
fn message<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    let role = r.required_str("role");
    match role.as_deref() {
        Ok("system" | "developer") => {
            let mut joined = Joined::default();
            r.content("content", &TEXTS, &ATTACHMENTS, &mut joined)?;
            sink.system(joined.text());
        }
        Ok("user") => {
            sink.unit(Unit::User);
            r.content("content", &TEXTS, &ATTACHMENTS, sink)?;
        }
        // Attachments in an assistant message are dropped.
        Ok("assistant") => {
            sink.unit(Unit::Assistant(None));
            if let Some(usage) = super::usage::field(r) {
                sink.usage(usage);
            }
            r.content("content", &TEXTS, &ATTACHMENTS, sink)?;
        }
        _ => {
            // The content is checked first, as its errors come first.
            r.content("content", &TEXTS, &ATTACHMENTS, &mut Joined::default())?;
            let other = role?;
            return Err(r.error(
                "role",
                &text!(
                    "unknown role \"",
                    other,
                    "\" (expected user, assistant, system or developer)"
                ),
            ));
        }
    }
    if r.value.get("content").is_none() {
        return Err(super::missing_content(r));
    }
    Ok(())
}

fn call<'a>(
    r: &Obj<'a, '_>,
    name: Text<'a>,
    arguments: Args<'a>,
    sink: &mut dyn Sink<'a>,
) -> Result<()> {
    let id = r.required_str("call_id")?;
    sink.unit(Unit::Assistant(None));
    sink.call(id, name, arguments);
    Ok(())
}

fn output<'a>(r: &Obj<'a, '_>, kind: &str, sink: &mut dyn Sink<'a>) -> Result<()> {
    let id = r.required_str("call_id")?;
    let name = trim_end(trim_end(kind, "_output"), "_call");
    let name = (name != "function").then(|| Cow::Owned(name.to_owned()));
    sink.unit(Unit::ToolResult {
        id,
        name,
        is_error: false,
    });
    // Other outputs have shapes of their own (a computer call's screenshot).
    if matches!(kind, "function_call_output" | "custom_tool_call_output") {
        sink.spot(Spot::new(r, "output", Shape::Text));
    }
    match r.get("output") {
        Some(text) if text.kind() == Kind::String => sink.text(Text::Str(text)),
        Some(items) if items.kind() == Kind::Array => {
            r.content("output", &TEXTS, &ATTACHMENTS, sink)?
        }
        Some(other) => sink.text(Text::Json(Some(other))),
        None => {}
    }
    Ok(())
}

/// A `compaction` item (from `/responses/compact` or `context_management`): the provider's
/// summary of what came before it, sealed. Its `encrypted_content` is not prose: it counts
/// what it decrypts to ([`crate::message::sealed_tokens`]).
fn compaction<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    let encrypted = r.required("encrypted_content")?;
    sink.unit(Unit::Assistant(None));
    sink.sealed(encrypted.str().map_or(0, |text| text.chars().count()));
    sink.provider_summary();
    Ok(())
}

fn reasoning<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    let mut summary = Vec::new();
    for (i, value) in r.array("summary")?.enumerate() {
        summary.push(r.item(value, "summary", i)?.required("text")?);
    }
    let encrypted = r.string("encrypted_content")?;
    sink.unit(Unit::Assistant(None));
    match summary.as_slice() {
        [] => {}
        [one] => sink.thinking(Text::Str(*one)),
        many => {
            // Owned, as the other joins of the crate are: one copy of `join`'s code.
            let texts: Vec<String> = many
                .iter()
                .map(|t| t.str().unwrap_or_default().into_owned())
                .collect();
            sink.thinking(Text::Made(Cow::Owned(texts.join("\n"))));
        }
    }
    if let Some(encrypted) = encrypted {
        sink.opaque(Text::Str(encrypted));
    }
    Ok(())
}
