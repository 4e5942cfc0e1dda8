//! A tape another writer laid out as words: the package's JavaScript walker writes messages one
//! after another, four `u32`s a node (tag, start, end, next), which is a [`Node`]'s own layout.
//! Checked here, in the crate compiled for speed, as every walked message goes through it, and
//! then read where it lies.

use crate::tape::{Checker, Node};

/// The writer's name of each tag below [`SKIPPED`], in tag order: the package's walker takes
/// them from a module generated from this list (`pkg-template/host/tape.js`, checked by the
/// crate's `tests/js_constants.rs`).
pub const TAG_NAMES: [&str; 6] = ["NULL", "BOOL", "NUMBER", "STRING", "ARRAY", "OBJECT"];

/// How deep the walker and the sizer follow containers; a message nested deeper is left to
/// `JSON.stringify` and the scanner, which refuse it with the error that path gives (the
/// scanner's limit is serde_json's, 127, and a message sits a few levels down already).
pub const WALK_DEPTH: usize = 120;

/// The tag of a root the writer left out (to be read another way); read as a `null`.
pub const SKIPPED: u32 = 6;

/// Checks the nodes a writer laid out over a text of `text_len` bytes (its strings laid out
/// as their values: no tag above [`SKIPPED`], see [`Node`]) and puts where each root starts
/// into `roots` (`None` for one left out). `None` when they are not a tape [`crate::check`]
/// accepts.
pub fn from_words(nodes: &[Node], text_len: usize, roots: &mut Vec<Option<usize>>) -> Option<()> {
    roots.clear();
    let mut checker = Checker::new(nodes.len(), text_len);
    for (i, node) in nodes.iter().enumerate() {
        let tag = node[0];
        if tag > SKIPPED {
            return None;
        }
        if checker.node(i, node).ok()? {
            roots.push((tag != SKIPPED).then_some(i));
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_roots_and_refuses_what_is_not_a_tape() {
        // [1], a skipped root, "ab" over the text "1ab".
        let nodes = [[4, 0, 0, 2], [2, 0, 1, 2], [SKIPPED, 0, 0, 3], [3, 1, 3, 4]];
        let mut roots = Vec::new();
        assert!(from_words(&nodes, 3, &mut roots).is_some());
        assert_eq!(roots, [Some(0), None, Some(3)]);
        let text = "1ab";
        let tape = crate::Tape::new(text, &nodes);
        let string = tape.at(3);
        assert!(string.verbatim() && !string.escaped() && string.is("ab"));
        assert!(tape.at(2).is_null());
        // An unknown tag, a tag with a flag (strings are laid out as their values), a range past
        // the text, a subtree that does not go forward.
        for bad in [[9, 0, 0, 1], [3 | 8, 0, 0, 1], [3, 0, 4, 1], [4, 0, 0, 0]] {
            assert!(from_words(&[bad], 3, &mut roots).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn a_key_laid_out_as_its_value_is_found_at_its_first_hit() {
        // {"a":1,"a":2} as a walker could not write it (a JavaScript object's keys never
        // repeat): the first is taken; scanned, the last, as serde_json keeps it.
        let text = "a1a2";
        let nodes = [
            [5, 0, 0, 5],
            [3, 0, 1, 2],
            [2, 1, 2, 3],
            [3, 2, 3, 4],
            [2, 3, 4, 5],
        ];
        let mut roots = Vec::new();
        assert!(from_words(&nodes, text.len(), &mut roots).is_some());
        let tape = crate::Tape::new(text, &nodes);
        let object = tape.root();
        assert_eq!(object.get("a").map(|v| v.raw()), Some("1"));
        let text = r#"{"a":1,"a":2}"#;
        let mut scanned = Vec::new();
        crate::value(text.as_bytes(), 0, &mut scanned).unwrap();
        assert_eq!(
            crate::Tape::new(text, &scanned)
                .root()
                .get("a")
                .map(|v| v.raw()),
            Some("2")
        );
    }
}
