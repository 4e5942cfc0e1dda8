//! Message formats: one reader per format (`canonical` included) turns one host message,
//! a JSON value on a scanned tape, into events for a [`Sink`]: the canonical *units* it holds
//! ([`Units`], for records and summaries) or its planning facts ([`Tally`], with the default
//! heuristic). Planning, estimates and records thus work the same in every format while indices
//! and returned messages keep referring to the host's own array. The canonical shape and how
//! each format maps onto it are described in `docs/formats.md`.
//!
//! One host message may hold several units (an Anthropic user message with three
//! `tool_result` blocks is three tool results), and a cut never falls inside one.

// One cargo feature per reader (`formats`: all): a reader whose feature is off is compiled
// but reached from nothing, so the linker leaves it out of the module (the canonical reader's
// content rules stay: a system prompt given as blocks is read by them in every format).
// The UIMessage reader reads a text or custom part with the ModelMessage reader's functions.
#[cfg_attr(not(feature = "ai-sdk"), allow(dead_code))]
mod ai_sdk;
#[cfg_attr(not(feature = "ai-sdk-ui"), allow(dead_code))]
mod ai_sdk_ui;
#[cfg_attr(not(feature = "anthropic"), allow(dead_code))]
mod anthropic;
mod blocks;
#[cfg_attr(not(feature = "canonical"), allow(dead_code))]
mod canonical;
pub(crate) mod count;
mod edit;
pub(crate) mod json;
mod object;
// The OpenAI readers alone give tool-call arguments as JSON text (`Args::Held`), so a
// module without them has no such variant, nor the reading of JSON text behind it.
#[cfg(feature = "openai-chat")]
mod openai_chat;
#[cfg(feature = "openai-responses")]
mod openai_responses;
mod records;
mod sink;
mod tally;
mod units;
mod usage;

use context_compaction_scan::{self as tape, Tape, Val};

use crate::error::{Error, Result};
use crate::facts::{MessageFacts, estimator_failed};
use crate::json::Json;
pub use crate::message::HostMessage;
use crate::token::Estimator;
pub use edit::{Edit, Edited};

use object::Obj;
pub(crate) use object::{Path, describe};
pub(crate) use records::Records;
#[cfg(any(feature = "openai-chat", feature = "openai-responses"))]
pub(crate) use sink::held_text;
pub(crate) use sink::{Args, Joined, Shape, Sink, Spot, Text, Unit};
pub(crate) use tally::Tally;
pub(crate) use units::Units;
pub use usage::{MessageUsage, read_usage};

/// How the host's messages are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// The package's own shape (`docs/formats.md`): `user`, `assistant`, `toolResult`.
    #[default]
    Canonical,
    /// OpenAI Chat Completions messages.
    OpenAIChat,
    /// OpenAI Responses API input items.
    OpenAIResponses,
    /// Anthropic Messages API messages.
    Anthropic,
    /// Vercel AI SDK `ModelMessage`s.
    AiSdk,
    /// Vercel AI SDK `UIMessage`s (a cut may fall between the steps of one message).
    AiSdkUi,
}

/// The `providerOptions` namespace of the package's own marks on a ModelMessage
/// (`providerOptions.contextCompaction.pinned`).
pub const PIN_NAMESPACE: &str = "contextCompaction";

/// Whether the value at `path` of `message` (keys from the message down) is `true`: any
/// other value, or none, leaves a marker-pinned format's message unpinned.
pub(crate) fn pinned_at(message: Val, path: &[&str]) -> bool {
    let mut at = Some(message);
    for key in path {
        at = at
            .filter(|v| v.kind() == tape::Kind::Object)
            .and_then(|v| v.field(key));
    }
    at.is_some_and(|v| v.kind() == tape::Kind::Bool && v.raw() == "true")
}

/// How a format marks a failed attempt at the top level of a message ([`Format::failed_mark`]):
/// its `role` is this one and its `key` one of `values`.
#[derive(Debug, Clone, Copy)]
pub struct FailedMark {
    /// The top-level `role` of a failed attempt.
    pub role: &'static str,
    /// The top-level key that says it failed.
    pub key: &'static str,
    /// The values of `key` that say it failed.
    pub values: &'static [&'static str],
}

