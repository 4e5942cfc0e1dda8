//! The canonical format (`docs/formats.md`): `user`, `assistant` and `toolResult` messages.
//! Unknown extra fields are ignored; roles, block types and ids are checked.

use context_compaction_scan::{Kind, Val};

use super::object::Obj;
use super::sink::{Args, Shape, Sink, Spot, Text, Unit};
use crate::error::Result;

use crate::message::StopReason;

/// The top-level keys `read` looks at.
pub(super) const KEYS: &[&str] = &[
    "role",
    "content",
    "stopReason",
    "isError",
    "toolCallId",
    "toolName",
    "parts",
    "pinned",
];

pub(super) fn read<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    // `pinned: true` pins the message; missing or `false` does not, another value is an error.
    let pinned = r.bool("pinned")?;
    let role = r.required_str("role")?;
    if pinned {
        sink.pin();
    }
    match role.as_ref() {
        "user" => {
            sink.unit(Unit::User);
            content(r, r.get("content"), "content", sink)
        }
        "assistant" => assistant(r, sink),
        "toolResult" => {
            let is_error = r.bool("isError")?;
            let id = r.required_str("toolCallId")?;
            let name = r.str("toolName")?;
            sink.unit(Unit::ToolResult { id, name, is_error });
            sink.spot(Spot::new(r, "content", Shape::Blocks));
            content(r, r.get("content"), "content", sink)
        }
        other => Err(r.error(
            "role",
            &text!(
                "unknown role \"",
                other,
                "\" (expected \"user\", \"assistant\" or \"toolResult\")"
            ),
        )),
    }
}

/// User or tool-result content at `key` of `owner`: a string, or text and image blocks.
pub(crate) fn content<'a>(
    owner: &Obj<'a, '_>,
    value: Option<Val<'a>>,
    key: &str,
    sink: &mut dyn Sink<'a>,
) -> Result<()> {
    blocks(owner, value, key, sink, &mut |block, kind, sink| {
        match kind {
            "text" => sink.text(Text::Str(block.required("text")?)),
            "image" => sink.image(),
            other => return Err(block.unknown(other, "\"text\" or \"image\"")),
        }
        Ok(())
    })
}

fn assistant<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    let stop_reason = match r.str("stopReason")? {
        None => None,
        Some(text) => Some(stop_reason(&text).ok_or_else(|| {
            r.error(
                "stopReason",
                &text!(
                    "unknown stop reason \"",
                    text,
                    "\" (expected stop, length, toolUse, error or aborted)"
                ),
            )
        })?),
    };
    sink.unit(Unit::Assistant(stop_reason));
    if let Some(usage) = super::usage::field(r) {
        sink.usage(usage);
    }
    blocks(
        r,
        r.get("content"),
        "content",
        sink,
        &mut |block, kind, sink| {
            match kind {
                "text" => sink.text(Text::Str(block.required("text")?)),
                "thinking" => sink.thinking(Text::Str(block.required("thinking")?)),
                "toolCall" => {
                    let id = block.required_str("id")?;
                    let name = block.required("name")?;
                    let arguments = block.value.get("arguments").filter(|v| !v.is_null());
                    sink.call(id, Text::Str(name), Args::Value(arguments));
                    sink.spot(Spot::new(block, "arguments", Shape::Arguments));
                }
                other => return Err(block.unknown(other, "\"text\", \"thinking\" or \"toolCall\"")),
            }
            Ok(())
        },
    )
}

fn stop_reason(text: &str) -> Option<StopReason> {
    Some(match text {
        "stop" => StopReason::Stop,
        "length" => StopReason::Length,
        "toolUse" => StopReason::ToolUse,
        "error" => StopReason::Error,
        "aborted" => StopReason::Aborted,
        _ => return None,
    })
}

/// Content that is a string (one text) or an array of typed blocks, each read by `block`.
fn blocks<'a>(
    owner: &Obj<'a, '_>,
    value: Option<Val<'a>>,
    key: &str,
    sink: &mut dyn Sink<'a>,
    block: &mut dyn FnMut(&Obj<'a, '_>, &str, &mut dyn Sink<'a>) -> Result<()>,
) -> Result<()> {
    let Some(value) = value else {
        return Ok(());
    };
    match value.kind() {
        Kind::String => sink.text(Text::Str(value)),
        Kind::Array => {
            for (i, item) in value.children().enumerate() {
                let item = owner.item(item, key, i)?;
                let kind = item.kind()?;
                block(&item, &kind, sink)?;
            }
        }
        _ => {
            return Err(owner.error(key, "expected a string or an array of blocks"));
        }
    }
    Ok(())
}
