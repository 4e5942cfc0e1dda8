//! Vercel AI SDK `UIMessage`s (what `useChat` holds and posts), versions 5 to 7: `system`,
//! `user` and `assistant` messages of `parts`. Each is read into the units of the
//! `ModelMessage`s `convertToModelMessages` makes of it, so both formats estimate and record a
//! history the same way: an assistant message is one step per `step-start` (an assistant unit
//! with its text, reasoning, files and tool calls, then a result for each answered call), and
//! each later step is a place a cut may fall (`Sink::step`).
//!
//! Not sent to the model, so not counted: sources, `data-*` parts (unless the application
//! converts them), approval requests and responses, and `metadata`. A tool call still streaming
//! its input counts as a call, so the message stays with the in-flight tail. Unknown part types
//! count as their JSON.
//!
//! `metadata` is where an application keeps what the provider reported for the message: its
//! usage is read from `metadata.usage` (the last step's, as the package's `messageMetadata`
//! records it) or from `metadata` itself (the AI SDK's documentation puts `totalTokens` there:
//! the sum over every step of the response, so it is read only for a message of one step), as
//! [`super::usage`] reads any usage.

use std::borrow::Cow;

use context_compaction_scan::Kind;

use super::Format;
use super::ai_sdk::DENIED;
use super::object::Obj;
use super::sink::{Args, Shape, Sink, Spot, Text, Unit};
use crate::error::Result;

/// The top-level keys `read` looks at (`content` only to name a ModelMessage in errors).
pub(super) const KEYS: &[&str] = &["role", "parts", "content"];

pub(super) fn read<'a>(r: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    let role = r.required_str("role")?;
    if r.get("parts").is_none() {
        let hint = match r.get("content") {
            Some(_) => " (the message has `content`: a ModelMessage? use format \"ai-sdk\")",
            None => "",
        };
        return Err(r.error(
            "parts",
            &text!("missing (expected an array of parts)", hint),
        ));
    }
    let parts = r
        .array("parts")?
        .enumerate()
        .map(|(i, value)| r.item(value, "parts", i))
        .collect::<Result<Vec<_>>>()?;
    match role.as_ref() {
        "system" => {
            let mut text = String::new();
            for part in &parts {
                if part.kind()? == "text" {
                    text.push_str(&part.required_str("text")?);
                }
            }
            sink.system(text);
        }
        "user" => {
            sink.unit(Unit::User);
            for part in &parts {
                user_part(part, sink)?;
            }
        }
        "assistant" => {
            let several = Steps::default().read(&parts, sink)?;
            if let Some(metadata) = r.value.field(Format::AiSdkUi.usage_key()) {
                match metadata.field("usage") {
                    Some(usage) => sink.usage(usage),
                    // The AI SDK's documented metadata, `totalTokens` of the response: summed
                    // over every step, so one request's count only when there was one step.
                    None if !several => sink.usage(metadata),
                    None => {}
                }
            }
        }
        other => {
            return Err(r.error(
                "role",
                &text!(
                    "unknown role \"",
                    other,
                    "\" (expected system, user or assistant)"
                ),
            ));
        }
    }
    Ok(())
}

/// A part of a user message (or of a steering message inside an assistant one).
fn user_part<'a>(part: &Obj<'a, '_>, sink: &mut dyn Sink<'a>) -> Result<()> {
    match part.kind()?.as_ref() {
        "text" => sink.text(Text::Str(part.required("text")?)),
        "file" => sink.image(),
        kind if ignored(kind) => {}
        _ => sink.opaque(Text::Json(Some(part.value))),
    }
    Ok(())
}

/// Parts `convertToModelMessages` leaves out.
fn ignored(kind: &str) -> bool {
    matches!(kind, "source-url" | "source-document" | "step-start") || kind.starts_with("data-")
}

/// Reads an assistant message step by step.
#[derive(Default)]
struct Steps {
    /// Whether a unit has been read (a step boundary before any is not a place to cut).
    read_any: bool,
    /// The part where the step being read starts, until its first unit.
    pending: Option<usize>,
    /// Whether a step after the first was read.
    later_steps: bool,
}

