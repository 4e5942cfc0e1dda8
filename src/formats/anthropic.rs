//! Anthropic Messages API messages: `user` (text, image, document, `tool_result`) and
//! `assistant` (text, thinking, redacted thinking, `tool_use`, server tool use and the
//! `*_tool_result` blocks that answer it, and the `compaction` block of server-side compaction).

use std::borrow::Cow;

use context_compaction_scan::Kind;

use super::object::Obj;
use super::sink::{Args, Shape, Sink, Spot, Text, Unit};
use crate::error::Result;

const ATTACHMENTS: [&str; 3] = ["image", "document", "search_result"];

/// The top-level keys `read` looks at.
pub(super) const KEYS: &[&str] = &["role", "content", "parts"];

pub(super) fn read<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    match r.required_str("role")?.as_ref() {
        "user" => user(r, sink),
        "assistant" => assistant(r, sink),
        other => Err(r.error(
            "role",
            &text!("unknown role \"", other, "\" (expected user or assistant)"),
        )),
    }
}

/// A user message: each run of text and attachments is a unit, and so is each tool result.
fn user<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    let content = r.get("content");
    if let Some(text) = content.filter(|v| v.kind() == Kind::String) {
        sink.unit(Unit::User);
        sink.text(Text::Str(text));
        return Ok(());
    }
    let mut in_user = false;
    for (i, value) in r.items("content", content)?.enumerate() {
        let block = r.item(value, "content", i)?;
        let kind = block.kind()?;
        let result = kind == "tool_result";
        if !result && !in_user && (kind == "text" || ATTACHMENTS.contains(&kind.as_ref())) {
            sink.unit(Unit::User);
        }
        in_user = !result;
        match kind.as_ref() {
            "text" => sink.text(Text::Str(block.required("text")?)),
            kind if ATTACHMENTS.contains(&kind) => sink.image(),
            "tool_result" => {
                let id = block.required_str("tool_use_id")?;
                let is_error = block.bool("is_error")?;
                sink.unit(Unit::ToolResult {
                    id,
                    name: None,
                    is_error,
                });
                sink.spot(Spot::new(&block, "content", Shape::Text));
                block.content("content", &["text"], &ATTACHMENTS, sink)?;
            }
            other => {
                return Err(
                    block.unknown(other, "text, image, document, search_result or tool_result")
                );
            }
        }
    }
    Ok(())
}

/// An assistant message: its blocks, then the results of server-side tools, which arrive in
/// the same message as their calls.
fn assistant<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    sink.unit(Unit::Assistant(None));
    if let Some(usage) = super::usage::field(r) {
        sink.usage(usage);
    }
    // Most messages hold no server tool result: the second pass is made only when one was seen.
    let mut results = false;
    r.blocks("content", sink, &mut |block, kind, sink| {
        match kind {
            "text" => sink.text(Text::Str(block.required("text")?)),
            "thinking" => sink.thinking(Text::Str(block.required("thinking")?)),
            "redacted_thinking" => sink.opaque(match block.string("data")? {
                Some(data) => Text::Str(data),
                None => Text::Made(Cow::Borrowed("")),
            }),
            kind if kind == "tool_use" || kind.ends_with("_tool_use") => {
                let id = block.required_str("id")?;
                let name = block.required("name")?;
                sink.call(id, Text::Str(name), Args::Value(block.get("input")));
                sink.spot(Spot::new(block, "input", Shape::Arguments));
            }
            kind if kind.ends_with("_tool_result") => results = true,
            "compaction" => compaction(block, sink)?,
            other => {
                return Err(block.unknown(
                    other,
                    "text, thinking, redacted_thinking, compaction, tool_use, *_tool_use or *_tool_result",
                ));
            }
        }
        Ok(())
    })?;
    if !results {
        return Ok(());
    }
    for (i, value) in r.array("content")?.enumerate() {
        let block = r.item(value, "content", i)?;
        let kind = block.kind()?;
        if let Some(tool) = kind.strip_suffix("_tool_result") {
            server_result(&block, tool, sink)?;
        }
    }
    Ok(())
}

/// A `compaction` block: the summary the server made of everything before it, readable text
/// counted as text (`content` may be null when the provider made none: nothing to count).
fn compaction<'a>(block: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    if block.get("content").is_some_and(|v| v.is_null()) {
        return Ok(());
    }
    if let Some(text) = block.string("content")? {
        sink.text(Text::Str(text));
        sink.provider_summary();
    }
    Ok(())
}

fn server_result<'a>(block: &Obj<'a, '_>, tool: &str, sink: &mut dyn Sink<'a>) -> Result<()> {
    let content = block.get("content");
    let is_error = content
        .and_then(|c| c.get("type"))
        .and_then(|t| t.str())
        .is_some_and(|t| t.ends_with("_error"));
    let id = block.required_str("tool_use_id")?;
    let name = Some(Cow::Owned(tool.to_owned()));
    sink.unit(Unit::ToolResult { id, name, is_error });
    sink.text(Text::Value(content));
    Ok(())
}
