//! A validating JSON scanner that records one value as a flat *tape* of nodes pointing into the
//! input bytes: no strings are copied and nothing is allocated per node.
//!
//! It accepts exactly the JSON `serde_json` accepts (same grammar, same nesting limit), so a body
//! it rejects is worded as `serde_json` words it (the package's `src/json/read.rs`, a port of its
//! reader) and a body it accepts means the same.

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

/// One value on the tape, four words: a tag, then `start`, `end` and `next`. For a string,
/// `start..end` is its content between the quotes; for anything else, its whole text.
/// Containers are followed by their children (an object's by key, value, key, value…); `next`
/// is the index just past the node's subtree. The tag's low three bits are the [`Kind`] (in
/// the order of [`crate::TAG_NAMES`]; [`crate::SKIPPED`] and above read as `null`), then a
/// flag for a string with escapes and one for a node the scanner laid out (as JSON text; a
/// string without it is laid out as its value). The package's walker writes its tapes in this
/// very layout, with no flags, so they are read where it wrote them.
pub type Node = [u32; 4];

/// A string with at least one escape sequence (its content is not its text).
pub(crate) const ESCAPED: u32 = 1 << 3;
/// Laid out by the scanner, as JSON text: a string without it is laid out as its value (by
/// another writer) and, written as JSON, may need escapes.
pub(crate) const SCANNED: u32 = 1 << 4;

/// What `node` is (`Null` for a skipped root).
#[inline]
pub(crate) fn kind(node: &Node) -> Kind {
    match node[0] & 7 {
        1 => Kind::Bool,
        2 => Kind::Number,
        3 => Kind::String,
        4 => Kind::Array,
        5 => Kind::Object,
        _ => Kind::Null,
    }
}

/// The tag of a node of `kind` the scanner lays out.
fn scanned_tag(kind: Kind, escaped: bool) -> u32 {
    let bits = match kind {
        Kind::Null => 0,
        Kind::Bool => 1,
        Kind::Number => 2,
        Kind::String => 3,
        Kind::Array => 4,
        Kind::Object => 5,
    };
    bits | SCANNED | if escaped { ESCAPED } else { 0 }
}

/// The JSON is malformed (or nested deeper than `serde_json` allows); the caller words the
/// error.
#[derive(Debug)]
pub struct Malformed;

type Scan<T> = Result<T, Malformed>;

// serde_json's default recursion limit: 127 nested containers parse, 128 do not.
const MAX_DEPTH: usize = 127;

/// Scans the value starting at `pos` (after whitespace) into `nodes` (cleared first) and returns
/// the position just past it.
pub fn value(bytes: &[u8], pos: usize, nodes: &mut Vec<Node>) -> Scan<usize> {
    nodes.clear();
    // Offsets are u32: bodies over 4 GiB are not supported (far beyond any context window).
    if bytes.len() > u32::MAX as usize {
        return Err(Malformed);
    }
    let mut scanner = Scanner { bytes, pos, nodes };
    scanner.skip_space();
    scanner.value(0)?;
    Ok(scanner.pos)
}

/// Checks a tape laid out by another writer (`nodes` over a text of `text_len` bytes): every
/// node's range is inside the text, every subtree ends after its node and inside its parent's,
/// and containers nest no deeper than `serde_json` allows. The views can then read it safely.
pub fn check(nodes: &[Node], text_len: usize) -> Scan<()> {
    let mut checker = Checker::new(nodes.len(), text_len);
    for (i, node) in nodes.iter().enumerate() {
        checker.node(i, node)?;
    }
    Ok(())
}

/// [`check`] one node at a time, in order, for a writer that makes the nodes as it checks them.
pub(crate) struct Checker {
    /// The ends of the containers open at the current node, innermost last.
    open: Vec<usize>,
    /// How many nodes the tape has.
    len: usize,
    text_len: usize,
}

impl Checker {
    /// A checker of a tape of `len` nodes over a text of `text_len` bytes.
    pub(crate) fn new(len: usize, text_len: usize) -> Checker {
        Checker {
            open: Vec::new(),
            len,
            text_len,
        }
    }

