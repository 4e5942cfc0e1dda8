//! Finding what clearing may replace, from the events the format readers report: each tool
//! result (where, its tool, its tokens, whether it is cleared already or can be rewritten) and
//! each call (its tool, the path of a file read, what clearing its arguments frees). Nothing
//! is built but these facts: with the default heuristic, texts are scored where they are.

use std::borrow::Cow;

use context_compaction_scan::{Kind, Tape, Val};

use super::text::CLEARED_PREFIX;
use crate::error::{BoxError, Error, Result};
use crate::facts::{MessageFacts, estimator_failed};
use crate::formats::{Args, Format, Path, Shape, Sink, Spot, Tally, Text, Unit, Units};
use crate::json::Json;
use crate::message::{AssistantBlock, ContentBlock, Message, ToolCall, ToolResultMessage};
use crate::summary::FileTracking;
use crate::token::Estimator;

/// One tool result of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundResult {
    /// The index of the message that holds it.
    pub index: usize,
    /// The id of the call it answers.
    pub id: String,
    /// The tool's name, when the result gives it.
    pub name: Option<String>,
    /// Its estimated tokens, framing included.
    pub tokens: u64,
    /// Whether it holds a clearing's placeholder already.
    pub cleared: bool,
    /// Whether its format can hold it as text (and so clearing can rewrite it).
    pub editable: bool,
    /// Its text, when the finder was asked to keep texts (for trimming).
    pub text: Option<String>,
}

/// One tool call of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundCall {
    /// The index of the message that makes it.
    pub index: usize,
    /// Its id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// For a file-reading tool, the path it read.
    pub path: Option<String>,
    /// The tokens replacing its arguments with `{}` frees (`None`: they cannot be cleared).
    pub arguments_freed: Option<u64>,
}

/// The tool results and calls of a conversation, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// Every tool result, oldest first.
    pub results: Vec<FoundResult>,
    /// Every tool call, oldest first.
    pub calls: Vec<FoundCall>,
}

impl Found {
    /// What clearing may replace in canonical messages.
    pub fn of_messages(
        messages: &[Message],
        tracking: &FileTracking,
        estimator: &dyn Estimator,
    ) -> Result<Found> {
        let mut found = Found::default();
        for (index, message) in messages.iter().enumerate() {
            let path = || text!("messages[", index, "]");
            match message {
                Message::ToolResult(result) => found.results.push(FoundResult {
                    index,
                    id: result.tool_call_id.clone(),
                    name: result.tool_name.clone(),
                    tokens: MessageFacts::of(message, estimator)
                        .map_err(|e| estimator_failed(&path(), e))?
                        .tokens,
                    cleared: cleared_already(&result.content),
                    editable: true,
                    text: Some(result_text(result)),
                }),
                Message::Assistant(assistant) => {
                    for block in &assistant.content {
                        let AssistantBlock::ToolCall(call) = block else {
                            continue;
                        };
                        let freed = arguments_freed(call, estimator)
                            .map_err(|e| estimator_failed(&path(), e))?;
                        found.calls.push(FoundCall {
                            index,
                            id: call.id.clone(),
                            name: call.name.clone(),
                            path: file_path(tracking, &call.name, &call.arguments),
                            arguments_freed: Some(freed),
                        });
                    }
                }
                Message::User(_) => {}
            }
        }
        Ok(found)
    }
}

/// The sink that finds the results and calls of host messages as their reader reports them.
pub struct Finder<'e> {
    estimator: &'e dyn Estimator,
    tracking: &'e FileTracking,
    /// Whether results keep their texts (only the newest one's is kept).
    texts: bool,
    /// Whether calls get what clearing their arguments frees.
    arguments: bool,
    index: usize,
    /// What counts the tokens of the result being read.
    open: Option<Counter>,
    /// Whether the result being read has had content yet.
    content: bool,
    /// What clearing the arguments of the call reported last frees.
    pending: Option<u64>,
    found: Found,
    failed: Option<Error>,
}

/// Counts one unit as [`MessageFacts::of`] counts it: in place with the default heuristic.
enum Counter {
    Tally(Tally),
    Units(Units),
}

impl Counter {
    fn new(estimator: &dyn Estimator) -> Counter {
        match estimator.as_heuristic() {
            Some(heuristic) => Counter::Tally(Tally::new(heuristic)),
            None => Counter::Units(Units::default()),
        }
    }

    fn sink<'a>(&mut self) -> &mut dyn Sink<'a> {
        match self {
            Counter::Tally(tally) => tally,
            Counter::Units(units) => units,
        }
    }

