//! Vercel AI SDK `ModelMessage`s, versions 5 to 7 (the types of `@ai-sdk/provider-utils` 3 to
//! 5): `system`, `user` (text, image, file parts), `assistant` (text, reasoning, files, custom
//! parts, tool calls, the results of provider-executed tools, approval requests) and `tool`
//! (tool results and approval responses). A result's `output` is text, json, error-text,
//! error-json, execution-denied (an error) or content. Approval requests and responses are not
//! sent to the model and count nothing; they need no pairing of their own, as each lies between
//! a call and its result (or the call is still in flight). Part types this reader does not
//! know, from a later version, count as their JSON. `providerOptions` are read only for OpenAI's
//! compaction (a custom part of kind `openai.compaction`, counted by its `encryptedContent`);
//! Anthropic's compaction is a text part (its `providerOptions.anthropic.type` says
//! `compaction`) and counts as text.

use std::borrow::Cow;

use context_compaction_scan::Val;

use super::object::Obj;
use super::sink::{Args, Shape, Sink, Spot, Text, Unit};
use crate::error::Result;

/// The text of a result that says the call was denied, when no reason is given (what
/// `convertToModelMessages` sends for a denied call).
pub(super) const DENIED: &str = "Tool call execution denied.";

/// The top-level keys `read` looks at.
pub(super) const KEYS: &[&str] = &["role", "content", "parts"];

pub(super) fn read<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    match r.required_str("role")?.as_ref() {
        "system" => sink.system(r.required_str("content")?.into_owned()),
        "user" => {
            sink.unit(Unit::User);
            r.blocks("content", sink, &mut |part, kind, sink| {
                match kind {
                    "text" => sink.text(Text::Str(part.required("text")?)),
                    "image" | "file" => sink.image(),
                    _ => sink.opaque(Text::Json(Some(part.value))),
                }
                Ok(())
            })?;
        }
        "assistant" => assistant(r, sink)?,
        "tool" => {
            // Parts of a later version count with the result before them (or the first one).
            let mut waiting = Vec::new();
            let mut results = 0;
            for (i, value) in r.array("content")?.enumerate() {
                let part = r.item(value, "content", i)?;
                match part.kind()?.as_ref() {
                    "tool-result" => {
                        let spot = tool_result(&part, sink)?;
                        sink.spot(spot);
                        results += 1;
                        for later in waiting.drain(..) {
                            sink.opaque(Text::Json(Some(later)));
                        }
                    }
                    "tool-approval-response" => {}
                    _ if results == 0 => waiting.push(part.value),
                    _ => sink.opaque(Text::Json(Some(part.value))),
                }
            }
        }
        other => {
            return Err(r.error(
                "role",
                &text!(
                    "unknown role \"",
                    other,
                    "\" (expected system, user, assistant or tool)"
                ),
            ));
        }
    }
    Ok(())
}

/// An assistant message: its parts, then the results of provider-executed tools, which arrive
/// in the same message as their calls.
fn assistant<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    sink.unit(Unit::Assistant(None));
    if let Some(usage) = super::usage::field(r) {
        sink.usage(usage);
    }
    // Most messages hold no provider-executed result: the second pass is made only when one
    // was seen.
    let mut results = false;
    r.blocks("content", sink, &mut |part, kind, sink| {
        match kind {
            "text" => text(part, sink)?,
            "reasoning" => sink.thinking(Text::Str(part.required("text")?)),
            "tool-call" => {
                let id = part.required_str("toolCallId")?;
                let name = part.required("toolName")?;
                // `input` since AI SDK 5, `args` before (each looked up once; `null` is
                // missing as arguments, present as the key to clear).
                let (input, args) = (part.value.get("input"), part.value.get("args"));
                let given = |v: &Option<_>| v.filter(|v: &Val| !v.is_null());
                sink.call(
                    id,
                    Text::Str(name),
                    Args::Value(given(&input).or(given(&args))),
                );
                let old = input.is_none() && args.is_some();
                let key = if old { "args" } else { "input" };
                sink.spot(Spot::new(part, key, Shape::Arguments));
            }
            "tool-result" => results = true,
            "tool-approval-request" => {}
            "file" | "reasoning-file" => sink.opaque(Text::or_empty(part.string("mediaType")?)),
            "custom" => custom(part, sink)?,
            _ => sink.opaque(Text::Json(Some(part.value))),
        }
        Ok(())
    })?;
    if !results {
        return Ok(());
    }
    for (i, value) in r.array("content")?.enumerate() {
        let part = r.item(value, "content", i)?;
        if part.kind()? == "tool-result" {
            tool_result(&part, sink)?;
        }
    }
    Ok(())
}

