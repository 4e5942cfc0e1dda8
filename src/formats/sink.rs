//! What a format reader reports about one host message, as events: each canonical unit as it
//! starts, and the texts, images and tool calls inside it. A [`Sink`] turns the events into
//! what its caller needs: [`super::Units`] builds the units records and summaries are made of,
//! [`super::Tally`] computes the planning facts with the default heuristic, scoring texts where
//! they are without building them.

use std::borrow::Cow;

use context_compaction_scan::{Kind, Node, Val, unescape_into};

use crate::message::StopReason;

/// A unit of a host message starts.
pub(crate) enum Unit<'a> {
    /// A user unit (text and attachments).
    User,
    /// An assistant unit, with why it stopped when the format says.
    Assistant(Option<StopReason>),
    /// The result of one tool call.
    ToolResult {
        /// The id of the call it answers.
        id: Cow<'a, str>,
        /// The tool's name, when the message gives it.
        name: Option<Cow<'a, str>>,
        /// Whether the tool reported a failure.
        is_error: bool,
    },
}

/// A text as a message holds it.
pub(crate) enum Text<'a> {
    /// A JSON string's value.
    Str(Val<'a>),
    /// Any value written as compact JSON (`null` when missing): a string too is quoted.
    Json(Option<Val<'a>>),
    /// A string's value, or any other value written as compact JSON.
    Value(Option<Val<'a>>),
    /// A text the reader made (joined texts, a name from a type).
    Made(Cow<'a, str>),
}

/// A tool call's arguments.
pub(crate) enum Args<'a> {
    /// A JSON value (`null` when missing).
    Value(Option<Val<'a>>),
    /// JSON text as a string of the message holds it (missing is empty), as OpenAI sends
    /// arguments: the value it holds, or the text as a string when it is not JSON; scored from
    /// its escaped text where it can be. Only the OpenAI readers give it: a module without them
    /// (the preview one) leaves out reading JSON text, its error words and `serde_json`'s
    /// numbers.
    #[cfg(any(feature = "openai-chat", feature = "openai-responses"))]
    Held(Option<Val<'a>>),
}

/// Receives the events of one host message, in order. Texts and images belong to the unit
/// that started last (an image in an assistant unit is dropped: assistants send none).
pub(crate) trait Sink<'a> {
    /// A unit starts.
    fn unit(&mut self, unit: Unit<'a>);
    /// Visible text.
    fn text(&mut self, text: Text<'a>);
    /// An image or another attachment (counted as an image).
    fn image(&mut self);
    /// Reasoning text.
    fn thinking(&mut self, text: Text<'a>);
    /// Content a summary has no use for, still counted.
    fn opaque(&mut self, text: Text<'a>);
    /// A summary the provider sealed (encrypted, `chars` characters long): counted as
    /// [`crate::message::sealed_tokens`] says, never as prose; a summary has no use for it.
    fn sealed(&mut self, _chars: usize) {}
    /// A tool call in an assistant unit.
    fn call(&mut self, id: Cow<'a, str>, name: Text<'a>, arguments: Args<'a>);
    /// The message is a system or developer message with this text (and no units).
    fn system(&mut self, text: String);
    /// What the provider counted for the request that produced this assistant message (the
    /// message's `usage` object, in any of the shapes `super::usage` reads); ignored unless a
    /// sink needs it.
    fn usage(&mut self, _usage: Val<'a>) {}
    /// A later step starts at part `part` (an AI SDK UIMessage's step boundary): a cut may
    /// fall here. Units that follow belong to the step.
    fn step(&mut self, _part: usize) {}
    /// Where clearing may rewrite the tool result that started last (after its `unit`) or the
    /// arguments of the call reported last (after its `call`, [`Shape::Arguments`]). Only
    /// results a format can hold as text have one; ignored unless a sink needs it.
    fn spot(&mut self, _spot: Spot<'a>) {}
    /// The host pinned the message (its format's marker): it is never summarized or cleared.
    /// Called before the message's first unit (the records sink drops what follows).
    fn pin(&mut self) {}
    /// The message holds a summary the provider made of everything before it (readable or
    /// sealed): the provider reads nothing before the newest one.
    fn provider_summary(&mut self) {}
}

/// The place of a value clearing may rewrite: the value at `key` of the object `owner`
/// (added when missing), and what is written there.
pub(crate) struct Spot<'a> {
    /// The object that holds it.
    pub(crate) owner: Val<'a>,
    /// Its key.
    pub(crate) key: &'static str,
    /// What replaces it.
    pub(crate) shape: Shape,
}

impl<'a> Spot<'a> {
    /// The value at `key` of `owner`.
    pub(crate) fn new(
        owner: &super::object::Obj<'a, '_>,
        key: &'static str,
        shape: Shape,
    ) -> Spot<'a> {
        Spot {
            owner: owner.value,
            key,
            shape,
        }
    }
}

/// What clearing writes in place of a value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// The new text as a JSON string.
    Text,
    /// The new text as one text block: `[{"type":"text","text":…}]`.
    Blocks,
    /// An AI SDK tool output: `{"type":"text","value":…}` (`"error-text"` when `error`).
    #[cfg_attr(not(feature = "ai-sdk"), allow(dead_code))]
    Output {
        /// Whether the output was an error.
        error: bool,
    },
    /// Empty arguments: `"{}"` where they were JSON text, `{}` otherwise.
    Arguments,
}

/// Collects texts joined by line breaks (a system message given as parts), ignoring the rest.
#[derive(Default)]
pub(crate) struct Joined {
    texts: Vec<String>,
}

impl Joined {
    /// The texts joined by `\n`.
    pub(crate) fn text(self) -> String {
        self.texts.join("\n")
    }
}

impl<'a> Sink<'a> for Joined {
    fn unit(&mut self, _: Unit<'a>) {}
    fn text(&mut self, text: Text<'a>) {
        self.texts.push(text.into_string());
    }
    fn image(&mut self) {}
    fn thinking(&mut self, _: Text<'a>) {}
    fn opaque(&mut self, _: Text<'a>) {}
    fn call(&mut self, _: Cow<'a, str>, _: Text<'a>, _: Args<'a>) {}
    fn system(&mut self, _: String) {}
}

impl<'a> Text<'a> {
    /// A string's value, or an empty text when there is none.
    pub(crate) fn or_empty(value: Option<Val<'a>>) -> Text<'a> {
        match value {
            Some(value) => Text::Str(value),
            None => Text::Made(Cow::Borrowed("")),
        }
    }

    /// The text itself.
    pub(crate) fn into_string(self) -> String {
        match self {
            Text::Made(text) => text.into_owned(),
            Text::Str(value) if value.kind() == Kind::String && !value.escaped() => {
                value.raw().to_owned()
            }
            text => {
                let mut out = String::new();
                text.write_to(&mut out);
                out
            }
        }
    }

    /// Appends the text to `out`.
    pub(crate) fn write_to(&self, out: &mut String) {
        match self {
            Text::Str(value) => write_str(*value, out),
            Text::Json(value) => super::json::write_value(*value, out),
            Text::Value(Some(value)) if value.kind() == Kind::String => write_str(*value, out),
            Text::Value(value) => super::json::write_value(*value, out),
            Text::Made(text) => out.push_str(text),
        }
    }
}

/// Appends a JSON string's value (nothing for any other value).
fn write_str(value: Val, out: &mut String) {
    match (value.kind(), value.escaped()) {
        (Kind::String, false) => out.push_str(value.raw()),
        (Kind::String, true) => unescape_into(value.raw(), out),
        _ => {}
    }
}

impl Args<'_> {
    /// Appends the arguments as compact JSON, as `serde_json` writes the value they hold;
    /// `nodes` is scratch space.
    #[cfg_attr(
        not(any(feature = "openai-chat", feature = "openai-responses")),
        allow(unused_variables, clippy::ptr_arg)
    )]
    pub(crate) fn write_to(&self, nodes: &mut Vec<Node>, out: &mut String) {
        match self {
            Args::Value(value) => super::json::write_value(*value, out),
            #[cfg(any(feature = "openai-chat", feature = "openai-responses"))]
            Args::Held(value) => super::json::write_text(&held_text(*value), nodes, out),
        }
    }
}

/// The JSON text a string holds (empty when missing).
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code)
)]
pub(crate) fn held_text(value: Option<Val>) -> Cow<str> {
    value.and_then(|value| value.str()).unwrap_or_default()
}
