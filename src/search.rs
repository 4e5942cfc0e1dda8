//! Finding and trimming fixed texts. `str::find` and `str::trim_end_matches` with a `&str`
//! pattern bring the standard library's two-way searcher into the module (1.9 KB gzip); the
//! texts searched here are short (an error message, a summary, a type tag), so a plain scan
//! serves.

/// The byte position of the first `needle` in `text`.
pub(crate) fn find(text: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    // A match starts where `needle`'s first byte is, never inside a character: the position is
    // a character boundary of `text`.
    text.as_bytes()
        .windows(needle.len())
        .position(|window| window == needle.as_bytes())
}

/// `text` without every `suffix` it ends with (`"a_call_call"` → `"a"`), as
/// `str::trim_end_matches` does.
#[cfg_attr(
    not(any(feature = "openai-chat", feature = "openai-responses")),
    allow(dead_code)
)]
pub(crate) fn trim_end<'a>(mut text: &'a str, suffix: &str) -> &'a str {
    while let Some(rest) = text.strip_suffix(suffix).filter(|_| !suffix.is_empty()) {
        text = rest;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_as_str_find_does() {
        for (text, needle) in [
            ("", ""),
            ("abc", ""),
            ("", "a"),
            ("abcabc", "ca"),
            ("aaab", "aab"),
            ("héllo wörld", "wö"),
            ("héllo", "llo"),
            ("short", "longer than the text"),
        ] {
            assert_eq!(find(text, needle), text.find(needle), "{text:?} {needle:?}");
        }
    }

    #[test]
    fn trims_as_trim_end_matches_does() {
        for (text, suffix) in [
            ("shell_call", "_call"),
            ("a_call_call", "_call"),
            ("_call", "_call"),
            ("call", "_call"),
            ("abc", ""),
        ] {
            assert_eq!(trim_end(text, suffix), text.trim_end_matches(suffix));
        }
    }
}