impl Steps {
    /// Reads the steps of `parts`; whether there was more than one.
    fn read<'a>(mut self, parts: &[Obj<'a, '_>], sink: &mut dyn Sink<'a>) -> Result<bool> {
        let mut start = 0;
        for (i, part) in parts.iter().enumerate() {
            let kind = part.kind()?;
            if kind != "step-start" && kind != "steering-message" {
                continue;
            }
            self.block(parts.get(start..i).unwrap_or(&[]), sink)?;
            start = i + 1;
            self.pending = Some(i);
            if kind == "steering-message" {
                // A user message sent while the assistant worked (AI SDK 7).
                self.unit(Unit::User, sink);
                for (k, value) in part.array("parts")?.enumerate() {
                    user_part(&part.item(value, "parts", k)?, sink)?;
                }
            }
        }
        self.block(parts.get(start..).unwrap_or(&[]), sink)?;
        Ok(self.later_steps)
    }

    /// Starts a unit, after the step boundary it is the first unit of.
    fn unit<'a>(&mut self, unit: Unit<'a>, sink: &mut dyn Sink<'a>) {
        if let Some(part) = self.pending.take().filter(|_| self.read_any) {
            sink.step(part);
            self.later_steps = true;
        }
        self.read_any = true;
        sink.unit(unit);
    }

    /// One step's parts: an assistant unit with its content and calls, then the results of
    /// provider-executed tools, then those of the others (as the model messages hold them).
    fn block<'a>(&mut self, parts: &[Obj<'a, '_>], sink: &mut dyn Sink<'a>) -> Result<()> {
        let mut open = false;
        for part in parts {
            let kind = part.kind()?;
            let kind = kind.as_ref();
            if ignored(kind) {
                continue;
            }
            if !open {
                self.unit(Unit::Assistant(None), sink);
                open = true;
            }
            match kind {
                // As the ModelMessage reader reads what `convertToModelMessages` makes of them
                // (a part's `providerMetadata` becomes its `providerOptions`): a provider's
                // compaction included.
                "text" => super::ai_sdk::text(part, sink)?,
                "reasoning" => sink.thinking(Text::Str(part.required("text")?)),
                "file" | "reasoning-file" => sink.opaque(Text::or_empty(part.string("mediaType")?)),
                "custom" => super::ai_sdk::custom(part, sink)?,
                _ => match tool_name(part, kind)? {
                    Some(name) => call(part, name, sink)?,
                    None => sink.opaque(Text::Json(Some(part.value))),
                },
            }
        }
        for provider in [true, false] {
            for part in parts {
                let kind = part.kind()?;
                if let Some(name) = tool_name(part, &kind)? {
                    result(part, name, provider, sink)?;
                }
            }
        }
        Ok(())
    }
}

/// The tool's name of a tool part (`tool-NAME`, or `dynamic-tool` with `toolName`); `None`
/// for other parts.
fn tool_name<'a>(part: &Obj<'a, '_>, kind: &str) -> Result<Option<Text<'a>>> {
    if kind == "dynamic-tool" {
        return Ok(Some(Text::Str(part.required("toolName")?)));
    }
    Ok(kind
        .strip_prefix("tool-")
        .map(|name| Text::Made(Cow::Owned(name.to_owned()))))
}

/// The call of a tool part: its input (a failed call's `rawInput` when it has none).
fn call<'a>(part: &Obj<'a, '_>, name: Text<'a>, sink: &mut dyn Sink<'a>) -> Result<()> {
    let id = part.required_str("toolCallId")?;
    let state = part.required_str("state")?;
    let mut input = part.get("input");
    if state == "output-error" {
        input = input.or(part.get("rawInput"));
    }
    sink.call(id, name, Args::Value(input));
    sink.spot(Spot::new(part, "input", Shape::Arguments));
    Ok(())
}

/// The result of a tool part, if it has one and it was executed where `provider` says.
fn result<'a>(
    part: &Obj<'a, '_>,
    name: Text<'a>,
    provider: bool,
    sink: &mut dyn Sink<'a>,
) -> Result<()> {
    let state = part.required_str("state")?;
    let provider_executed = part.bool("providerExecuted")?;
    let approval = match part.get("approval") {
        Some(approval) if approval.kind() == Kind::Object => {
            Some(part.child(approval, "approval")?)
        }
        _ => None,
    };
    let reason = |approval: &Option<Obj<'a, '_>>| -> Result<Text<'a>> {
        let reason = match approval {
            Some(approval) => approval.string("reason")?,
            None => None,
        };
        Ok(reason.map_or(Text::Made(Cow::Borrowed(DENIED)), Text::Str))
    };
    let denied = match &approval {
        Some(approval) => approval.get("approved").is_some_and(|v| v.raw() == "false"),
        None => false,
    };
    let id = || part.required_str("toolCallId");
    let name = Some(Cow::Owned(name.into_string()));
    let (is_error, text) = match state.as_ref() {
        // A denial answers the call wherever the tool runs.
        "approval-responded" if denied && !provider => (true, reason(&approval)?),
        _ if provider_executed != provider => return Ok(()),
        "output-denied" => (true, reason(&approval)?),
        "output-available" => (false, output(part.get("output"))),
        // A provider's error is sent as JSON, the application's as text.
        "output-error" if provider => (true, Text::Json(part.get("errorText"))),
        "output-error" => (true, Text::Value(part.get("errorText"))),
        _ => return Ok(()),
    };
    sink.unit(Unit::ToolResult {
        id: id()?,
        name,
        is_error,
    });
    // A provider-executed result (a web search, say) is never rewritten: its shape is the
    // provider's, and the route's model messages leave it as it is too.
    match state.as_ref() {
        _ if provider => {}
        "output-available" => sink.spot(Spot::new(part, "output", Shape::Text)),
        "output-error" => sink.spot(Spot::new(part, "errorText", Shape::Text)),
        _ => {}
    }
    sink.text(text);
    Ok(())
}

/// A tool's output as the model is sent it: a string as text, anything else as JSON.
fn output(value: Option<context_compaction_scan::Val>) -> Text {
    match value {
        Some(text) if text.kind() == Kind::String => Text::Str(text),
        other => Text::Json(other),
    }
}