    /// The unit's tokens and, with `text` (and units), its text.
    fn finish(
        self,
        estimator: &dyn Estimator,
        text: bool,
    ) -> Result<(u64, Option<String>), BoxError> {
        let units = match self {
            Counter::Tally(tally) => return Ok((tally.finish().tokens, None)),
            Counter::Units(units) => units.finish().units,
        };
        let Some(unit) = units.first() else {
            return Ok((0, None));
        };
        let tokens = MessageFacts::of(unit, estimator)?.tokens;
        let text = match unit {
            Message::ToolResult(result) if text => Some(result_text(result)),
            _ => None,
        };
        Ok((tokens, text))
    }
}

impl<'e> Finder<'e> {
    /// A finder counting with `estimator`, taking file paths where `tracking` says. With
    /// `texts`, the newest result keeps its text; with `arguments`, each call gets what
    /// clearing its arguments frees.
    pub fn new(
        estimator: &'e dyn Estimator,
        tracking: &'e FileTracking,
        texts: bool,
        arguments: bool,
    ) -> Finder<'e> {
        Finder {
            estimator,
            tracking,
            texts,
            arguments,
            index: 0,
            open: None,
            content: false,
            pending: None,
            found: Found::default(),
            failed: None,
        }
    }

    /// Reads host message `index` (`message`, in `format`).
    pub(crate) fn read(&mut self, format: Format, index: usize, message: Val) -> Result<()> {
        self.index = index;
        format.read_into(message, Path::message(index), self)?;
        self.close();
        Ok(())
    }

    /// Reads host message `index` from its JSON text.
    pub fn read_json(&mut self, format: Format, index: usize, text: &str) -> Result<()> {
        let mut nodes = Vec::new();
        let tape = crate::formats::scan(text, &text!("messages[", index, "]"), &mut nodes)?;
        let message = tape.root();
        self.read(format, index, message)
    }

    /// What was found.
    pub fn finish(self) -> Result<Found> {
        match self.failed {
            Some(error) => Err(error),
            None => Ok(self.found),
        }
    }

    /// Ends the result being read, if any.
    fn close(&mut self) {
        let Some(counter) = self.open.take() else {
            return;
        };
        let counted = counter.finish(self.estimator, self.texts);
        let counted =
            counted.map_err(|e| estimator_failed(&text!("messages[", self.index, "]"), e));
        if let (Some((tokens, text)), Some(result)) =
            (self.fail(counted), self.found.results.last_mut())
        {
            result.tokens = tokens;
            result.text = text;
        }
    }

    fn fail<T>(&mut self, result: Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.failed.get_or_insert(error);
                None
            }
        }
    }

    /// The tokens of a call with `arguments` (no name), as its message's facts count it.
    fn call_tokens(&self, arguments: Args) -> Result<u64> {
        let mut counter = Counter::new(self.estimator);
        let sink = counter.sink();
        sink.unit(Unit::Assistant(None));
        sink.call(Cow::Borrowed(""), Text::Made(Cow::Borrowed("")), arguments);
        let counted = counter.finish(self.estimator, false);
        let path = || text!("messages[", self.index, "]");
        Ok(counted.map_err(|e| estimator_failed(&path(), e))?.0)
    }
}

