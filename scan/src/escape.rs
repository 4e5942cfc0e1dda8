//! Writing text as the content of a JSON string, as `serde_json` escapes it.

/// Appends `text` to `out` as the content of a JSON string (without the quotes), escaped as
/// `serde_json` writes it: `"` and `\\` after a backslash, U+0000–U+001F as `\b`, `\t`, `\n`,
/// `\f`, `\r` or `\u00xx`, everything else as it is.
///
/// Text is taken 16 bytes at a time: a block without a byte to escape is stored whole, and in
/// one with some, each run up to the next such byte is stored as the block shifted to the run's
/// start (16 bytes, of which only the run's are kept) rather than copied by its length. Code in
/// tool-call arguments has an escape every ten bytes or so (`\n`, `\"`), and a copy of a few
/// bytes by length is a call into the runtime in WebAssembly: this took two thirds of the time
/// of copying each run (1.7 against 2.7 ms for the 1.6 MB of a long session's arguments).
pub fn escape_into(text: &str, out: &mut String) {
    // Up to the first byte to escape (every such byte is ASCII, so this is a character
    // boundary) by length: the whole of most keys and many values.
    let first = crate::find::string_stop(text.as_bytes(), 0);
    out.push_str(text.get(..first).unwrap_or(text));
    let Some(rest) = text.get(first..).filter(|rest| !rest.is_empty()) else {
        return;
    };
    escape_blocks(rest, out);
}

/// [`escape_into`] 16 bytes at a time.
fn escape_blocks(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut buf = std::mem::take(out).into_bytes();
    let (start, mut len) = (buf.len(), buf.len());
    // Room for the text as it is: an escape-heavy text grows it as it goes, by what remains of
    // the text or by what is written of it so far, whichever is more.
    buf.resize(len + bytes.len() + ROOM, 0);
    let mut blocks = bytes.chunks_exact(16);
    while let Some(part) = blocks.next() {
        if buf.len() < len + ROOM {
            let more = (blocks.len() * 16).max(len - start);
            buf.resize(len + ROOM + more, 0);
        }
        let mut block = [0u8; 16];
        block.copy_from_slice(part);
        len = block_into(&block, 16, &mut buf, len);
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        // Padded with spaces, which are never escaped (and never kept: only `n` bytes are).
        let mut block = [b' '; 16];
        if let Some(head) = block.get_mut(..rest.len()) {
            head.copy_from_slice(rest);
        }
        if buf.len() < len + ROOM {
            buf.resize(len + ROOM, 0);
        }
        len = block_into(&block, rest.len(), &mut buf, len);
    }
    buf.truncate(len);
    // SAFETY: `buf` holds what `out` held (UTF-8), then `text` with every byte to escape (all
    // ASCII, so each is a whole character and the runs between them are whole characters)
    // replaced by its ASCII escape, in order: `block_into` keeps of each block exactly its
    // runs and escapes, and what its whole-block stores wrote past them was cut off above.
    *out = unsafe { String::from_utf8_unchecked(buf) };
}

/// The most one block can add to the output, and write past that (a 16-byte store): 16 bytes
/// of text, 5 more for each of them escaped as `\u00xx`, and a store's 16.
const ROOM: usize = 16 * 6 + 16;

/// Writes the first `n` bytes of `block` escaped at `len` of `buf` (which has [`ROOM`] there);
/// returns the new length of the output.
fn block_into(block: &[u8; 16], n: usize, buf: &mut [u8], mut len: usize) -> usize {
    let mut stops = crate::find::stops16(block) & ((1u32 << n) - 1);
    let mut from = 0;
    loop {
        let at = if stops == 0 {
            n
        } else {
            stops.trailing_zeros() as usize
        };
        // The block from `from` on, of which the run `from..at` is kept.
        if let Some(slot) = buf.get_mut(len..len + 16) {
            store_from(block, from, slot);
        }
        len += at - from;
        let Some(&byte) = block.get(at).filter(|_| at < n) else {
            return len;
        };
        len += match LETTERS.get(usize::from(byte)) {
            Some(&letter) if letter != 0 => {
                if let Some(slot) = buf.get_mut(len..len + 2) {
                    slot.copy_from_slice(&[b'\\', letter]);
                }
                2
            }
            _ => {
                if let Some(slot) = buf.get_mut(len..len + 6) {
                    slot.copy_from_slice(&unicode_escape(byte));
                }
                6
            }
        };
        from = at + 1;
        stops &= stops - 1;
    }
}