    /// Checks node `i` (after nodes `0..i`); `Ok(true)` when it is a root, inside no container.
    pub(crate) fn node(&mut self, i: usize, node: &Node) -> Scan<bool> {
        let open = &mut self.open;
        while open.last().is_some_and(|&end| end <= i) {
            open.pop();
        }
        let root = open.is_empty();
        let [_, start, end, next] = node.map(|word| word as usize);
        let parent_end = open.last().copied().unwrap_or(self.len);
        if start > end || end > self.text_len || next <= i || next > parent_end {
            return Err(Malformed);
        }
        let container = matches!(kind(node), Kind::Array | Kind::Object);
        if !container && next != i + 1 {
            return Err(Malformed);
        }
        if container {
            if open.len() >= MAX_DEPTH {
                return Err(Malformed);
            }
            open.push(next);
        }
        Ok(root)
    }
}

/// The position of the first byte at or after `pos` that is not JSON whitespace.
pub fn skip_space(bytes: &[u8], mut pos: usize) -> usize {
    while matches!(bytes.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

struct Scanner<'a, 'n> {
    bytes: &'a [u8],
    pos: usize,
    nodes: &'n mut Vec<Node>,
}

impl Scanner<'_, '_> {
    fn skip_space(&mut self) {
        self.pos = skip_space(self.bytes, self.pos);
    }

    fn push(&mut self, kind: Kind, start: usize, end: usize, escaped: bool) -> usize {
        let index = self.nodes.len();
        self.nodes.push([
            scanned_tag(kind, escaped),
            start as u32,
            end as u32,
            index as u32 + 1,
        ]);
        index
    }

    fn value(&mut self, depth: usize) -> Scan<()> {
        let start = self.pos;
        let first = self.bytes.get(start).copied().ok_or(Malformed)?;
        // Strings first, on a branch of their own: most values are, and a `match` over every
        // first byte is a jump table, an indirect jump that mispredicts.
        if first == b'"' {
            return self.string();
        }
        match first {
            b'{' => self.container(Kind::Object, b'}', depth)?,
            b'[' => self.container(Kind::Array, b']', depth)?,
            b't' => self.literal(b"true", Kind::Bool)?,
            b'f' => self.literal(b"false", Kind::Bool)?,
            b'n' => self.literal(b"null", Kind::Null)?,
            b'-' | b'0'..=b'9' => {
                let end = number_end(self.bytes, start)?;
                self.push(Kind::Number, start, end, false);
                self.pos = end;
            }
            _ => return Err(Malformed),
        }
        Ok(())
    }

    /// The string whose opening quote is at `pos`.
    fn string(&mut self) -> Scan<()> {
        let start = self.pos + 1;
        let (end, escaped) = string_end(self.bytes, start)?;
        self.push(Kind::String, start, end, escaped);
        self.pos = end + 1;
        Ok(())
    }

    fn literal(&mut self, word: &[u8], kind: Kind) -> Scan<()> {
        let end = self.pos + word.len();
        if self.bytes.get(self.pos..end) != Some(word) {
            return Err(Malformed);
        }
        self.push(kind, self.pos, end, false);
        self.pos = end;
        Ok(())
    }

    fn container(&mut self, kind: Kind, close: u8, depth: usize) -> Scan<()> {
        if depth >= MAX_DEPTH {
            return Err(Malformed);
        }
        let index = self.push(kind, self.pos, self.pos, false);
        self.pos += 1;
        self.skip_space();
        if self.bytes.get(self.pos) == Some(&close) {
            self.pos += 1;
        } else {
            loop {
                if kind == Kind::Object {
                    // A key: a string, read without going through `value`.
                    if self.bytes.get(self.pos) != Some(&b'"') {
                        return Err(Malformed);
                    }
                    self.string()?;
                    self.skip_space();
                    if self.bytes.get(self.pos) != Some(&b':') {
                        return Err(Malformed);
                    }
                    self.pos += 1;
                    self.skip_space();
                }
                self.value(depth + 1)?;
                self.skip_space();
                match self.bytes.get(self.pos) {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_space();
                    }
                    Some(&b) if b == close => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(Malformed),
                }
            }
        }
        let next = self.nodes.len() as u32;
        let node = self.nodes.get_mut(index).ok_or(Malformed)?;
        node[2] = self.pos as u32;
        node[3] = next;
        Ok(())
    }
}

/// The index of the closing quote of the string whose content starts at `pos`, and whether it
/// has escapes. Control characters are rejected, as JSON requires.
fn string_end(bytes: &[u8], mut pos: usize) -> Scan<(usize, bool)> {
    let mut escaped = false;
    loop {
        pos = crate::find::string_stop(bytes, pos);
        match bytes.get(pos).copied().ok_or(Malformed)? {
            b'"' => return Ok((pos, escaped)),
            b'\\' => {
                escaped = true;
                pos += match bytes.get(pos + 1).copied().ok_or(Malformed)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                    b'u' => {
                        let hex = bytes.get(pos + 2..pos + 6).ok_or(Malformed)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(Malformed);
                        }
                        6
                    }
                    _ => return Err(Malformed),
                };
                // Where there is one escape there are usually more (text with line breaks).
                pos = crate::find::skip_escaped(bytes, pos);
            }
            // A control byte: JSON strings may not hold one unescaped.
            _ => return Err(Malformed),
        }
    }
}

