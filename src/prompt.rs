//! The texts the generator summarizer sends: its default system instruction and the user prompts.

/// The default system instruction of summary requests; a non-blank configured prompt replaces it.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You summarize a conversation between a user and an AI assistant that uses tools, so that the assistant can continue the work from the summary alone. Write a structured summary in Markdown with these sections:

## Goal
What the user wants to achieve.

## Constraints and preferences
Requirements, decisions and preferences the user stated.

## Progress
### Done
### In progress
### Blocked

## Key decisions
Decisions made and why.

## Next steps
What remains to be done, in order.

## Critical context
Facts, names, paths, values and errors that the work depends on.

Be concise and concrete. Keep exact file paths, identifiers, commands and error messages. Do not invent anything that is not in the conversation. Do not list files read or modified: that is added separately.";

/// The placeholder a split turn's history part uses when there is no previous summary.
pub const NO_HISTORY_PLACEHOLDER: &str = "No earlier history.";

/// The user prompt of a history summary.
pub(crate) fn history(records: &str, previous_summary: &str) -> String {
    if previous_summary.is_empty() {
        return text!(
            "<conversation>\n",
            records,
            "\n</conversation>\n\nSummarize the conversation above."
        );
    }
    text!(
        "<previous-summary>\n",
        previous_summary,
        "\n</previous-summary>\n\n<conversation>\n",
        records,
        "\n</conversation>\n\nThe previous summary covers the conversation before the messages above. Write one updated summary that covers both: keep what still matters from the previous summary and add what the new messages change."
    )
}

/// The user prompt of a split turn's prefix summary: the first (or only) chunk's when
/// `so_far` is empty, else a later chunk's beside the summary of the chunks before it.
pub(crate) fn turn_prefix(records: &str, so_far: &str) -> String {
    if !so_far.is_empty() {
        return text!(
            "<turn-prefix-summary>\n",
            so_far,
            "\n</turn-prefix-summary>\n\n<turn-prefix>\n",
            records,
            "\n</turn-prefix>\n\nThe messages above continue the beginning of a turn that is still going on, summarized so far in the turn prefix summary; the rest of the turn is kept verbatim after this summary. Write one updated summary of what the user asked in this turn and what has been done so far, so that the kept messages can be understood. Be brief."
        );
    }
    text!(
        "<turn-prefix>\n",
        records,
        "\n</turn-prefix>\n\nThe messages above are the beginning of a turn that is still going on; the rest of the turn is kept verbatim after this summary. Summarize what the user asked in this turn and what has been done so far, so that the kept messages can be understood. Be brief."
    )
}

/// A history prompt with what the host asked the summary to focus on (`None` or blank: as it
/// is): the summary still covers everything, and gives the focus the most room.
pub(crate) fn with_focus(prompt: String, focus: Option<&str>) -> String {
    match focus.map(str::trim).filter(|f| !f.is_empty()) {
        None => prompt,
        Some(focus) => text!(
            prompt,
            "\n\n<focus>\n",
            focus,
            "\n</focus>\n\nGive most attention and detail to what the focus above names; still cover the rest briefly."
        ),
    }
}