impl Format {
    /// Every format, in the order error messages list them.
    pub const ALL: [Format; 6] = [
        Format::Canonical,
        Format::OpenAIChat,
        Format::OpenAIResponses,
        Format::Anthropic,
        Format::AiSdk,
        Format::AiSdkUi,
    ];

    /// Whether this format's reader is compiled in (its cargo feature, all of them by
    /// default; the package's preview module has `ai-sdk-ui` alone).
    pub fn compiled(self) -> bool {
        match self {
            Format::Canonical => cfg!(feature = "canonical"),
            Format::OpenAIChat => cfg!(feature = "openai-chat"),
            Format::OpenAIResponses => cfg!(feature = "openai-responses"),
            Format::Anthropic => cfg!(feature = "anthropic"),
            Format::AiSdk => cfg!(feature = "ai-sdk"),
            Format::AiSdkUi => cfg!(feature = "ai-sdk-ui"),
        }
    }

    /// The error for a format whose reader is not compiled in: it names the formats that are.
    fn not_compiled(self) -> Error {
        // One string pushed to: no vector of names to join (only a module without every
        // reader, the preview one, has this code).
        let mut names = String::new();
        for format in Format::ALL.iter().filter(|f| f.compiled()) {
            if !names.is_empty() {
                names.push_str(", ");
            }
            names.push('"');
            names.push_str(format.name());
            names.push('"');
        }
        if names.is_empty() {
            names.push_str("no format");
        }
        Error::invalid_request(text!(
            "format: \"",
            self.name(),
            "\" is not in this build of the module, which reads ",
            names,
        ))
    }

    /// Reads a format name: `canonical`, `openai-chat`, `openai-responses`, `anthropic`,
    /// `ai-sdk`, `ai-sdk-ui`; a format whose reader is not compiled in is an error.
    pub fn from_name(name: &str) -> Result<Format> {
        let format = Format::named(name)?;
        if !format.compiled() {
            return Err(format.not_compiled());
        }
        Ok(format)
    }

