//! Writing text as the content of a JSON string, as `serde_json` escapes it.

/// Appends `text` to `out` as the content of a JSON string (without the quotes), escaped as
/// `serde_json` writes it: `"` and `\` after a backslash, U+0000–U+001F as `\b`, `\t`, `\n`,
/// `\f`, `\r` or `\u00xx`, everything else as it is. Plain runs are found 16 bytes at a time.
pub fn escape_into(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut copied = 0;
    loop {
        let at = crate::find::string_stop(bytes, copied);
        // Every stop byte is ASCII, so `at` is a character boundary.
        out.push_str(text.get(copied..at).unwrap_or(""));
        let Some(&byte) = bytes.get(at) else {
            return;
        };
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0C => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(byte >> 4) & 15]));
                out.push(char::from(HEX[usize::from(byte & 15)]));
            }
        }
        copied = at + 1;
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
    }
}
