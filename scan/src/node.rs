//! Reading a scanned value: objects, arrays and strings as views into the body's text.

use std::borrow::Cow;

use crate::tape::{ESCAPED, Kind, Node, SCANNED, kind};

/// A tape and the text it points into: what every [`Val`] of it refers to.
pub struct Tape<'a> {
    text: &'a str,
    nodes: &'a [Node],
}

/// One value of a tape: a reference to the tape and the value's index on it, two words (passed
/// in registers: a view of five words went through memory in every accessor call).
#[derive(Clone, Copy)]
pub struct Val<'a> {
    tape: &'a Tape<'a>,
    index: u32,
}

// A `null` with no text.
const MISSING: Node = [0, 0, 0, u32::MAX];

// No index: what `Val::find` returns for a missing key (never a node's: a tape's `next`s are
// `u32`s, so it has fewer nodes).
const NONE: u32 = u32::MAX;

impl<'a> Tape<'a> {
    /// The tape `nodes` over `text`.
    pub fn new(text: &'a str, nodes: &'a [Node]) -> Tape<'a> {
        Tape { text, nodes }
    }

    /// Its root (its first node).
    pub fn root(&'a self) -> Val<'a> {
        self.at(0)
    }

    /// The value at `index` (a message among several laid out together); `null` past the end.
    pub fn at(&'a self, index: usize) -> Val<'a> {
        Val {
            tape: self,
            // An index past the tape's (u32) range reads as missing.
            index: u32::try_from(index).unwrap_or(u32::MAX),
        }
    }
}

impl<'a> Val<'a> {
    /// No value: reads as `null`, with no children.
    pub const EMPTY: Val<'a> = Val {
        tape: &Tape {
            text: "",
            nodes: &[],
        },
        index: 0,
    };

    fn node(self) -> Node {
        self.tape
            .nodes
            .get(self.index as usize)
            .copied()
            .unwrap_or(MISSING)
    }

    /// What the value is (`Null` when missing).
    pub fn kind(self) -> Kind {
        kind(&self.node())
    }

    /// Whether the value is `null` (or missing).
    pub fn is_null(self) -> bool {
        self.kind() == Kind::Null
    }

    /// A string with escape sequences (its raw text is not its value).
    pub fn escaped(self) -> bool {
        self.node()[0] & ESCAPED != 0
    }

    /// A string laid out as its value by a writer other than the scanner (see [`crate::Node`]):
    /// written as JSON, it may need escapes.
    pub fn verbatim(self) -> bool {
        let node = self.node();
        kind(&node) == Kind::String && node[0] & SCANNED == 0
    }

    /// Whether `self` and `other` are the same node of the same tape.
    pub fn same(self, other: Val) -> bool {
        std::ptr::eq(self.tape, other.tape) && self.index == other.index
    }

    /// The raw text: a string's content between the quotes (escapes as written), anything
    /// else as written.
    pub fn raw(self) -> &'a str {
        let [_, start, end, _] = self.node();
        self.tape
            .text
            .get(start as usize..end as usize)
            .unwrap_or("")
    }

    /// The bytes of [`Val::raw`], for a reader that needs no `str` (no check that the ends
    /// fall between characters, which a tape's ranges always do).
    pub fn raw_bytes(self) -> &'a [u8] {
        let [_, start, end, _] = self.node();
        self.tape
            .text
            .as_bytes()
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// A string's value, borrowed when it has no escapes.
    pub fn str(self) -> Option<Cow<'a, str>> {
        if self.kind() != Kind::String {
            return None;
        }
        Some(if self.escaped() {
            Cow::Owned(unescape(self.raw()))
        } else {
            Cow::Borrowed(self.raw())
        })
    }

    /// Whether this is the string `word`.
    pub fn is(self, word: &str) -> bool {
        let node = self.node();
        let [_, start, end, _] = node.map(|part| part as usize);
        match (kind(&node), self.escaped()) {
            // Lengths first: most keys differ in length from the one looked for.
            (Kind::String, false) => {
                end.checked_sub(start) == Some(word.len())
                    && self.tape.text.as_bytes().get(start..end) == Some(word.as_bytes())
            }
            (Kind::String, true) => unescape(self.raw()) == word,
            _ => false,
        }
    }

    /// The children of an array, or the keys and values of an object, in order.
    pub fn children(self) -> Children<'a> {
        let node = self.node();
        let container = matches!(kind(&node), Kind::Array | Kind::Object);
        Children {
            tape: self.tape,
            at: self.index.saturating_add(1),
            end: if container { node[3] } else { 0 },
        }
    }

    /// The value at `key` of an object (the last one when a key repeats, as `serde_json`
    /// keeps it); `None` when missing or not an object.
    pub fn get(self, key: &str) -> Option<Val<'a>> {
        self.member(self.find(key.as_bytes(), false))
    }

    /// Like [`Val::get`], with `null` read as missing.
    pub fn field(self, key: &str) -> Option<Val<'a>> {
        self.member(self.find(key.as_bytes(), true))
    }

    // The value at an index `find` returned (`NONE`: none).
    #[inline]
    fn member(self, index: u32) -> Option<Val<'a>> {
        (index != NONE).then_some(Val {
            tape: self.tape,
            index,
        })
    }

    // The loop of `get`, out of line (one copy keeps the package smaller). It walks the nodes
    // themselves rather than `Val`s, and compares each key's length before its bytes: a reader
    // looks a field up for nearly every value it reads, so this is the hottest loop of reading
    // a message. It returns the value's index (`NONE` when missing, or `null` and `no_null`), a
    // single word, which wasm32 returns in a register (an `Option<Val>` goes through memory).
    #[inline(never)]
    fn find(self, word: &[u8], no_null: bool) -> u32 {
        let node = self.node();
        if kind(&node) != Kind::Object {
            return NONE;
        }
        let Tape { text, nodes } = *self.tape;
        let end = (node[3] as usize).min(nodes.len());
        let bytes = text.as_bytes();
        let mut found = NONE;
        let mut at = self.index as usize + 1;
        while at + 1 < end {
            let (Some(key), Some(value)) = (nodes.get(at), nodes.get(at + 1)) else {
                break;
            };
            let [tag, start, stop, _] = key.map(|part| part as usize);
            let hit = match (kind(key), tag as u32 & ESCAPED != 0) {
                (Kind::String, false) => {
                    stop.checked_sub(start) == Some(word.len())
                        && bytes.get(start..stop).is_some_and(|raw| same(raw, word))
                }
                (Kind::String, true) => text
                    .get(start..stop)
                    .is_some_and(|raw| unescape(raw).as_bytes() == word),
                _ => false,
            };
            if hit {
                // `at + 1 < end <= nodes.len()`, and a tape's length fits a `u32` (its `next`s
                // do).
                found = (at + 1) as u32;
                // A key laid out as its value comes from the package's walker, which lays out
                // a JavaScript object's own keys: no key repeats, so the first is the last.
                if tag as u32 & SCANNED == 0 {
                    break;
                }
            }
            // A tape that does not go forward (never one `check` passes) ends the search.
            let next = value[3] as usize;
            if next <= at + 1 {
                break;
            }
            at = next;
        }
        let null = nodes
            .get(found as usize)
            .is_none_or(|node| kind(node) == Kind::Null);
        if no_null && null { NONE } else { found }
    }
}

