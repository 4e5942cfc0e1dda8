//! One JSON object of a message, read with errors that name the place (`messages[3].content[1]
//! .type: …`). The place is built only when there is an error.

use std::borrow::Cow;
use std::fmt;

use context_compaction_scan::{Children, Kind, Val};

use crate::error::{Error, Result};

/// Where a value is in the request: a root label, then keys and indices.
#[derive(Clone, Copy)]
pub(crate) struct Path<'p> {
    parent: Option<&'p Path<'p>>,
    key: &'p str,
    index: Option<usize>,
}

impl<'p> Path<'p> {
    /// The root: `label` as it is (`messages[3]`).
    pub(crate) fn root(label: &'p str) -> Path<'p> {
        Path {
            parent: None,
            key: label,
            index: None,
        }
    }

    /// The root `messages[i]`.
    pub(crate) fn message(i: usize) -> Path<'static> {
        Path {
            parent: None,
            key: "messages",
            index: Some(i),
        }
    }
}

impl crate::text::Piece for Path<'_> {
    fn push_to(&self, text: &mut String) {
        if let Some(parent) = self.parent {
            parent.push_to(text);
            text.push('.');
        }
        text.push_str(self.key);
        if let Some(i) = self.index {
            text.push('[');
            i.push_to(text);
            text.push(']');
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&text!(self))
    }
}

/// An object and its place.
pub(crate) struct Obj<'a, 'p> {
    /// The object.
    pub(crate) value: Val<'a>,
    /// Where it is.
    pub(crate) path: Path<'p>,
    /// For a message, the keys its reader may read (see [`super::Format::keys`]); checked in
    /// debug builds, and left out of others (every `Obj` made is two words smaller).
    #[cfg(debug_assertions)]
    keys: Option<&'static [&'static str]>,
}

impl<'a, 'p> Obj<'a, 'p> {
    /// `value` at `path`, which must be an object.
    pub(crate) fn new(value: Val<'a>, path: Path<'p>) -> Result<Obj<'a, 'p>> {
        let obj = Obj {
            value,
            path,
            #[cfg(debug_assertions)]
            keys: None,
        };
        if value.kind() != Kind::Object {
            return Err(obj.not_object());
        }
        Ok(obj)
    }

    #[cold]
    #[inline(never)]
    fn not_object(&self) -> Error {
        self.invalid(&text!("expected an object, got ", describe(self.value)))
    }

    /// A message, of which its reader may read only `keys` (all when `None`).
    pub(crate) fn message(
        value: Val<'a>,
        path: Path<'p>,
        keys: Option<&'static [&'static str]>,
    ) -> Result<Obj<'a, 'p>> {
        #[cfg(not(debug_assertions))]
        let _ = keys;
        Ok(Obj {
            #[cfg(debug_assertions)]
            keys,
            ..Obj::new(value, path)?
        })
    }

    /// A value at `path` read as an object whatever it is (content given on its own).
    pub(crate) fn at(value: Val<'a>, path: Path<'p>) -> Obj<'a, 'p> {
        Obj {
            value,
            path,
            #[cfg(debug_assertions)]
            keys: None,
        }
    }

    /// The object at `key`.
    pub(crate) fn child<'q>(&'q self, value: Val<'a>, key: &'q str) -> Result<Obj<'a, 'q>> {
        Obj::new(value, self.place(key, None))
    }

    /// The object at index `i` of the array at `key`.
    pub(crate) fn item<'q>(
        &'q self,
        value: Val<'a>,
        key: &'q str,
        i: usize,
    ) -> Result<Obj<'a, 'q>> {
        Obj::new(value, self.place(key, Some(i)))
    }

    fn place<'q>(&'q self, key: &'q str, index: Option<usize>) -> Path<'q> {
        Path {
            parent: Some(&self.path),
            key,
            index,
        }
    }

    /// The value at `key`, `null` read as missing.
    pub(crate) fn get(&self, key: &str) -> Option<Val<'a>> {
        #[cfg(debug_assertions)]
        debug_assert!(
            self.keys.is_none_or(|keys| keys.contains(&key)),
            "a reader reads \"{key}\", which is not among its format's keys"
        );
        self.value.field(key)
    }

    /// The string at `key`, if there is one.
    pub(crate) fn string(&self, key: &str) -> Result<Option<Val<'a>>> {
        match self.get(key) {
            None => Ok(None),
            Some(value) if value.kind() == Kind::String => Ok(Some(value)),
            Some(other) => Err(self.not_string(key, Some(other))),
        }
    }

    /// The string at `key`, which must be there.
    pub(crate) fn required(&self, key: &str) -> Result<Val<'a>> {
        match self.get(key) {
            Some(value) if value.kind() == Kind::String => Ok(value),
            other => Err(self.not_string(key, other)),
        }
    }

    /// The error for a value at `key` that is not a string (`None`: missing, and required).
    #[cold]
    #[inline(never)]
    fn not_string(&self, key: &str, found: Option<Val>) -> Error {
        match found {
            None => self.error(key, "missing (expected a string)"),
            Some(other) => self.error(key, &text!("expected a string, got ", describe(other))),
        }
    }

    /// The value of the string at `key`, if there is one.
    pub(crate) fn str(&self, key: &str) -> Result<Option<Cow<'a, str>>> {
        Ok(self.string(key)?.and_then(|v| v.str()))
    }

    /// The value of the string at `key`, which must be there.
    pub(crate) fn required_str(&self, key: &str) -> Result<Cow<'a, str>> {
        Ok(self.required(key)?.str().unwrap_or_default())
    }

    /// The boolean at `key` (missing is `false`).
    pub(crate) fn bool(&self, key: &str) -> Result<bool> {
        match self.get(key) {
            None => Ok(false),
            Some(value) if value.kind() == Kind::Bool => Ok(value.raw() == "true"),
            Some(_) => Err(self.error(key, "expected a boolean")),
        }
    }

    /// The elements of the array at `key` (missing is empty).
    pub(crate) fn array(&self, key: &str) -> Result<Children<'a>> {
        self.items(key, self.get(key))
    }

    /// The elements of `value`, the array at `key` already looked up (missing is empty).
    pub(crate) fn items(&self, key: &str, value: Option<Val<'a>>) -> Result<Children<'a>> {
        match value {
            None => Ok(Val::EMPTY.children()),
            Some(value) if value.kind() == Kind::Array => Ok(value.children()),
            Some(other) => Err(self.error(key, &text!("expected an array, got ", describe(other)))),
        }
    }

    /// The `type` field.
    pub(crate) fn kind(&self) -> Result<Cow<'a, str>> {
        self.required_str("type")
    }

    /// An `invalid_request` error at `key` of this object.
    pub(crate) fn error(&self, key: &str, what: &str) -> Error {
        Error::invalid_request(text!(self.path, ".", key, ": ", what))
    }

    /// An `invalid_request` error at this object.
    pub(crate) fn invalid(&self, what: &str) -> Error {
        Error::invalid_request(text!(self.path, ": ", what))
    }

    /// The error for an unknown `type`.
    pub(crate) fn unknown(&self, found: &str, expected: &str) -> Error {
        self.error(
            "type",
            &text!(
                "unknown block type \"",
                found,
                "\" (expected ",
                expected,
                ")"
            ),
        )
    }
}

/// How a JSON value is described in errors ("a number", "an array", …).
pub(crate) fn describe(value: Val) -> &'static str {
    match value.kind() {
        Kind::Null => "null",
        Kind::Bool => "a boolean",
        Kind::Number => "a number",
        Kind::String => "a string",
        Kind::Array => "an array",
        Kind::Object => "an object",
    }
}
