// The conversation every app of the packaging suite works on, standing in for a user's own
// history: a coding agent's session of 24 turns (reads, edits, test runs), 144 messages, about
// 150k tokens, for a 128k-token window. Copied into each app as `conversation.js`.
const file = (name, lines) =>
  Array.from({ length: lines }, (_, i) => `${name}:${i + 1}  export function step${i}(input) { return transform(input, ${i}); }`).join("\n");

/** @returns {import("context-compaction").Message[]} */
export function conversation() {
  const messages = [];
  for (let turn = 0; turn < 24; turn++) {
    const path = `src/module${turn}.ts`;
    messages.push({ role: "user", content: `Turn ${turn}: read ${path}, fix the failing step and run the tests.` });
    messages.push({ role: "assistant", content: [{ type: "toolCall", id: `read${turn}`, name: "read", arguments: { path } }], stopReason: "toolUse" });
    messages.push({ role: "toolResult", toolCallId: `read${turn}`, toolName: "read", content: [{ type: "text", text: file(path, 250) }] });
    messages.push({
      role: "assistant",
      content: [
        { type: "text", text: `The bug is in step${turn % 7}: the index is off by one. Editing it.` },
        { type: "toolCall", id: `edit${turn}`, name: "edit", arguments: { path, oldText: `transform(input, ${turn})`, newText: `transform(input, ${turn + 1})` } },
      ],
      stopReason: "toolUse",
    });
    messages.push({ role: "toolResult", toolCallId: `edit${turn}`, toolName: "edit", content: [{ type: "text", text: "Edited 1 line." }] });
    messages.push({ role: "assistant", content: [{ type: "text", text: `Fixed ${path}; all ${40 + turn} tests pass.` }], stopReason: "stop" });
  }
  return messages;
}
