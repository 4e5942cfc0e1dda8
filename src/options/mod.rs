//! Reading a host's option objects: every option key, its type, its default, its check and the
//! error naming its place is here; a host (the wasm binding) gives only the one guarded read of
//! a field ([`Host`]). A throwing getter is the host's error naming the place; a value of the
//! wrong type is an error worded here.
//!
//! `config` reads a `Compactor`'s config and a `ContextManager`'s options, `call` the options of
//! one of its calls, `request` a request's fields besides its messages, `handed` the objects a
//! host hands back.

mod call;
mod config;
mod handed;
mod pinned;
mod request;
#[cfg(test)]
mod tests;
mod thrown;

pub use call::{MaintainCall, RunCall, heuristic, maintain_call, run_call};
pub use config::{ManagerOptions, Settings, SummarizerOptions, compactor, manager};
pub use handed::{answer, clear_plan, cut, draft, plan, usage, verdict};
pub use pinned::pinned;
pub use request::{
    EstimatorOptions, HostRequest, NATIVE_MARKER, estimator, format, plan_options,
    provider_compaction, reported, request, system_prompt, tools, usage_of,
};
pub use thrown::{describe, thrown};

use crate::error::{Error, Result, whole_number};

/// An option the module `ChatPreview` loads does not read (built without the feature
/// `plan-api`): refused by name, so a host that passes it learns why instead of getting a plan
/// that silently left it out.
fn not_in_build(path: &str) -> Error {
    Error::invalid_request(text!(
        path,
        ": not read by ChatPreview's module (context-compaction/ai-sdk-preview); plan with context-compaction/plan"
    ))
}

/// Nothing, or [`not_in_build`] when `value` (the option `path`) is given: for an option the
/// module `ChatPreview` loads leaves out.
fn refused_if_given<M, H: Host<M>>(value: &H, path: &str) -> Result<()> {
    match value.got() {
        Got::Absent => Ok(()),
        _ => Err(not_in_build(path)),
    }
}

/// What a host value is, as the options read it (a string's text is [`Host::string`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Got {
    /// `undefined` or `null`: the option is not given.
    Absent,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string.
    Text,
    /// A function (`typeof` `"function"`).
    Function,
    /// An object (`typeof` `"object"`, arrays included).
    Object,
    /// Anything else (a symbol, a bigint).
    Other,
}

/// A host value an option is read from. `M` is a type of the host's own, so that a host
/// crate may implement the trait for a value type it does not own (the wasm binding's
/// `JsValue`); it is never used otherwise.
pub trait Host<M>: Sized + Clone {
    /// `self[key]` (nothing when `self` is no object); a throwing getter is an
    /// [`Error::InvalidRequest`] naming `{path}.{key}`.
    fn field(&self, key: &str, path: &str) -> Result<Self>;
    /// What `self` is.
    fn got(&self) -> Got;
    /// The string `self` is, if it is one.
    fn string(&self) -> Option<String>;
    /// Its `typeof`.
    fn type_of(&self) -> String;
    /// `self[key]`, absent when `self` is no object or the getter throws (for a thrown value,
    /// which is read without throwing again).
    fn peek(&self, key: &str) -> Self;
    /// A copy of the array `self` (the host's own, read once), `None` when it is not an
    /// array (a throwing getter is an error naming `path`).
    fn list(&self, path: &str) -> Result<Option<Self>>;
    /// The items of a [`Host::list`] copy.
    fn elements(&self) -> Vec<Self>;
    /// `self` as JSON text, as the host's JSON writer writes it; what it throws is an error
    /// naming `path`.
    fn json(&self, path: &str) -> Result<String>;
    /// The items of a copy of the array `self`, `None` when it is not an array.
    fn items(&self, path: &str) -> Result<Option<Vec<Self>>> {
        Ok(self.list(path)?.map(|list| list.elements()))
    }
}

/// `object[key]` as a number, or nothing.
#[inline(never)]
pub fn number<M, H: Host<M>>(object: &H, key: &str, path: &str) -> Result<Option<f64>> {
    match object.field(key, path)?.got() {
        Got::Absent => Ok(None),
        Got::Number(n) => Ok(Some(n)),
        _ => Err(Error::invalid_request(text!(
            path,
            ".",
            key,
            " must be a number"
        ))),
    }
}

/// `object[key]` as a whole non-negative number, or nothing (request errors; a config maps
/// them with [`Error::into_config`]).
#[inline(never)]
pub fn whole<M, H: Host<M>>(object: &H, key: &str, path: &str) -> Result<Option<u64>> {
    number(object, key, path)?
        .map(|n| whole_number(n, &text!(path, ".", key)).map_err(Error::invalid_request))
        .transpose()
}

/// `object[key]` as a boolean, or nothing.
#[inline(never)]
pub fn flag<M, H: Host<M>>(object: &H, key: &str, path: &str) -> Result<Option<bool>> {
    match object.field(key, path)?.got() {
        Got::Absent => Ok(None),
        Got::Bool(b) => Ok(Some(b)),
        _ => Err(Error::invalid_request(text!(
            path,
            ".",
            key,
            ": expected a boolean"
        ))),
    }
}

/// `value` as a string, or nothing; `path` names it.
#[inline(never)]
pub fn text<M, H: Host<M>>(value: &H, path: &str) -> Result<Option<String>> {
    match value.string() {
        Some(text) => Ok(Some(text)),
        None if value.got() == Got::Absent => Ok(None),
        None => Err(Error::invalid_request(text!(path, ": expected a string"))),
    }
}

/// `object[key]` as a function, or nothing; anything else is `wrong("{path}.{key}")`.
#[inline(never)]
pub fn function<M, H: Host<M>>(
    object: &H,
    key: &str,
    path: &str,
    wrong: fn(String) -> Error,
) -> Result<Option<H>> {
    let value = object.field(key, path)?;
    match value.got() {
        Got::Absent => Ok(None),
        Got::Function => Ok(Some(value)),
        _ => Err(wrong(text!(path, ".", key))),
    }
}

/// A focus (`focus` of a request or a call): a string, blank being none.
pub fn focus<M, H: Host<M>>(object: &H, path: &str) -> Result<Option<String>> {
    let focus = text(&object.field("focus", path)?, &text!(path, ".focus"))?;
    Ok(focus.filter(|f| !f.trim().is_empty()))
}

/// Whether `value` is an object and no array: an optional section of a config.
fn section<M, H: Host<M>>(value: &H, path: &str) -> Result<bool> {
    Ok(value.got() == Got::Object && value.items(path)?.is_none())
}

/// The strings of the array `value`, `None` when it is no array of strings.
fn names<M, H: Host<M>>(value: &H, path: &str) -> Result<Option<Vec<String>>> {
    let items = value.items(path)?;
    Ok(items.and_then(|items| items.iter().map(H::string).collect()))
}