/// The letter of the two-byte escape of each byte that has one (`"`, `\\`, and the control
/// bytes `\b`, `\t`, `\n`, `\f`, `\r`), 0 for the rest (a control byte is `\u00xx`).
const LETTERS: [u8; 128] = {
    let mut letters = [0u8; 128];
    letters[0x08] = b'b';
    letters[0x09] = b't';
    letters[0x0A] = b'n';
    letters[0x0C] = b'f';
    letters[0x0D] = b'r';
    letters[b'"' as usize] = b'"';
    letters[b'\\' as usize] = b'\\';
    letters
};

/// `\u00xx` for a control byte.
fn unicode_escape(byte: u8) -> [u8; 6] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let hex = |nibble: u8| HEX[usize::from(nibble & 15)];
    [b'\\', b'u', b'0', b'0', hex(byte >> 4), hex(byte)]
}

/// Stores the bytes of `block` from `from` (at most 16) at the start of `slot` (16 bytes), the
/// rest of it with anything.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn store_from(block: &[u8; 16], from: usize, slot: &mut [u8]) {
    use core::arch::wasm32::*;
    let mut out = [0u8; 16];
    // SAFETY: `block` and `out` are 16 bytes each; v128 loads and stores need no alignment.
    unsafe {
        let lanes = v128_load(block.as_ptr().cast());
        // Lane i takes byte from + i (0 past the end: swizzle's indices from 16 on give 0).
        let indices = u8x16_add(
            u8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
            u8x16_splat(from as u8),
        );
        v128_store(out.as_mut_ptr().cast(), u8x16_swizzle(lanes, indices));
    }
    if let Some(slot) = slot.get_mut(..16) {
        slot.copy_from_slice(&out);
    }
}

/// [`store_from`] where there is no byte swizzle.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn store_from(block: &[u8; 16], from: usize, slot: &mut [u8]) {
    let word = u128::from_le_bytes(*block);
    let run = word.checked_shr(8 * from as u32).unwrap_or(0);
    if let Some(slot) = slot.get_mut(..16) {
        slot.copy_from_slice(&run.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        escape_into(text, &mut out);
        out
    }

    #[test]
    fn escapes_as_serde_json_does() {
        let every_control: String = (0u8..0x20).map(char::from).collect();
        for text in [
            "",
            "plain text longer than sixteen bytes, with no escapes at all",
            "quote \" and backslash \\ and / slash",
            "caf\u{e9} \u{65e5}\u{672c} \u{1f600}\u{7f}\u{2028}",
            &every_control,
            &format!("{every_control}{every_control} after two rounds \"\\"),
        ] {
            let expected = serde_json::to_string(text).unwrap();
            assert_eq!(escaped(text), expected[1..expected.len() - 1], "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn escapes_any_text_as_serde_json_does(text in "\\PC{0,40}|[\\x00-\\x7f]{0,80}") {
            let expected = serde_json::to_string(&text).unwrap();
            proptest::prop_assert_eq!(escaped(&text), &expected[1..expected.len() - 1]);
        }

        /// Runs of every length between escapes, across block boundaries, of one- to four-byte
        /// characters, appended to what the output held: a block stored whole, runs stored
        /// shifted, and the output grown by texts that are mostly escapes.
        #[test]
        fn appends_runs_across_blocks_as_serde_json_does(
            before in "\\PC{0,20}",
            parts in proptest::collection::vec(
                proptest::sample::select(vec!["\n", "\"", "\\", "\u{1}", "\u{1f}", "a", "abcdefghijklmno", "\u{e9}", "\u{65e5}", "\u{1f600}"]),
                0..200,
            ),
        ) {
            let text = parts.concat();
            let mut out = before.clone();
            escape_into(&text, &mut out);
            let expected = serde_json::to_string(&text).unwrap();
            proptest::prop_assert_eq!(out, format!("{before}{}", &expected[1..expected.len() - 1]));
        }
    }
}