    fn named(name: &str) -> Result<Format> {
        Ok(match name {
            "canonical" => Format::Canonical,
            "openai-chat" => Format::OpenAIChat,
            "openai-responses" => Format::OpenAIResponses,
            "anthropic" => Format::Anthropic,
            "ai-sdk" => Format::AiSdk,
            "ai-sdk-ui" => Format::AiSdkUi,
            other => {
                return Err(Error::invalid_request(text!(
                    "format: unknown format \"",
                    other,
                    "\" (expected \"canonical\", \"openai-chat\", \"openai-responses\", \"anthropic\", \"ai-sdk\" or \"ai-sdk-ui\")"
                )));
            }
        })
    }

    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Canonical => "canonical",
            Format::OpenAIChat => "openai-chat",
            Format::OpenAIResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::AiSdk => "ai-sdk",
            Format::AiSdkUi => "ai-sdk-ui",
        }
    }

    /// The top-level keys of a message its reader looks at, or `None` when it may look at all
    /// of them (an OpenAI Responses item of an unknown type counts as its whole JSON). Readers
    /// that are handed only these keys read the same. (`parts` is read only to name a UI
    /// message when `content` is missing.)
    pub fn keys(self) -> Option<&'static [&'static str]> {
        match self {
            Format::Canonical => Some(canonical::KEYS),
            #[cfg(feature = "openai-chat")]
            Format::OpenAIChat => Some(openai_chat::KEYS),
            // Never read: the format is refused by name.
            #[cfg(not(feature = "openai-chat"))]
            Format::OpenAIChat => None,
            Format::OpenAIResponses => None,
            Format::Anthropic => Some(anthropic::KEYS),
            Format::AiSdk => Some(ai_sdk::KEYS),
            Format::AiSdkUi => Some(ai_sdk_ui::KEYS),
        }
    }

    /// The values of the top-level `role` of this format's system messages (which are never
    /// cut): none where the system prompt is no message.
    pub fn system_roles(self) -> &'static [&'static str] {
        match self {
            Format::Canonical | Format::Anthropic => &[],
            Format::OpenAIChat | Format::OpenAIResponses => &["system", "developer"],
            Format::AiSdk | Format::AiSdkUi => &["system"],
        }
    }

    /// The path (keys from the message down) whose value `true` pins a message of this format,
    /// where the format has a place for it: `pinned` on a canonical message, `metadata.pinned`
    /// on a UIMessage, `providerOptions.contextCompaction.pinned` on a ModelMessage (providers
    /// ignore a namespace not theirs). A plan from the tail reads such messages wherever they
    /// are, as system ones. Provider formats have none: their requests list pinned indices.
    pub fn pin_path(self) -> Option<&'static [&'static str]> {
        match self {
            Format::Canonical => Some(&["pinned"]),
            Format::AiSdkUi => Some(&["metadata", "pinned"]),
            Format::AiSdk => Some(&["providerOptions", PIN_NAMESPACE, "pinned"]),
            _ => None,
        }
    }

    /// The top-level key of [`Format::pin_path`] when the format's reader does not read it
    /// otherwise: laid out for the reader besides [`Format::keys`].
    pub fn pin_root(self) -> &'static [&'static str] {
        match self {
            Format::AiSdkUi => &["metadata"],
            Format::AiSdk => &["providerOptions"],
            _ => &[],
        }
    }

    /// The top-level `role`, key and values that mark a failed attempt (an aborted or error
    /// answer, which a calibrated estimate counts 0), where the format has one: a plan from the
    /// tail marks such messages failed wherever they are, without reading them.
    pub fn failed_mark(self) -> Option<FailedMark> {
        match self {
            Format::Canonical => Some(FailedMark {
                role: "assistant",
                key: "stopReason",
                values: &["error", "aborted"],
            }),
            _ => None,
        }
    }

    /// Reads one host message from its JSON text; `path` names it in errors (`messages[3]`).
    pub fn read_json(self, text: &str, path: &str) -> Result<HostMessage> {
        let mut units = Units::default();
        self.read_json_into(text, path, &mut units)?;
        Ok(units.finish())
    }

    /// Reads one host message from its JSON text into `sink`.
    pub(crate) fn read_json_into(
        self,
        text: &str,
        path: &str,
        sink: &mut dyn for<'a> Sink<'a>,
    ) -> Result<()> {
        let mut nodes = Vec::new();
        let tape = scan(text, path, &mut nodes)?;
        let message = tape.root();
        self.read_into(message, Path::root(path), sink)
    }

    /// The facts of one host message from its JSON text, counted by `estimator`.
    pub fn facts_json(
        self,
        text: &str,
        path: &str,
        estimator: &dyn Estimator,
    ) -> Result<MessageFacts> {
        let mut nodes = Vec::new();
        let tape = scan(text, path, &mut nodes)?;
        let message = tape.root();
        self.facts(message, Path::root(path), estimator)
    }

    /// The facts of one host message, counted by `estimator`: in place with the default
    /// heuristic, from its units with any other estimator.
    pub(crate) fn facts(
        self,
        message: Val,
        path: Path,
        estimator: &dyn Estimator,
    ) -> Result<MessageFacts> {
        if let Some(heuristic) = estimator.as_heuristic() {
            let mut tally = Tally::new(heuristic);
            self.read_into(message, path, &mut tally)?;
            return Ok(tally.finish());
        }
        let mut units = Units::default();
        self.read_into(message, path, &mut units)?;
        MessageFacts::of_host(&units.finish(), estimator)
            .map_err(|e| estimator_failed(&text!(path), e))
    }

    /// Reads one host message into `sink`.
    pub(crate) fn read_into<'a>(
        self,
        message: Val<'a>,
        path: Path,
        sink: &mut dyn Sink<'a>,
    ) -> Result<()> {
        let r = Obj::message(message, path, self.keys())?;
        // The canonical reader reads its own marker (a top-level key it checks).
        if self != Format::Canonical && self.pin_path().is_some_and(|p| pinned_at(message, p)) {
            sink.pin();
        }
        match self {
            #[cfg(feature = "canonical")]
            Format::Canonical => apart(|| canonical::read(&r, sink)),
            #[cfg(feature = "openai-chat")]
            Format::OpenAIChat => apart(|| openai_chat::read(&r, sink)),
            #[cfg(feature = "openai-responses")]
            Format::OpenAIResponses => apart(|| openai_responses::read(&r, sink)),
            #[cfg(feature = "anthropic")]
            Format::Anthropic => apart(|| anthropic::read(&r, sink)),
            #[cfg(feature = "ai-sdk")]
            Format::AiSdk => apart(|| ai_sdk::read(&r, sink)),
            #[cfg(feature = "ai-sdk-ui")]
            Format::AiSdkUi => apart(|| ai_sdk_ui::read(&r, sink)),
            #[allow(unreachable_patterns)] // with every reader compiled in
            _ => Err(self.not_compiled()),
        }?;
        self.check_content(&r)
    }

    /// A message without `content` (a UI message with `parts`, say) is an error rather than
    /// an empty message: it would be estimated at a few tokens and never compacted. Only an
    /// OpenAI Chat assistant message with tool calls or a refusal, and Responses items other
    /// than messages, may leave it out. (`null` is allowed: it is content that says nothing.)
    fn check_content(self, r: &Obj) -> Result<()> {
        // A Responses message checks its own (`openai_responses::message`): other items need none.
        if self == Format::OpenAIResponses || r.value.get("content").is_some() {
            return Ok(());
        }
        let string = |key: &str| r.value.field(key).and_then(|v| v.str());
        let has = |key: &str| r.value.field(key).is_some();
        let needed = match self {
            // Its reader requires `parts` itself.
            Format::AiSdkUi => false,
            Format::Canonical | Format::Anthropic | Format::AiSdk => true,
            Format::OpenAIChat => {
                string("role").as_deref() != Some("assistant")
                    || !(has("tool_calls") || has("function_call") || has("refusal"))
            }
            // Returned above: its reader checks a message item's own content.
            Format::OpenAIResponses => false,
        };
        if !needed {
            return Ok(());
        }
        Err(missing_content(r))
    }

    /// The message a summary projects to, in this format; `None` for an empty summary.
    pub fn project_summary(self, summary: &str) -> Option<Json> {
        let text = Json::string(&crate::summary::project(summary)?);
        Some(Json::written(match self {
            Format::OpenAIResponses => text!(
                r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"#,
                text,
                r#"}]}"#
            ),
            Format::AiSdkUi => text!(
                r#"{"id":""#,
                SUMMARY_ID,
                r#"","role":"user","parts":[{"type":"text","text":"#,
                text,
                r#"}]}"#
            ),
            _ => text!(r#"{"role":"user","content":"#, text, r#"}"#),
        }))
    }
}

