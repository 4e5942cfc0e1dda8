//! Rewriting tool results and tool-call arguments inside one host message, for clearing and
//! trimming (`crate::clearing`). The format's reader says where each result's content and each
//! call's arguments are (a [`Spot`]); the message's JSON text is copied with those values
//! replaced, every other byte kept. The new message thus stays a valid message of its format:
//! ids, roles, types and every other field are as they were, so pairing is untouched.

use std::borrow::Cow;
use std::ops::Range;

use context_compaction_scan::{Kind, Val, escape_into};

use super::Format;
use super::object::Path;
use super::sink::{Args, Shape, Sink, Spot, Text, Unit};
use crate::error::Result;

/// What to change in a message.
pub struct Edit<'e> {
    /// The new text of the result of each call id named.
    pub results: &'e [(&'e str, &'e str)],
    /// The ids of the calls whose arguments are cleared (to an empty object).
    pub arguments: &'e [&'e str],
}

/// A message rewritten by [`Format::edit_json`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// Its new JSON text.
    pub text: String,
    /// The ids of the results rewritten, in the message's order.
    pub results: Vec<String>,
    /// Whether the arguments of a call were cleared.
    pub arguments: bool,
}

impl Format {
    /// One host message's JSON `text` with `edit` applied; `None` when nothing in it changes.
    /// Only results a format can hold as text are rewritten: provider-side results with a
    /// fixed shape (Anthropic `*_tool_result` blocks, Responses computer-call screenshots, AI
    /// SDK provider-executed results) are left as they are. `path` names it in errors.
    pub fn edit_json(self, text: &str, path: &str, edit: &Edit) -> Result<Option<Edited>> {
        let mut nodes = Vec::new();
        let tape = super::scan(text, path, &mut nodes)?;
        let message = tape.root();
        let mut editor = Editor {
            edit,
            text,
            last: None,
            splices: Vec::new(),
            results: Vec::new(),
            arguments: false,
        };
        self.read_into(message, Path::root(path), &mut editor)?;
        if editor.splices.is_empty() {
            return Ok(None);
        }
        let (results, arguments) = (std::mem::take(&mut editor.results), editor.arguments);
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        // Spots come in the reader's order, which is not always the text's: the first one in
        // the text each time (a few per message; a sort would cost the module kilobytes).
        while let Some(first) = (0..editor.splices.len()).min_by_key(|&k| {
            editor
                .splices
                .get(k)
                .map_or(usize::MAX, |(range, _)| range.start)
        }) {
            let (range, value) = editor.splices.swap_remove(first);
            let Some(before) = text.get(copied..range.start) else {
                continue;
            };
            out.push_str(before);
            out.push_str(&value);
            copied = range.end;
        }
        out.push_str(text.get(copied..).unwrap_or(""));
        Ok(Some(Edited {
            text: out,
            results,
            arguments,
        }))
    }
}

/// What the spots that follow belong to: a result or a call, by id.
enum Last {
    Result(String),
    Call(String),
}

/// The sink that turns the spots `edit` names into splices of the message's text.
struct Editor<'e, 't> {
    edit: &'e Edit<'e>,
    text: &'t str,
    last: Option<Last>,
    splices: Vec<(Range<usize>, String)>,
    results: Vec<String>,
    arguments: bool,
}

impl Editor<'_, '_> {
    /// The splice that puts `value` at `spot`: over the value there, or added as the
    /// object's first key when it is missing.
    fn splice(&self, spot: &Spot, value: String) -> Option<(Range<usize>, String)> {
        let offset = |v: Val| (v.raw().as_ptr() as usize).checked_sub(self.text.as_ptr() as usize);
        match spot.owner.get(spot.key) {
            Some(old) => {
                let start = offset(old)?;
                let end = start + old.raw().len();
                // A string's raw text is what is between its quotes.
                let range = match old.kind() {
                    Kind::String => start.checked_sub(1)?..end + 1,
                    _ => start..end,
                };
                Some((range, value))
            }
            None => {
                let at = offset(spot.owner)? + 1;
                let comma = if spot.owner.children().next().is_some() {
                    ","
                } else {
                    ""
                };
                Some((at..at, text!("\"", spot.key, "\":", value, comma)))
            }
        }
    }
}

/// `text` as JSON in `shape`.
fn written(shape: Shape, text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    escape_into(text, &mut quoted);
    quoted.push('"');
    match shape {
        Shape::Blocks => text!("[{\"type\":\"text\",\"text\":", quoted, "}]"),
        Shape::Output { error } => {
            let kind = if error { "error-text" } else { "text" };
            text!("{\"type\":\"", kind, "\",\"value\":", quoted, "}")
        }
        Shape::Text | Shape::Arguments => quoted,
    }
}

