//! The hot loops of `context-compaction`, in their own crate so that they are compiled for speed
//! (`opt-level = 3`) while the rest of the package is compiled for size: a validating JSON
//! scanner that records values as a flat tape pointing into the input, views over that tape,
//! and the score the default token heuristic gives a text.

#![warn(missing_docs, unreachable_pub)]

mod escape;
mod find;
mod held;
mod json;
mod lines;
mod node;
mod score;
mod tape;
mod text;
mod words;

pub use escape::escape_into;
pub use find::{backslash, rewritten_escape};
pub use held::score_held_json;
pub use json::{MAX_CHECKED_KEYS, NumberText, write_json};
pub use lines::{nth_line_break, nth_line_break_back};
pub use node::{Children, Tape, Val, unescape, unescape_into};
pub use score::{score, score_escaped, score_quoted};
pub use tape::{Kind, Malformed, Node, check, skip_space, value};
pub use text::{ascii_end, utf8};
pub use words::{SKIPPED, TAG_NAMES, WALK_DEPTH, from_words};