/// The end of the number starting at `pos`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn number_end(bytes: &[u8], mut pos: usize) -> Scan<usize> {
    let digit = |pos: usize| bytes.get(pos).is_some_and(u8::is_ascii_digit);
    let digits = |mut pos: usize| -> Scan<usize> {
        if !digit(pos) {
            return Err(Malformed);
        }
        while digit(pos) {
            pos += 1;
        }
        Ok(pos)
    };
    if bytes.get(pos) == Some(&b'-') {
        pos += 1;
    }
    pos = match bytes.get(pos) {
        Some(b'0') => pos + 1,
        _ => digits(pos)?,
    };
    if bytes.get(pos) == Some(&b'.') {
        pos = digits(pos + 1)?;
    }
    if matches!(bytes.get(pos), Some(b'e' | b'E')) {
        pos += 1;
        if matches!(bytes.get(pos), Some(b'+' | b'-')) {
            pos += 1;
        }
        pos = digits(pos)?;
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Scan<Vec<Node>> {
        let mut nodes = Vec::new();
        let end = value(text.as_bytes(), 0, &mut nodes)?;
        if skip_space(text.as_bytes(), end) != text.len() {
            return Err(Malformed);
        }
        Ok(nodes)
    }

    #[test]
    fn accepts_what_serde_json_accepts() {
        for text in [
            r#"{"a":[1,-2.5e+3,true,false,null],"b":{"c":"d\n\u00e9"}}"#,
            " [ ] ",
            "{}",
            "0",
            r#""abcdefghijklmnopqrstuvwxyz\"""#,
            "[[[[1]]]]",
        ] {
            let nodes = scan(text).unwrap_or_else(|_| panic!("{text}"));
            assert!(serde_json::from_str::<serde_json::Value>(text).is_ok());
            assert_eq!(nodes.first().map(|n| n[3] as usize), Some(nodes.len()));
        }
        for text in [
            "[1,]",
            "{\"a\"}",
            "01",
            "1.",
            "-",
            "[1 2]",
            "\"a\tb\"",
            "\"\\x\"",
            "\"\\u12\"",
            "tru",
            "{\"a\":1,}",
            "\"abc",
            "[",
            "nul",
        ] {
            assert!(scan(text).is_err(), "{text}");
            assert!(
                serde_json::from_str::<serde_json::Value>(text).is_err(),
                "{text}"
            );
        }
    }

    #[test]
    fn nesting_is_limited_like_serde_json() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(scan(&deep(127)).is_ok());
        assert!(serde_json::from_str::<serde_json::Value>(&deep(127)).is_ok());
        assert!(scan(&deep(128)).is_err());
        assert!(serde_json::from_str::<serde_json::Value>(&deep(128)).is_err());
    }

    proptest::proptest! {
        /// Strings a few blocks long, dense with escapes, with at most one bad part somewhere:
        /// the scanner accepts exactly what serde_json accepts, and records the string's content.
        #[test]
        fn strings_are_read_like_serde_json(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    "[a-z ]{1,30}", r#"\\[nt"\\/bfr]"#, r"\\u00[0-9a-f]{2}", "é",
                ],
                0..60,
            ),
            bad in proptest::option::of(proptest::prop_oneof![
                r"\\", r"\\u[0-9a-g]{1,4}", r"\\ud[89a-f][0-9a-f]{2}", r"\\[xa0 ]",
                "[\x01\x1f]", "\"",
            ]),
            at in 0..60usize,
        ) {
            let mut parts = parts;
            if let Some(bad) = bad {
                parts.insert(at.min(parts.len()), bad);
            }
            let text = format!("[\"{}\", 1]", parts.concat());
            let serde = serde_json::from_str::<(String, u8)>(&text);
            let nodes = scan(&text);
            // A lone surrogate is accepted on purpose, as `JSON.parse` accepts it, and read
            // as U+FFFD; serde_json refuses it (the only error it words this way).
            let lone = serde.as_ref().err().map(|e| e.to_string()).is_some_and(|e| {
                e.contains("surrogate") || e.contains("unexpected end of hex escape")
            });
            if lone {
                let nodes = nodes.map_err(|e| proptest::test_runner::TestCaseError::fail(
                    format!("{text}: {e:?}"),
                ))?;
                let string = nodes.get(1).unwrap();
                let content = &text[string[1] as usize..string[2] as usize];
                proptest::prop_assert!(crate::unescape(content).contains('\u{fffd}'), "{}", text);
                return Ok(());
            }
            proptest::prop_assert_eq!(nodes.is_ok(), serde.is_ok(), "{}", text);
            if let (Ok(nodes), Ok((value, _))) = (nodes, serde) {
                let string = nodes.get(1).unwrap();
                let content = &text[string[1] as usize..string[2] as usize];
                proptest::prop_assert_eq!(crate::unescape(content), value);
                proptest::prop_assert_eq!(string[0] & ESCAPED != 0, content.contains('\\'));
            }
        }
    }

    #[test]
    fn lone_surrogates_are_accepted_like_json_parse() {
        let text = r#"["a\uda0ab", "\udc00"]"#;
        let nodes = scan(text).unwrap();
        let content = |n: &Node| crate::unescape(&text[n[1] as usize..n[2] as usize]);
        assert_eq!(content(&nodes[1]), "a\u{fffd}b");
        assert_eq!(content(&nodes[2]), "\u{fffd}");
    }

    #[test]
    fn a_tape_from_elsewhere_is_checked_before_it_is_read() {
        let text = r#"{"k":[1,"v"]}"#;
        let nodes = scan(text).unwrap();
        assert!(check(&nodes, text.len()).is_ok());
        let broken = |edit: fn(&mut Vec<Node>)| {
            let mut nodes = nodes.clone();
            edit(&mut nodes);
            check(&nodes, text.len()).is_err()
        };
        // A subtree that does not move on, one past its parent's end, a range past the text.
        assert!(broken(|n| n[2][3] = 2));
        assert!(broken(|n| n[3][3] = 9));
        assert!(broken(|n| n[4][2] = 99));
        assert!(broken(|n| n[1][3] = 3));
        // Nesting deeper than serde_json allows.
        let nested = |n: usize| -> Vec<Node> {
            let array: Node = [4, 0, 0, n as u32];
            vec![array; n]
        };
        assert!(check(&nested(MAX_DEPTH), 0).is_ok());
        assert!(check(&nested(MAX_DEPTH + 1), 0).is_err());
    }

    #[test]
    fn records_string_contents_and_subtrees() {
        let text = r#"{"k":"v\"w","n":[1,2]}"#;
        let nodes = scan(text).unwrap();
        let content = |n: &Node| &text[n[1] as usize..n[2] as usize];
        assert_eq!(content(&nodes[1]), "k");
        assert_eq!(content(&nodes[2]), "v\\\"w");
        assert!(nodes[2][0] & ESCAPED != 0 && nodes[1][0] & ESCAPED == 0);
        assert_eq!(kind(&nodes[4]), Kind::Array);
        assert_eq!(nodes[4][3], 7);
        assert_eq!(content(&nodes[4]), "[1,2]");
    }
}