/// The error for a message without `content` (see [`Format::check_content`]).
fn missing_content(r: &Obj) -> Error {
    let hint = if r.value.field("parts").is_some() {
        " (the message has `parts`: an AI SDK UIMessage? use format \"ai-sdk-ui\", or pass its model messages from convertToModelMessages)"
    } else {
        ""
    };
    r.error("content", &text!("missing", hint))
}

/// The `id` of the UIMessage a summary projects to.
pub const SUMMARY_ID: &str = "context-compaction-summary";

/// Scans the JSON text of one value (`JSON.stringify`'s, or a line of a body) into `nodes` and
/// returns the tape (its root is the value); `path` names it in errors.
pub(crate) fn scan<'a>(
    text: &'a str,
    path: &str,
    nodes: &'a mut Vec<tape::Node>,
) -> Result<Tape<'a>> {
    let end = tape::value(text.as_bytes(), 0, nodes).ok();
    if end.map(|end| tape::skip_space(text.as_bytes(), end)) != Some(text.len()) {
        let what =
            crate::json::syntax_error(text).unwrap_or_else(|| "not one JSON value".to_owned());
        return Err(Error::invalid_request(text!(path, ": ", what)));
    }
    Ok(Tape::new(text, nodes))
}

/// Text content given as a string or as canonical text blocks (an Anthropic-style system
/// prompt), as one text; errors name `{path}.content[i]`.
pub fn joined_text(text: &str, path: &str) -> Result<String> {
    let mut nodes = Vec::new();
    let tape = scan(text, path, &mut nodes)?;
    let value = tape.root();
    let owner = Obj::at(value, Path::root(path));
    let mut joined = Joined::default();
    canonical::content(
        &owner,
        Some(value).filter(|v| !v.is_null()),
        "content",
        &mut joined,
    )?;
    Ok(joined.text())
}

/// Runs one format's reader as a function of its own (one per format, never inlined). Inlined
/// into `read_into`, the six readers made one function of 17 KB: V8 compiled all of it on the
/// first message of any format, and its optimizing compile of that function, on a background
/// thread in the middle of a cold plan, needed 3.6 MB of memory at once (bench/README.md).
#[inline(never)]
fn apart(read: impl FnOnce() -> Result<()>) -> Result<()> {
    read()
}
