//! Writing a text as a JSON string, escaped exactly as `serde_json` escapes it.

use crate::find::stops16;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{score, score_quoted};
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
            "a\nb",
            "\n\nfoo\tBar\r\n",
            "say \"hi\" \\o/",
            "x\nsomeVeryLongIdentifierName",
            "  \t  x",
            "A\u{8}b\u{c}C",
        ] {
            // Long enough to be scored in blocks, with escapes across block boundaries.
            let text = text.repeat(23);
            assert_eq!(
                score_quoted(text.as_bytes()),
                Some(quoted(&text)),
                "{text:?}"
            );
        }
        for text in ["", "plain", "café 日本"] {
            assert_eq!(
                score_quoted(text.as_bytes()),
                Some(quoted(text)),
                "{text:?}"
            );
        }
        // Short texts with escapes, and `\u00xx` escapes, are left to `escape_into`.
        assert_eq!(score_quoted(b"a\nb"), None);
        assert_eq!(
            score_quoted(
                &[b'x'; 70]
                    .iter()
                    .chain(b"\x01")
                    .copied()
                    .collect::<Vec<_>>()
            ),
            None
        );
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