/// Whether two keys are the same bytes. Keys are short and most that have the length looked for
/// differ in their first or last byte (`text`, `type`, `name`): those are compared first, and
/// the rest byte by byte here rather than through a call to `memcmp` (which wasm32 runs a byte
/// at a time anyway).
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && a.first() == b.first()
        && a.last() == b.last()
        && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Iterates the children of a container, skipping each child's subtree.
pub struct Children<'a> {
    tape: &'a Tape<'a>,
    at: u32,
    end: u32,
}

impl<'a> Iterator for Children<'a> {
    type Item = Val<'a>;

    fn next(&mut self) -> Option<Val<'a>> {
        if self.at >= self.end {
            return None;
        }
        let index = self.at;
        self.at = self
            .tape
            .nodes
            .get(index as usize)
            .map_or(u32::MAX, |n| n[3]);
        Some(Val {
            tape: self.tape,
            index,
        })
    }
}

/// The value of a JSON string's content (already validated by the scanner). A lone surrogate
/// escape becomes U+FFFD (as `context_compaction::formats::json_text` reads it).
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    unescape_into(raw, &mut out);
    out
}

/// Appends the value of a JSON string's content to `out` (as [`unescape`]).
pub fn unescape_into(raw: &str, out: &mut String) {
    out.reserve(raw.len());
    let bytes = raw.as_bytes();
    // Bytes before `copied` are written; the backslashes are found 64 bytes at a time, so
    // that dense escapes (the quotes of JSON held in a string) cost a few steps each.
    let mut copied = 0;
    let mut block = 0;
    while block < bytes.len() {
        let mut chunk = [0u8; 64];
        let part = bytes.get(block..).unwrap_or_default();
        let n = part.len().min(64);
        chunk
            .get_mut(..n)
            .unwrap_or_default()
            .copy_from_slice(part.get(..n).unwrap_or_default());
        let mut backslashes = crate::find::mask64(&chunk, crate::find::backslashes16);
        while backslashes != 0 {
            let at = block + backslashes.trailing_zeros() as usize;
            backslashes &= backslashes - 1;
            // A backslash inside the escape before (`\\`, or a `\u` escape's) is not one.
            if at < copied {
                continue;
            }
            // Every backslash is ASCII: `copied..at` ends on a character boundary.
            out.push_str(raw.get(copied..at).unwrap_or(""));
            let (ch, width) = match bytes.get(at + 1) {
                Some(b'n') => ('\n', 2),
                Some(b't') => ('\t', 2),
                Some(b'r') => ('\r', 2),
                Some(b'b') => ('\u{8}', 2),
                Some(b'f') => ('\u{c}', 2),
                Some(b'u') => code_point(raw.get(at..).unwrap_or("")),
                Some(&other) if other.is_ascii() => (char::from(other), 2),
                // Never after the scanner: a backslash before a wide character, or at the end.
                _ => ('\u{fffd}', 1),
            };
            out.push(ch);
            copied = at + width;
        }
        block += 64;
    }
    out.push_str(raw.get(copied..).unwrap_or(""));
}