/// An assistant's text part: Anthropic's compaction comes as one, marked in its provider
/// options (`providerMetadata` on a generated result or a UIMessage part).
pub(super) fn text<'a>(part: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    sink.text(Text::Str(part.required("text")?));
    if provider_says(part, "anthropic", "type") == Some("compaction".into()) {
        sink.provider_summary();
    }
    Ok(())
}

/// The string at `provider`.`key` of the part's `providerOptions`, else of its
/// `providerMetadata`.
fn provider_says<'a>(part: &Obj<'a, '_>, provider: &str, key: &str) -> Option<Cow<'a, str>> {
    ["providerOptions", "providerMetadata"]
        .iter()
        .find_map(|options| {
            let value = part.value.get(options)?.get(provider)?.get(key)?;
            value.str()
        })
}

/// A custom part: its `kind` counts, except OpenAI's `openai.compaction` (a Responses
/// `compaction` item), whose `encryptedContent` in `providerOptions.openai` (or
/// `providerMetadata.openai`, as a result gives it) counts as the sealed summary it is.
pub(super) fn custom<'a>(part: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    let kind = part.string("kind")?;
    if kind.and_then(|k| k.str()).as_deref() == Some("openai.compaction") {
        let encrypted = provider_says(part, "openai", "encryptedContent");
        if let Some(encrypted) = encrypted {
            sink.sealed(encrypted.chars().count());
            sink.provider_summary();
            return Ok(());
        }
    }
    sink.opaque(Text::or_empty(kind));
    Ok(())
}

/// A tool result: `output` since AI SDK 5, `result` and `isError` before. Returns where
/// clearing rewrites it in a tool message: its `output` as a text output (an `error-text` one
/// for errors), a pre-v5 part's `result` as a string. (Provider-executed results inside
/// assistant messages keep their shapes.)
fn tool_result<'a>(part: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<Spot<'a>> {
    // Looked up once for the result and its spot: an `output` of `null` is no output, but
    // still the key clearing rewrites.
    let given = part.value.get("output");
    let output = match given.filter(|v| !v.is_null()) {
        Some(output) => Some(part.child(output, "output")?),
        None => None,
    };
    let kind = match &output {
        Some(output) => Some(output.kind()?),
        None => None,
    };
    let is_error = match kind.as_deref() {
        None => part.bool("isError")?,
        Some(kind) => matches!(kind, "error-text" | "error-json" | "execution-denied"),
    };
    let spot = match given {
        None => Spot::new(part, "result", Shape::Text),
        Some(_) => {
            let error = matches!(kind.as_deref(), Some("error-text" | "error-json"));
            Spot::new(part, "output", Shape::Output { error })
        }
    };
    let id = part.required_str("toolCallId")?;
    let name = part.str("toolName")?;
    sink.unit(Unit::ToolResult { id, name, is_error });
    let (Some(output), Some(kind)) = (output, kind) else {
        sink.text(Text::Value(part.get("result")));
        return Ok(spot);
    };
    let value = output.get("value");
    match kind.as_ref() {
        "text" | "error-text" => sink.text(Text::Value(value)),
        "json" | "error-json" => sink.text(Text::Json(value)),
        "execution-denied" => sink.text(match output.string("reason")? {
            Some(reason) => Text::Str(reason),
            None => Text::Made(Cow::Borrowed(DENIED)),
        }),
        "content" => {
            for (i, item) in output.items("value", value)?.enumerate() {
                let item = output.item(item, "value", i)?;
                match item.kind()?.as_ref() {
                    "text" => sink.text(Text::Str(item.required("text")?)),
                    // media (v5), then file, file-* and image-* (v6, v7).
                    kind if kind == "media"
                        || kind.starts_with("file")
                        || kind.starts_with("image") =>
                    {
                        sink.image()
                    }
                    // custom, and any kind of a later version.
                    _ => sink.opaque(Text::Json(Some(item.value))),
                }
            }
        }
        // An output type of a later version.
        _ => sink.text(Text::Json(Some(output.value))),
    }
    Ok(spot)
}
