//! A tape another writer laid out as words: the package's JavaScript walker writes messages one
//! after another, four `u32`s a node (tag, start, end, next). Read into nodes and checked here,
//! in the crate compiled for speed, as every walked message goes through it.

use crate::tape::{Checker, Kind, Node};

/// The writer's name of each tag below [`SKIPPED`], in tag order: the package's walker takes
/// them from a module generated from this list (`pkg-template/tape.js`, checked by the
/// crate's `tests/js_constants.rs`).
pub const TAG_NAMES: [&str; 6] = ["NULL", "BOOL", "NUMBER", "STRING", "ARRAY", "OBJECT"];

/// How deep the walker and the sizer follow containers; a message nested deeper is left to
/// `JSON.stringify` and the scanner, which refuse it with the error that path gives (the
/// scanner's limit is serde_json's, 127, and a message sits a few levels down already).
pub const WALK_DEPTH: usize = 120;

/// The kind of each tag below [`SKIPPED`] (named by [`TAG_NAMES`]).
const KINDS: [Kind; 6] = [
    Kind::Null,
    Kind::Bool,
    Kind::Number,
    Kind::String,
    Kind::Array,
    Kind::Object,
];

/// The tag of a root the writer left out (to be read another way); read as a `null`.
pub const SKIPPED: u32 = 6;

/// Reads the nodes `words` lay out over a text of `text_len` bytes into `nodes` (strings as
/// their values, see [`Node::verbatim`]), and where each root starts into `roots` (`None` for
/// one left out). `None` when the words are not a tape [`crate::check`] accepts. One pass: each
/// node is checked as it is read.
pub fn from_words(
    words: &[u32],
    text_len: usize,
    nodes: &mut Vec<Node>,
    roots: &mut Vec<Option<usize>>,
) -> Option<()> {
    nodes.clear();
    roots.clear();
    let len = words.len() / 4;
    nodes.reserve(len);
    let mut checker = Checker::new(len, text_len);
    for (i, node) in words.chunks_exact(4).enumerate() {
        let &[tag, start, end, next] = node else {
            return None;
        };
        let (kind, skipped) = match KINDS.get(tag as usize) {
            Some(kind) => (*kind, false),
            None if tag == SKIPPED => (Kind::Null, true),
            None => return None,
        };
        let node = Node {
            kind,
            escaped: false,
            verbatim: kind == Kind::String,
            start,
            end,
            next,
        };
        if checker.node(i, &node).ok()? {
            roots.push((!skipped).then_some(i));
        }
        nodes.push(node);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_roots_and_refuses_what_is_not_a_tape() {
        // [1], a skipped root, "ab" over the text "1ab".
        let words = [4, 0, 0, 2, 2, 0, 1, 2, SKIPPED, 0, 0, 3, 3, 1, 3, 4];
        let (mut nodes, mut roots) = (Vec::new(), Vec::new());
        assert!(from_words(&words, 3, &mut nodes, &mut roots).is_some());
        assert_eq!(roots, [Some(0), None, Some(3)]);
        assert!(nodes[3].verbatim && nodes[2].kind == Kind::Null);
        // An unknown tag, a range past the text, a subtree that does not go forward.
        for bad in [[9, 0, 0, 1], [3, 0, 4, 1], [4, 0, 0, 0]] {
            assert!(
                from_words(&bad, 3, &mut nodes, &mut roots).is_none(),
                "{bad:?}"
            );
        }
    }
}
