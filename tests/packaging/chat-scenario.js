// The chat every ChatPreview page of the packaging suite previews: `useChat`'s UIMessages of a
// coding session of 24 turns (a read, an edit, an answer per turn, one step each), about 40k
// tokens, for a 32k-token window. Copied into each app beside its ChatPreview page
// (chat-page.js) as `chat-conversation.js`.
const file = (name, lines) =>
  Array.from({ length: lines }, (_, i) => `${name}:${i + 1}  export function step${i}(input) { return transform(input, ${i}); }`).join("\n");

/** The chat's UIMessages. */
export function chat() {
  const messages = [];
  for (let turn = 0; turn < 24; turn++) {
    const path = `src/module${turn}.ts`;
    messages.push({ id: `u${turn}`, role: "user", parts: [{ type: "text", text: `Turn ${turn}: read ${path}, fix the failing step and run the tests.` }] });
    messages.push({
      id: `a${turn}`,
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-read", toolCallId: `read${turn}`, state: "output-available", input: { path }, output: file(path, 60) },
        { type: "step-start" },
        { type: "tool-edit", toolCallId: `edit${turn}`, state: "output-available", input: { path, oldText: `transform(input, ${turn})` }, output: "Edited 1 line." },
        { type: "step-start" },
        { type: "text", text: `Fixed ${path}; all ${40 + turn} tests pass.` },
      ],
    });
  }
  return messages;
}

/** The options the page's ChatPreview takes (the chat route's). */
export const chatOptions = { contextWindowTokens: 32_000, reserveTokens: 4_000, keepRecentTokens: 8_000 };

/** The line the page shows for a plan (`ChatPreview.plan()`). */
export const planLine = (plan) =>
  plan
    ? `Would summarize ${plan.messages.filter((m) => m.fate === "summarized").length} messages, keep from ${plan.firstKeptId} (part ${plan.firstKeptPart}): ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens`
    : "Fits: nothing to compact";
