//! The texts clearing and trimming put in place of a tool result.

/// How every placeholder starts, so that a cleared result is never cleared again.
pub const CLEARED_PREFIX: &str = "[Tool result cleared";

/// What stands for a cleared result: the tool, its size and, for a file read, the path, so
/// that the model can run it again.
pub fn placeholder(tool: Option<&str>, tokens: u64, path: Option<&str>) -> String {
    let tool = tool.unwrap_or("a tool");
    let tokens = thousands(tokens);
    match path {
        Some(path) => text!(
            CLEARED_PREFIX,
            " to save context: ",
            tool,
            " of ",
            path,
            ", about ",
            tokens,
            " tokens. Read the file again if it is needed.]"
        ),
        None => text!(
            CLEARED_PREFIX,
            " to save context: ",
            tool,
            " returned about ",
            tokens,
            " tokens. Call the tool again if the output is needed.]"
        ),
    }
}

/// `text` with its middle removed so that about `keep` of its characters stay, half from its
/// head and half from its tail, and a marker saying how much went (from the middle of this
/// `what`). `None` when `keep` is not less than its length.
pub fn trim_middle(text: &str, keep: usize, removed_tokens: u64, what: &str) -> Option<String> {
    let chars = text.chars().count();
    if keep >= chars {
        return None;
    }
    let head_chars = keep / 2;
    let tail_chars = keep - head_chars;
    let head_end = text.char_indices().nth(head_chars).map_or(0, |(i, _)| i);
    let tail_start = text
        .char_indices()
        .nth(chars - tail_chars)
        .map_or(text.len(), |(i, _)| i);
    let (head, tail) = (&text[..head_end], &text[tail_start..]);
    Some(text!(
        head,
        "\n\n[… ",
        thousands((chars - keep) as u64),
        " characters (about ",
        thousands(removed_tokens),
        " tokens) trimmed from the middle of this ",
        what,
        " …]\n\n",
        tail
    ))
}

/// `12345` as `12,345`.
fn thousands(n: u64) -> String {
    let digits = text!(n);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_name_the_tool_the_size_and_the_path() {
        let read = placeholder(Some("read"), 12_345, Some("src/lib.rs"));
        assert!(read.starts_with(CLEARED_PREFIX));
        assert!(
            read.contains("read of src/lib.rs, about 12,345 tokens"),
            "{read}"
        );
        let bash = placeholder(Some("bash"), 999, None);
        assert!(bash.contains("bash returned about 999 tokens"), "{bash}");
    }

    #[test]
    fn trimming_keeps_head_and_tail() {
        let text = format!("HEAD{}TAIL", "x".repeat(1000));
        let trimmed = trim_middle(&text, 8, 250, "tool result").unwrap_or_default();
        assert!(trimmed.starts_with("HEAD\n\n[… 1,000 characters (about 250 tokens)"));
        assert!(trimmed.ends_with("…]\n\nTAIL"), "{trimmed}");
        assert_eq!(trim_middle("short", 10, 0, "tool result"), None);
        // Never splits a character.
        let wide = "é".repeat(100);
        assert!(trim_middle(&wide, 11, 10, "tool result").is_some());
    }
}
