//! The size of a message: what a plan from the tail knows of a message it does not read
//! (`super::sample`, `super::fill_unread`). It is the UTF-16 length of every key and string
//! under the top-level keys the format's reader reads (all of them where the reader may read
//! any, OpenAI Responses), each other value (number, boolean, `null`) counting 4, as is a
//! container nested [`WALK_DEPTH`] deep or more. It grows with the text a reader would score,
//! and JavaScript measures it on the host's objects without copying them: the package's
//! sizer (`pkg-template/host/size.js`) computes the same number, defined here (the differential
//! test checks the two agree on every fixture).
//!
//! A size pass also names the messages a size would misdescribe: the system messages (by
//! their top-level `role`, [`Format::system_roles`]), the pinned ones ([`Format::pin_path`],
//! listed with them: both are read exactly) and the failed attempts
//! ([`Format::failed_mark`]).

use context_compaction_scan::{Kind, Val, WALK_DEPTH};

use crate::error::Result;
use crate::formats::{self, Format};
use crate::history::Sizes;

/// What a number, a boolean, `null` or a container too deep to follow counts.
const SCALAR: usize = 4;

/// The size of one host message of `format` given as its JSON text; `path` names it in the
/// error of a text that is not JSON.
pub fn of_json(format: Format, text: &str, path: &str) -> Result<f64> {
    let mut nodes = Vec::new();
    let tape = formats::scan(text, path, &mut nodes)?;
    let message = tape.root();
    Ok(of_message(message, format.keys()) as f64)
}

/// The sizes of host messages of `format` given as JSON texts (of `only`, indices into
/// `texts`, in their order, when given: the indices [`Sizes`] names are then positions in
/// `only`), and which of them are system messages and failed attempts. A text that is not
/// JSON is an error naming it (`messages[i]`), or with `skip_unreadable` has a NaN size.
pub fn of_texts<T: AsRef<str>>(
    format: Format,
    texts: &[T],
    only: Option<&[u32]>,
    skip_unreadable: bool,
) -> Result<Sizes> {
    let mut found = Sizes::default();
    let all = || (0..texts.len() as u32).collect::<Vec<u32>>();
    let indices = only.map_or_else(all, <[u32]>::to_vec);
    let mut nodes = Vec::new();
    for (k, &i) in indices.iter().enumerate() {
        let text = texts.get(i as usize).map_or("", AsRef::as_ref);
        nodes.clear();
        let tape = match formats::scan(text, &text!("messages[", i, "]"), &mut nodes) {
            Ok(tape) => tape,
            Err(_) if skip_unreadable => {
                found.sizes.push(f64::NAN);
                continue;
            }
            Err(error) => return Err(error),
        };
        let message = tape.root();
        found.sizes.push(of_message(message, format.keys()) as f64);
        if message.kind() != Kind::Object {
            continue;
        }
        let role = message.get("role");
        let is = |value: Option<Val>, words: &[&str]| {
            value.is_some_and(|v| v.kind() == Kind::String && words.iter().any(|w| v.is(w)))
        };
        let pinned = format
            .pin_path()
            .is_some_and(|path| formats::pinned_at(message, path));
        if pinned || is(role, format.system_roles()) {
            found.system.push(k as u32);
        } else if let Some(mark) = format.failed_mark()
            && is(role, &[mark.role])
            && is(message.get(mark.key), mark.values)
        {
            found.failed.push(k as u32);
        }
    }
    Ok(found)
}

/// The size of `message`, counting only its top-level `keys` (all when `None`).
pub(crate) fn of_message(message: Val, keys: Option<&[&str]>) -> usize {
    if message.kind() != Kind::Object {
        return size(message, 0);
    }
    let read = |key: Val| keys.is_none_or(|keys| keys.iter().any(|k| key.is(k)));
    members(message)
        .filter(|(key, _)| read(*key))
        .map(|(key, value)| utf16_len(key) + size(value, 1))
        .sum()
}

/// The size of `value`, `depth` containers down from the message.
fn size(value: Val, depth: usize) -> usize {
    match value.kind() {
        Kind::String => utf16_len(value),
        Kind::Array if depth < WALK_DEPTH => {
            value.children().map(|item| size(item, depth + 1)).sum()
        }
        Kind::Object if depth < WALK_DEPTH => members(value)
            .map(|(key, item)| utf16_len(key) + size(item, depth + 1))
            .sum(),
        _ => SCALAR,
    }
}

/// The keys and values of an object as `JSON.parse` keeps them: of a repeated key, only the
/// last value.
fn members<'a>(object: Val<'a>) -> impl Iterator<Item = (Val<'a>, Val<'a>)> {
    let mut children = object.children();
    let pairs = std::iter::from_fn(move || Some((children.next()?, children.next()?)));
    pairs.filter(move |(key, value)| {
        // The value `get` finds for the key is the last one: this pair is it, or repeated.
        let last = key.str().and_then(|k| object.get(&k));
        last.is_some_and(|last| same_node(last, *value))
    })
}

/// Whether two views are of the same node of the same tape.
fn same_node(a: Val, b: Val) -> bool {
    a.same(b)
}

/// The length in UTF-16 code units of a string's value (what JavaScript's `length` gives),
/// counted on its text without unescaping it.
fn utf16_len(string: Val) -> usize {
    let raw = string.raw();
    if !string.escaped() || string.verbatim() {
        return raw.chars().map(char::len_utf16).sum();
    }
    let bytes = raw.as_bytes();
    let (mut units, mut at) = (0, 0);
    while let Some(&byte) = bytes.get(at) {
        if byte == b'\\' {
            // `\uXXXX` is one unit (a pair of them, two: a surrogate pair), any other escape one.
            at += if bytes.get(at + 1) == Some(&b'u') {
                6
            } else {
                2
            };
            units += 1;
            continue;
        }
        // A character: one unit, two above the Basic Multilingual Plane (four UTF-8 bytes).
        let (len, width) = match byte {
            0xF0.. => (4, 2),
            0xE0.. => (3, 1),
            0xC0.. => (2, 1),
            _ => (1, 1),
        };
        at += len;
        units += width;
    }
    units
}
