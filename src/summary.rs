//! The summary text: its projection into the conversation, post-processing of generated text,
//! and the file lists the library appends itself.

use crate::message::Message;
use crate::search::find;

const READ_OPEN: &str = "<read-files>";
const READ_CLOSE: &str = "</read-files>";
const MODIFIED_OPEN: &str = "<modified-files>";
const MODIFIED_CLOSE: &str = "</modified-files>";

/// The heading that joins a split turn's prefix summary after the history summary.
pub const TURN_CONTEXT_HEADING: &str = "**Turn Context (split turn):**";

/// What stands under [`TURN_CONTEXT_HEADING`] for a split turn's prefix quoted instead of
/// summarized: its records, as the generator summarizer would have shown them to the model.
pub(crate) fn quoted_turn_prefix(records: &str) -> String {
    text!(
        "Quoted from the start of the current turn (the rest of it follows this summary):\n\n",
        records
    )
}

/// The text of the one user message a non-empty summary projects to; `None` for an empty one.
pub fn project(summary: &str) -> Option<String> {
    if summary.is_empty() {
        return None;
    }
    Some(text!(
        "The conversation history before this point was compacted into the following summary:\n\n<summary>\n",
        summary,
        "\n</summary>"
    ))
}

/// Trims `text` and removes every `<read-files>` and `<modified-files>` block from it (a block
/// left open runs to the end), so that only the library's own lists appear in a summary.
pub fn clean(text: &str) -> String {
    let without_read = remove_blocks(text, READ_OPEN, READ_CLOSE);
    remove_blocks(&without_read, MODIFIED_OPEN, MODIFIED_CLOSE)
        .trim()
        .to_owned()
}

