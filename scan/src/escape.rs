//! Writing a text as a JSON string, escaped exactly as `serde_json` escapes it.

use crate::find::{stops16, string_stop};
use crate::score::{PUNCTUATION, bytewise, score};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `text` to `out` as a quoted JSON string: `"` and `\` escaped with a backslash, the
/// control bytes with their short escape (`\n`, `\t`, …) or `\u00xx`. Texts are taken 16 bytes
/// at a time, and chunks with nothing to escape are copied whole.
pub fn escape_into(text: &[u8], out: &mut Vec<u8>) {
    out.reserve(text.len() + text.len() / 8 + 2);
    out.push(b'"');
    let mut chunks = text.chunks_exact(16);
    for chunk in chunks.by_ref() {
        let mut lanes = [0u8; 16];
        lanes.copy_from_slice(chunk);
        // Each set bit is a byte to escape; the runs between them are copied whole.
        let mut mask = stops16(&lanes);
        let mut from = 0;
        while mask != 0 {
            let at = mask.trailing_zeros() as usize;
            out.extend_from_slice(lanes.get(from..at).unwrap_or_default());
            push(lanes.get(at).copied().unwrap_or_default(), out);
            from = at + 1;
            mask &= mask - 1;
        }
        out.extend_from_slice(lanes.get(from..).unwrap_or_default());
    }
    chunks.remainder().iter().for_each(|&byte| push(byte, out));
    out.push(b'"');
}

/// One byte of a string's text, escaped if it must be.
#[inline(always)]
fn push(byte: u8, out: &mut Vec<u8>) {
    match byte {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        0x00..=0x1f => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(byte >> 4)],
            HEX[usize::from(byte & 0xf)],
        ]),
        _ => out.push(byte),
    }
}

/// The score of `text` written as a quoted JSON string, without writing it: the pieces between
/// the bytes to escape are scored as they stand, each escape adds its backslash (and its quote
/// or backslash), and the letter of `\n`, `\r`, `\t`, `\b` and `\f` joins the letters the next
/// piece starts with. `None` when that is not known cheaply (a `\u00xx` escape, a long run of
/// letters after an escape); [`escape_into`] and [`score`] give it then.
pub fn score_quoted(text: &[u8]) -> Option<u64> {
    let mut total = 2 * PUNCTUATION;
    let mut letter = None;
    let mut pos = 0;
    loop {
        let at = string_stop(text, pos);
        let piece = text.get(pos..at)?;
        total += score(piece);
        if let Some(letter) = letter {
            total += letter_in_front(letter, piece)?;
        }
        let Some(&byte) = text.get(at) else {
            return Some(total);
        };
        total += PUNCTUATION;
        letter = match byte {
            b'"' | b'\\' => {
                total += PUNCTUATION;
                None
            }
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            0x08 => Some(b'b'),
            0x0c => Some(b'f'),
            _ => return None,
        };
        pos = at + 1;
    }
}

// The longest run of letters after an escape that `letter_in_front` looks at.
const FRONT: usize = 31;

/// What putting `letter` in front of `piece` adds to its score: it only changes the run of
/// letters `piece` starts with.
fn letter_in_front(letter: u8, piece: &[u8]) -> Option<u64> {
    let run = piece.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    if run > FRONT {
        return None;
    }
    let mut joined = [0u8; FRONT + 1];
    joined[0] = letter;
    joined.get_mut(1..=run)?.copy_from_slice(piece.get(..run)?);
    bytewise(joined.get(..=run)?).checked_sub(bytewise(piece.get(..run)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn escaped(text: &str) -> String {
        let mut out = Vec::new();
        escape_into(text.as_bytes(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_as_serde_json_does() {
        for text in [
            "",
            "plain",
            "a \"quote\" and \\ back",
            "\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}",
            "日本 \u{0}",
        ] {
            assert_eq!(
                escaped(text),
                serde_json::to_string(text).unwrap(),
                "{text:?}"
            );
        }
    }

    fn quoted(text: &str) -> u64 {
        let mut out = Vec::new();
        escape_into(text.as_bytes(), &mut out);
        score(&out)
    }

    #[test]
    fn quoted_scores_equal_scoring_the_escaped_text() {
        for text in [
            "",
            "plain",
            "a\nb",
            "\n\nfoo\tBar\r\n",
            "say \"hi\" \\o/",
            "x\nsomeVeryLongIdentifierName",
            "  \t  x",
        ] {
            assert_eq!(
                score_quoted(text.as_bytes()),
                Some(quoted(text)),
                "{text:?}"
            );
        }
        assert_eq!(score_quoted(b"\x01"), None);
    }

    proptest! {
        #[test]
        fn any_quoted_score_equals_scoring_the_escaped_text(parts in prop::collection::vec(
            prop_oneof![
                "[a-zA-Z]{1,40}", "[0-9]{1,5}", "[ ]{1,4}", "[\n\t\r\"\\\\\x08\x0c]", "[.,;(){}/_-]", "(é|日本|😀)",
            ], 0..40)) {
            let text = parts.concat();
            if let Some(got) = score_quoted(text.as_bytes()) {
                prop_assert_eq!(got, quoted(&text), "{:?}", text);
            }
        }

        #[test]
        fn any_text_escapes_as_serde_json_does(text in "(\\PC|[\\x00-\\x1f\"\\\\]){0,80}") {
            prop_assert_eq!(escaped(&text), serde_json::to_string(&text).unwrap());
        }
    }
}