impl<'a> Sink<'a> for Finder<'_> {
    fn unit(&mut self, unit: Unit<'a>) {
        self.close();
        let Unit::ToolResult { id, name, .. } = &unit else {
            return;
        };
        if self.texts {
            // Only the newest result's text is kept.
            if let Some(last) = self.found.results.last_mut() {
                last.text = None;
            }
        }
        self.found.results.push(FoundResult {
            index: self.index,
            id: id.clone().into_owned(),
            name: name.clone().map(Cow::into_owned),
            tokens: 0,
            cleared: false,
            editable: false,
            text: None,
        });
        let mut counter = if self.texts {
            Counter::Units(Units::default())
        } else {
            Counter::new(self.estimator)
        };
        counter.sink().unit(unit);
        self.open = Some(counter);
        self.content = false;
    }

    fn text(&mut self, text: Text<'a>) {
        let first = !std::mem::replace(&mut self.content, true);
        if first
            && self.open.is_some()
            && starts_cleared(&text)
            && let Some(result) = self.found.results.last_mut()
        {
            result.cleared = true;
        }
        if let Some(counter) = &mut self.open {
            counter.sink().text(text);
        }
    }

    fn image(&mut self) {
        self.content = true;
        if let Some(counter) = &mut self.open {
            counter.sink().image();
        }
    }

    fn thinking(&mut self, text: Text<'a>) {
        self.opaque(text);
    }

    fn opaque(&mut self, text: Text<'a>) {
        self.content = true;
        if let Some(counter) = &mut self.open {
            counter.sink().opaque(text);
        }
    }

    fn call(&mut self, id: Cow<'a, str>, name: Text<'a>, arguments: Args<'a>) {
        self.close();
        let name = name.into_string();
        let path = match &arguments {
            _ if !self.tracking.read_tools.contains(&name) => None,
            Args::Value(value) => value.and_then(|v| val_path(self.tracking, v)),
            #[cfg(any(feature = "openai-chat", feature = "openai-responses"))]
            Args::Held(value) => text_path(self.tracking, &crate::formats::held_text(*value)),
        };
        let freed = match self.arguments {
            false => None,
            true => {
                let before = self.call_tokens(arguments);
                // Counted as the value `{}` (as the text `{}` counts, with no numbers to read
                // differently), so that a module without the OpenAI readers has no JSON text.
                let mut nodes = Vec::with_capacity(1);
                let scanned = context_compaction_scan::value(b"{}", 0, &mut nodes).is_ok();
                let tape = Tape::new("{}", &nodes);
                let empty = scanned.then(|| tape.root());
                let after = self.call_tokens(Args::Value(empty));
                let both = before.and_then(|b| after.map(|a| b.saturating_sub(a)));
                self.fail(both)
            }
        };
        self.found.calls.push(FoundCall {
            index: self.index,
            id: id.into_owned(),
            name,
            path,
            // Set once the spot says the arguments are there to rewrite.
            arguments_freed: None,
        });
        self.pending = freed;
    }

    fn system(&mut self, _: String) {}

    fn spot(&mut self, spot: Spot<'a>) {
        match spot.shape {
            Shape::Arguments => {
                let pending = self.pending.take();
                if let Some(call) = self.found.calls.last_mut() {
                    call.arguments_freed = pending.filter(|_| spot.owner.get(spot.key).is_some());
                }
            }
            _ => {
                if let Some(result) = self
                    .found
                    .results
                    .last_mut()
                    .filter(|_| self.open.is_some())
                {
                    result.editable = true;
                }
            }
        }
    }
}

/// Whether a result's first content is a clearing's placeholder.
fn starts_cleared(text: &Text) -> bool {
    match text {
        // The prefix has nothing JSON escapes, so the raw text starts with it when the value
        // does: a long result is not unescaped to look at its start.
        Text::Str(value) | Text::Value(Some(value)) => {
            value.kind() == Kind::String && value.raw().starts_with(CLEARED_PREFIX)
        }
        Text::Made(text) => text.starts_with(CLEARED_PREFIX),
        _ => false,
    }
}

/// Whether canonical content starts with a clearing's placeholder.
pub(super) fn cleared_already(content: &[ContentBlock]) -> bool {
    matches!(content.first(), Some(ContentBlock::Text(t)) if t.starts_with(CLEARED_PREFIX))
}

/// The text of a result's content (images are dropped by a trim).
pub(super) fn result_text(result: &ToolResultMessage) -> String {
    let mut out = String::new();
    for block in &result.content {
        if let ContentBlock::Text(text) = block {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(text);
        }
    }
    out
}

/// The path in a file read's arguments.
fn val_path(tracking: &FileTracking, arguments: Val) -> Option<String> {
    tracking
        .path_keys
        .iter()
        .find_map(|key| Some(arguments.get(key)?.str()?.into_owned()))
}

/// The path in a file read's arguments given as JSON text.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code)
)]
fn text_path(tracking: &FileTracking, text: &str) -> Option<String> {
    let mut nodes = Vec::new();
    let tape = crate::formats::scan(text, "arguments", &mut nodes).ok()?;
    let arguments = tape.root();
    val_path(tracking, arguments)
}

/// The path of a canonical call, when its tool reads files.
fn file_path(tracking: &FileTracking, name: &str, arguments: &Json) -> Option<String> {
    if !tracking.read_tools.iter().any(|tool| tool == name) {
        return None;
    }
    tracking
        .path_keys
        .iter()
        .find_map(|key| arguments.get_str(key))
}

/// What replacing a canonical call's arguments with `{}` frees.
fn arguments_freed(
    call: &ToolCall,
    estimator: &dyn Estimator,
) -> Result<u64, crate::error::BoxError> {
    let before = estimator.count_tokens(call.arguments.as_str())?;
    Ok(before.saturating_sub(estimator.count_tokens("{}")?))
}