fn remove_blocks(text: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find(rest, open) {
        out.push_str(&rest[..start]);
        let after_open = &rest[start + open.len()..];
        rest = match find(after_open, close) {
            Some(end) => &after_open[end + close.len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// Which tool calls the summary's file lists are made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileTracking {
    /// Tools whose path is listed as read (default `read`).
    pub read_tools: Vec<String>,
    /// Tools whose path is listed as modified (default `write`, `edit`).
    pub modify_tools: Vec<String>,
    /// Argument keys that hold the path, tried in order (default `path`, `file_path`, `filePath`).
    pub path_keys: Vec<String>,
}

impl Default for FileTracking {
    fn default() -> Self {
        let own = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect();
        FileTracking {
            read_tools: own(&["read"]),
            modify_tools: own(&["write", "edit"]),
            path_keys: own(&["path", "file_path", "filePath"]),
        }
    }
}

/// Paths the summarized part of a conversation asked to read or change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileLists {
    read: Paths,
    modified: Paths,
}

/// Paths, sorted and each once, as a `BTreeSet<String>` holds them (its tree code cost the module
/// 1.9 KB gzip; file lists are short).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Paths(Vec<String>);

impl Paths {
    fn insert(&mut self, path: &str) {
        if let Err(at) = self.position(path) {
            self.0.insert(at, path.to_owned());
        }
    }

    fn contains(&self, path: &str) -> bool {
        self.position(path).is_ok()
    }

    fn position(&self, path: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|held| held.as_str().cmp(path))
    }
}

impl FileLists {
    /// Adds the lists found in a previous summary's `<read-files>` / `<modified-files>` blocks.
    pub fn add_from_summary(&mut self, summary: &str) {
        for path in block_lines(summary, READ_OPEN, READ_CLOSE) {
            self.read.insert(&path);
        }
        for path in block_lines(summary, MODIFIED_OPEN, MODIFIED_CLOSE) {
            self.modified.insert(&path);
        }
    }

    /// Adds the paths of the tracked tool calls in `messages` (by default `read`, `write` and
    /// `edit`; other tools are ignored). A call counts as requested whatever its outcome.
    pub fn add_from_messages(&mut self, messages: &[Message], tracking: &FileTracking) {
        for call in messages.iter().flat_map(Message::calls) {
            let Some(path) = tracking
                .path_keys
                .iter()
                .find_map(|key| call.arguments.get_str(key))
            else {
                continue;
            };
            if tracking.modify_tools.contains(&call.name) {
                self.modified.insert(&path);
            } else if tracking.read_tools.contains(&call.name) {
                self.read.insert(&path);
            }
        }
    }

    /// Appends the lists to a cleaned summary; a path that was modified is listed only as
    /// modified, both lists are sorted, and an empty list is left out.
    pub fn append_to(&self, summary: &mut String) {
        let read: Vec<&str> = self
            .read
            .0
            .iter()
            .filter(|path| !self.modified.contains(path))
            .map(String::as_str)
            .collect();
        let modified: Vec<&str> = self.modified.0.iter().map(String::as_str).collect();
        append_block(summary, READ_OPEN, READ_CLOSE, &read);
        append_block(summary, MODIFIED_OPEN, MODIFIED_CLOSE, &modified);
    }
}

fn append_block(summary: &mut String, open: &str, close: &str, paths: &[&str]) {
    if paths.is_empty() {
        return;
    }
    summary.push_str("\n\n");
    summary.push_str(open);
    for path in paths {
        summary.push('\n');
        summary.push_str(path);
    }
    summary.push('\n');
    summary.push_str(close);
}

fn block_lines(text: &str, open: &str, close: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(start) = find(rest, open) {
        let body = &rest[start + open.len()..];
        let (inside, after) = match find(body, close) {
            Some(end) => (&body[..end], &body[end + close.len()..]),
            None => (body, ""),
        };
        lines.extend(
            inside
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .map(str::to_owned),
        );
        rest = after;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::json;

    #[test]
    fn empty_summary_projects_nothing() {
        assert_eq!(project(""), None);
        assert_eq!(
            project("S").unwrap(),
            "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS\n</summary>"
        );
    }

    #[test]
    fn clean_trims_and_removes_model_file_blocks() {
        let text = "  \n## Goal\nship it\n<read-files>\nx.rs\n</read-files>\n<modified-files>\ny.rs\n</modified-files>\n  ";
        assert_eq!(clean(text), "## Goal\nship it");
        assert_eq!(clean("a <read-files> never closed"), "a");
        assert_eq!(clean("<read-files>\nonly\n</read-files>\n"), "");
    }

    #[test]
    fn lists_merge_summary_and_calls_and_modified_wins() {
        let mut lists = FileLists::default();
        lists.add_from_summary("old\n\n<read-files>\nb.rs\nz.rs\n</read-files>\n\n<modified-files>\nm.rs\n</modified-files>");
        lists.add_from_messages(
            &[Message::tool_calls(vec![
                ToolCall::new("1", "read", json!({"path": "a.rs"})),
                ToolCall::new("2", "edit", json!({"path": "z.rs"})),
                ToolCall::new("3", "write", json!({"path": "w.rs"})),
                ToolCall::new("4", "bash", json!({"path": "ignored.rs", "command": "ls"})),
                ToolCall::new("5", "read", json!({"file": "no-path-key"})),
                ToolCall::new("6", "read", json!({"file_path": "f.rs"})),
                // Listed once, however often it is read.
                ToolCall::new("7", "read", json!({"path": "b.rs"})),
                ToolCall::new("8", "read", json!({"path": "a.rs"})),
            ])],
            &FileTracking::default(),
        );
        let mut summary = "S".to_owned();
        lists.append_to(&mut summary);
        assert_eq!(
            summary,
            "S\n\n<read-files>\na.rs\nb.rs\nf.rs\n</read-files>\n\n<modified-files>\nm.rs\nw.rs\nz.rs\n</modified-files>"
        );
    }

    #[test]
    fn tracked_tools_and_path_keys_are_configurable() {
        let tracking = FileTracking {
            read_tools: vec!["Read".into()],
            modify_tools: vec!["MultiEdit".into()],
            path_keys: vec!["target".into()],
        };
        let mut lists = FileLists::default();
        lists.add_from_messages(
            &[Message::tool_calls(vec![
                ToolCall::new("1", "Read", json!({"target": "a.rs"})),
                ToolCall::new("2", "MultiEdit", json!({"target": "b.rs"})),
                ToolCall::new("3", "read", json!({"path": "ignored.rs"})),
            ])],
            &tracking,
        );
        let mut summary = "S".to_owned();
        lists.append_to(&mut summary);
        assert_eq!(
            summary,
            "S\n\n<read-files>\na.rs\n</read-files>\n\n<modified-files>\nb.rs\n</modified-files>"
        );
    }

    #[test]
    fn no_files_appends_nothing() {
        let mut summary = "S".to_owned();
        FileLists::default().append_to(&mut summary);
        assert_eq!(summary, "S");
    }
}
