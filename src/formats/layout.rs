//! What of a message the package's walker lays out below its top-level keys (the keys
//! themselves are [`super::Format::keys`]): the blocks of a content, by type, with only the keys
//! the format's reader reads of that type. An image's base64 `data`, a thinking block's
//! signature or a streamed call's `partialJson` are never copied into wasm memory then. The
//! lists are written next to each reader; `pkg-template/layout.js` is generated from them
//! (`tests/js_constants.rs`), and `tests/layout.rs` checks that a message read with only what
//! they keep reads the same (facts, units, records, errors) as the whole message.

/// What the walker lays out of one value.
#[derive(Debug, Clone, Copy)]
pub enum Layout {
    /// All of it, as `JSON.stringify` sees it.
    Whole,
    /// An array whose elements are each laid out as given; any other value whole.
    Items(&'static Layout),
    /// An object with a string `type` among the [`Block`]s: `type` and the block's keys only.
    /// Any other value (another type, no `type`, not an object) whole: readers count the JSON
    /// of a part type they do not know in some formats.
    Typed(&'static [Block]),
}

/// One type of block of a [`Layout::Typed`] and the keys its reader reads (besides `type`),
/// each with the layout of its value.
#[derive(Debug, Clone, Copy)]
pub struct Block {
    /// The block's `type`.
    pub kind: &'static str,
    /// The keys laid out, with how.
    pub keys: &'static [(&'static str, Layout)],
}

impl Block {
    /// A block whose keys are all laid out whole.
    pub(super) const fn of(kind: &'static str, keys: &'static [(&'static str, Layout)]) -> Block {
        Block { kind, keys }
    }
}

/// A block that keeps `type` only (an attachment: the reader counts it without reading it).
pub(super) const fn bare(kind: &'static str) -> Block {
    Block::of(kind, &[])
}