impl<'a> Sink<'a> for Editor<'_, '_> {
    fn unit(&mut self, unit: Unit<'a>) {
        self.last = match unit {
            Unit::ToolResult { id, .. } => Some(Last::Result(id.into_owned())),
            _ => None,
        };
    }
    fn text(&mut self, _: Text<'a>) {}
    fn image(&mut self) {}
    fn thinking(&mut self, _: Text<'a>) {}
    fn opaque(&mut self, _: Text<'a>) {}
    fn call(&mut self, id: Cow<'a, str>, _: Text<'a>, _: Args<'a>) {
        self.last = Some(Last::Call(id.into_owned()));
    }
    fn system(&mut self, _: String) {}

    fn spot(&mut self, spot: Spot<'a>) {
        let splice = match (&self.last, spot.shape) {
            (Some(Last::Call(id)), Shape::Arguments) => {
                let named = self.edit.arguments.contains(&id.as_str());
                // Arguments given as JSON text stay text; missing ones stay missing.
                let old = spot.owner.get(spot.key).filter(|_| named);
                let value = match old.map(|v| v.kind()) {
                    None => None,
                    Some(Kind::String) => Some("\"{}\""),
                    Some(_) => Some("{}"),
                };
                self.arguments |= value.is_some();
                value.and_then(|value| self.splice(&spot, value.to_owned()))
            }
            (Some(Last::Result(id)), shape) if shape != Shape::Arguments => {
                let new = self.edit.results.iter().find(|(named, _)| named == id);
                let splice = new.and_then(|(_, text)| self.splice(&spot, written(shape, text)));
                if splice.is_some() {
                    self.results.push(id.clone());
                }
                splice
            }
            _ => None,
        };
        self.splices.extend(splice);
    }
}

impl Format {
    /// One host message's JSON `text` with the middle of its largest user text cut so that it
    /// comes to about `over.target` tokens by `estimator` (`crate::oversized::fit`), and its
    /// tokens: the reader says which strings are user text, every other byte is kept. `None`
    /// when it holds no such text long enough.
    pub fn trim_user_json(
        self,
        text: &str,
        path: &str,
        over: &crate::oversized::Oversized,
        estimator: &dyn crate::token::Estimator,
    ) -> Result<Option<(String, u64)>> {
        let mut nodes = Vec::new();
        let tape = super::scan(text, path, &mut nodes)?;
        let message = tape.root();
        let mut largest = LargestUserText::default();
        self.read_into(message, Path::root(path), &mut largest)?;
        let Some(value) = largest.best else {
            return Ok(None);
        };
        let raw = value.raw();
        let Some(start) = (raw.as_ptr() as usize).checked_sub(text.as_ptr() as usize) else {
            return Ok(None);
        };
        // A string's raw text is what is between its quotes.
        let (Some(before), Some(after)) = (text.get(..start), text.get(start + raw.len()..)) else {
            return Ok(None);
        };
        let old = value.str().unwrap_or_default();
        crate::oversized::fit(old.chars().count(), over, |keep, removed| {
            let Some(trimmed) = crate::oversized::trim_text(&old, keep, removed) else {
                return Ok(None);
            };
            let mut out = String::with_capacity(before.len() + trimmed.len() + after.len());
            out.push_str(before);
            escape_into(&trimmed, &mut out);
            out.push_str(after);
            let tokens = self.facts_json(&out, path, estimator)?.tokens;
            Ok(Some((out, tokens)))
        })
    }
}

/// The sink that finds the longest string a reader reports as text of a user unit.
#[derive(Default)]
struct LargestUserText<'a> {
    in_user: bool,
    best: Option<Val<'a>>,
}

impl<'a> Sink<'a> for LargestUserText<'a> {
    fn unit(&mut self, unit: Unit<'a>) {
        self.in_user = matches!(unit, Unit::User);
    }
    fn text(&mut self, text: Text<'a>) {
        let value = match text {
            Text::Str(value) | Text::Value(Some(value)) if self.in_user => value,
            _ => return,
        };
        let longer = self.best.is_none_or(|b| value.raw().len() > b.raw().len());
        if value.kind() == Kind::String && longer {
            self.best = Some(value);
        }
    }
    fn image(&mut self) {}
    fn thinking(&mut self, _: Text<'a>) {}
    fn opaque(&mut self, _: Text<'a>) {}
    fn call(&mut self, _: Cow<'a, str>, _: Text<'a>, _: Args<'a>) {}
    fn system(&mut self, _: String) {}
}