/// The character of a `\uXXXX` escape at the start of `escape` (joining a surrogate pair) and
/// how many bytes it took.
fn code_point(escape: &str) -> (char, usize) {
    let unit = |at: usize| -> Option<u32> {
        let hex = escape.get(at..at + 6)?.strip_prefix("\\u")?;
        u32::from_str_radix(hex, 16).ok()
    };
    match (unit(0), unit(6)) {
        (Some(high @ 0xD800..=0xDBFF), Some(low @ 0xDC00..=0xDFFF)) => {
            let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            (char::from_u32(code).unwrap_or('\u{fffd}'), 12)
        }
        (Some(code), _) => (char::from_u32(code).unwrap_or('\u{fffd}'), 6),
        (None, _) => ('\u{fffd}', 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape;

    #[test]
    fn unescapes_like_serde_json() {
        for text in [
            r#""a\nb\t\"c\"\\ \/ \u00e9 \ud83d\ude00 \b\f\r""#,
            r#""plain""#,
            r#""\u0041\u0000""#,
        ] {
            let expected: String = serde_json::from_str(text).unwrap();
            let raw = &text[1..text.len() - 1];
            assert_eq!(unescape(raw), expected);
        }
        assert_eq!(unescape(r"a\ud800b\udc00"), "a\u{fffd}b\u{fffd}");
    }

    proptest::proptest! {
        /// Any text escaped as JSON (some characters as `\u` escapes, pairs for the wide ones),
        /// long enough to cross blocks, unescapes to itself.
        #[test]
        fn unescapes_any_escaped_text(text in "(\\PC|[\"\\\\\\n/])*", every in 1usize..5) {
            let mut raw = String::new();
            for (i, ch) in text.chars().enumerate() {
                if i % every == 0 {
                    let mut units = [0u16; 2];
                    for unit in ch.encode_utf16(&mut units) {
                        raw.push_str(&format!("\\u{unit:04x}"));
                    }
                } else {
                    let quoted = serde_json::to_string(&ch.to_string()).unwrap();
                    raw.push_str(&quoted[1..quoted.len() - 1]);
                }
            }
            proptest::prop_assert_eq!(unescape(&raw), text);
        }
    }

    #[test]
    fn a_view_is_two_words_a_tape_and_an_index() {
        // Two words are passed in registers on wasm32 (the five of a view holding the text
        // and the nodes went through memory).
        assert_eq!(size_of::<Val>(), 2 * size_of::<usize>());
        assert_eq!(size_of::<Option<Val>>(), size_of::<Val>());
        let text = r#"["a","a",null]"#;
        let mut nodes = Vec::new();
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        let (tape, again) = (Tape::new(text, &nodes), Tape::new(text, &nodes));
        let items: Vec<Val> = tape.root().children().collect();
        assert!(items[0].same(tape.at(1)) && !items[0].same(items[1]));
        assert!(!items[0].same(again.at(1)));
        // Past the end, and the empty view: `null`, with no children.
        assert!(tape.at(4).is_null() && tape.at(usize::MAX).is_null());
        assert_eq!(
            Val::EMPTY.children().count() + tape.at(9).children().count(),
            0
        );
    }

    #[test]
    fn reads_fields_children_and_repeated_keys() {
        let text = r#"{"a":1,"b":[true,{"c":"x"},null],"a":"last","n":null}"#;
        let mut nodes = Vec::new();
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        let tape = Tape::new(text, &nodes);
        let root = tape.root();
        assert!(root.get("a").unwrap().is("last"));
        let b = root.get("b").unwrap();
        assert_eq!(b.children().count(), 3);
        let second = b.children().nth(1).unwrap();
        assert!(second.get("c").unwrap().is("x"));
        assert!(root.get("n").is_some() && root.field("n").is_none());
        assert!(root.get("zz").is_none());
        assert!(b.get("a").is_none());
        // Escaped keys are compared by their value.
        let text = r#"{"\u0061b":1,"ab\n":2,"abc":3}"#;
        tape::value(text.as_bytes(), 0, &mut nodes).unwrap();
        let tape = Tape::new(text, &nodes);
        let root = tape.root();
        assert_eq!(root.get("ab").map(|v| v.raw()), Some("1"));
        assert_eq!(root.get("ab\n").map(|v| v.raw()), Some("2"));
        assert_eq!(root.get("abc").map(|v| v.raw()), Some("3"));
        assert!(root.get("a").is_none());
    }
}
