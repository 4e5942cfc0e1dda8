//! How much crosses between the module and JavaScript at a time: the sizes the binding's loops
//! work in, each with the reason for it, and the rules built on them.

use std::ops::Range;

/// From this many messages to read, the package's walker lays them out together rather than
/// one crossing and one `JSON.stringify` each.
pub const BULK: usize = 32;

/// How many uncached messages a cold read takes at a time: a list of every index, and a flag
/// per message, was 0.5 MB of wasm memory at the peak of a cold plan of 100k messages.
pub const FACTS_CHUNK: u32 = 8192;

/// Where the chunk of a cold read that starts at message `start` of `count` ends: after
/// [`FACTS_CHUNK`] messages, or at the end when fewer than that and [`BULK`] more are left (a
/// last chunk of a few would be read one by one).
pub fn facts_chunk_end(start: u32, count: u32) -> u32 {
    if count.saturating_sub(start) < FACTS_CHUNK + BULK as u32 {
        count
    } else {
        start + FACTS_CHUNK
    }
}

/// How many messages one lookup of the facts cache takes (one crossing): the texts it finds
/// come back as one string, a few hundred KB at most.
pub const CACHE_LOOKUP: usize = FACTS_CHUNK as usize;

/// How many messages' facts one store into the facts cache takes (one crossing): their texts
/// go over as one JSON array of about 10 KB, which stays in wasm memory (it never shrinks).
pub const CACHE_STORE: usize = 256;

/// The walker's buffers (bytes, `u32` words) of the first walk: small, so that a short history
/// does not pay for a large one.
pub const WALK_FIRST: (usize, usize) = (64 << 10, 16 << 10);

/// The buffers' usual size, which they double to while they fill up: 0.75 MB in all (the
/// words read into nodes take as much again as the words) keeps memory flat for long
/// histories. Four times as large (3 MB) made a cold plan of 10k messages no faster within
/// noise (0.98–1.02×) for 2.25 MB more.
pub const WALK_USUAL: (usize, usize) = (1 << 18, 1 << 16);

/// Past this many bytes, a message is read through `JSON.stringify` instead.
pub const WALK_MAX_BYTES: usize = 1 << 30;

/// What comes after a walker call that laid out `count` messages into buffers of `bytes` and
/// `words`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterWalk {
    /// The next message is larger than any buffer: read it through `JSON.stringify`.
    Stringify,
    /// Go on with buffers of at least this many bytes and words.
    Grow(usize, usize),
}

/// The buffers after a walker call: a message larger than the buffers doubles them until it
/// fits (up to [`WALK_MAX_BYTES`]); a long history doubles them to their usual size.
pub fn after_walk(count: usize, bytes: usize, words: usize) -> AfterWalk {
    let (usual_bytes, usual_words) = WALK_USUAL;
    match count {
        0 if bytes >= WALK_MAX_BYTES => AfterWalk::Stringify,
        0 => AfterWalk::Grow(bytes * 2, words * 2),
        _ => AfterWalk::Grow(
            if bytes < usual_bytes {
                bytes * 2
            } else {
                bytes
            },
            if words < usual_words {
                words * 2
            } else {
                words
            },
        ),
    }
}

/// Whether buffers of `bytes` are kept for the next walk: only those of the usual size (a huge
/// message's are let go).
pub fn keeps_walk_buffers(bytes: usize) -> bool {
    bytes <= WALK_USUAL.0
}

/// How many numbers are converted into a `Float64Array` at a time: a long history's
/// estimates are not copied whole into wasm memory first (which never shrinks; 0.8 MB at 100k
/// messages).
pub const FLOATS_CHUNK: usize = 4096;

/// A run of ASCII shorter than this stays in the piece of text around it (see
/// [`ascii_pieces`]).
pub const ASCII_RUN: usize = 1024;

/// Cuts `text` (a summary prompt: megabytes of records) into the pieces a long JavaScript
/// string is decoded in: long runs of ASCII apart from the stretches with other characters
/// between them, in order, covering the text. A decoder takes the slow path for a whole text
/// as soon as one character is not ASCII (in Node 20 about 5 ns a byte against 1); the pieces,
/// joined, are the same string.
pub fn ascii_pieces(text: &str, add: &mut dyn FnMut(Range<usize>)) {
    let bytes = text.as_bytes();
    // The piece being built starts at `start`; `mixed` when it holds other characters.
    let (mut start, mut pos, mut mixed) = (0, 0, false);
    loop {
        let end = context_compaction_scan::ascii_end(bytes, pos);
        if mixed && end - pos >= ASCII_RUN {
            add(start..pos);
            (start, mixed) = (pos, false);
        }
        if end >= bytes.len() {
            add(start..bytes.len());
            return;
        }
        if !mixed && end - start >= ASCII_RUN {
            add(start..end);
            start = end;
        }
        mixed = true;
        // Past the other characters (a boundary between ASCII and not is one between characters).
        let rest = bytes.get(end..).unwrap_or_default();
        pos = end + rest.iter().position(u8::is_ascii).unwrap_or(rest.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        ascii_pieces(text, &mut |piece| out.push(piece));
        out
    }

    #[test]
    fn a_cold_read_ends_its_last_chunk_at_the_end() {
        assert_eq!(facts_chunk_end(0, 100), 100);
        assert_eq!(facts_chunk_end(0, FACTS_CHUNK + 31), FACTS_CHUNK + 31);
        assert_eq!(facts_chunk_end(0, FACTS_CHUNK + 32), FACTS_CHUNK);
        assert_eq!(
            facts_chunk_end(FACTS_CHUNK, 3 * FACTS_CHUNK),
            2 * FACTS_CHUNK
        );
    }

    #[test]
    fn walk_buffers_grow_to_their_usual_size_or_to_fit() {
        let (bytes, words) = WALK_FIRST;
        assert_eq!(
            after_walk(5, bytes, words),
            AfterWalk::Grow(bytes * 2, words * 2)
        );
        let (usual, usual_words) = WALK_USUAL;
        assert_eq!(
            after_walk(5, usual, usual_words),
            AfterWalk::Grow(usual, usual_words)
        );
        assert_eq!(
            after_walk(0, usual, usual_words),
            AfterWalk::Grow(usual * 2, usual_words * 2)
        );
        assert_eq!(after_walk(0, WALK_MAX_BYTES, 1), AfterWalk::Stringify);
        assert!(keeps_walk_buffers(usual) && !keeps_walk_buffers(usual * 2));
    }

    #[test]
    fn pieces_cover_the_text_and_part_long_ascii_runs() {
        assert_eq!(pieces(""), vec![(0..0)]);
        assert_eq!(pieces("short é text"), vec![(0..13)]);
        let long = "a".repeat(ASCII_RUN);
        let text = format!("é{long}é");
        // The run of ASCII between the others is a piece of its own.
        assert_eq!(
            pieces(&text),
            [0..2, 2..2 + ASCII_RUN, 2 + ASCII_RUN..text.len()]
        );
        let text = format!("{long}éé");
        assert_eq!(pieces(&text), [0..ASCII_RUN, ASCII_RUN..text.len()]);
        for text in [
            "x".repeat(5000),
            format!("{long}é{long}ü{}", "z".repeat(10)),
        ] {
            let pieces = pieces(&text);
            let joined: String = pieces.iter().map(|r| &text[r.clone()]).collect();
            assert_eq!(joined, text);
        }
    }
}
