//! Any value of a tape written as compact JSON, byte for byte as `serde_json` writes the value
//! it reads: the scanner crate's writer (compiled for speed) where it can, and here the objects
//! it leaves, those with a repeated key (one entry per key, in the place of its first, with the
//! value of its last) or with too many keys for it to check.

use std::borrow::Cow;

use context_compaction_scan::{Kind, NumberText, Val, escape_into, write_json};

use crate::hash::{HashMap, map_with_capacity};

/// Appends `value` as compact JSON, its numbers written by `number`; `None` (with part of it
/// written) when `number` refuses one.
pub(crate) fn write(value: Val, number: NumberText, out: &mut String) -> Option<()> {
    let start = out.len();
    if write_json(value, number, out).is_some() {
        return Some(());
    }
    out.truncate(start);
    general(value, number, out)
}

fn general(value: Val, number: NumberText, out: &mut String) -> Option<()> {
    match value.kind() {
        Kind::Object => object(value, number, out),
        Kind::Array => {
            out.push('[');
            for (i, item) in value.children().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                general(item, number, out)?;
            }
            out.push(']');
            Some(())
        }
        _ => write_json(value, number, out),
    }
}

/// Whether a value may hold an object with a repeated key: JSON text read as it came (a body,
/// tool definitions, OpenAI's arguments text). A module without those (the preview one) reads
/// only JavaScript values, laid out by the walker or written by `JSON.stringify`: an object's
/// own keys, none repeated, so it writes every object's entries as they stand.
const REPEATS: bool = cfg!(any(
    feature = "plan-api",
    feature = "openai-chat",
    feature = "openai-responses"
));

fn object(value: Val, number: NumberText, out: &mut String) -> Option<()> {
    if !REPEATS {
        return entries(value.children(), number, out);
    }
    let mut pairs: Vec<(Cow<str>, Val)> = Vec::new();
    let mut children = value.children();
    while let (Some(key), Some(item)) = (children.next(), children.next()) {
        pairs.push((key.str().unwrap_or_default(), item));
    }
    // Each key once, in the order of first places, with the value last given.
    let mut place: HashMap<&str, usize> = map_with_capacity(pairs.len());
    let mut entries: Vec<(&str, Val)> = Vec::with_capacity(pairs.len());
    for (key, item) in &pairs {
        match place.get(key.as_ref()) {
            Some(&at) => {
                if let Some(entry) = entries.get_mut(at) {
                    // serde_json reads the value it replaces: a number it refuses there is
                    // refused too.
                    general(entry.1, number, &mut String::new())?;
                    entry.1 = *item;
                }
            }
            None => {
                place.insert(key, entries.len());
                entries.push((key, *item));
            }
        }
    }
    out.push('{');
    for (i, (key, item)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        escape_into(key, out);
        out.push_str("\":");
        general(item, number, out)?;
    }
    out.push('}');
    Some(())
}

/// An object's entries as they stand, from its children (key, value, key, value, …).
fn entries<'a>(
    mut children: impl Iterator<Item = Val<'a>>,
    number: NumberText,
    out: &mut String,
) -> Option<()> {
    out.push('{');
    let mut first = true;
    while let (Some(key), Some(item)) = (children.next(), children.next()) {
        if !first {
            out.push(',');
        }
        first = false;
        out.push('"');
        escape_into(&key.str().unwrap_or_default(), out);
        out.push_str("\":");
        general(item, number, out)?;
    }
    out.push('}');
    Some(())
}
