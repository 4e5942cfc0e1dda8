// The conversation every app of the packaging suite plans: a coding agent's session of 24 turns
// (reads, edits, test runs; 144 messages, about 36k tokens), planned for a 32k-token window. Each app calls
// `planSummary` with the package it imported and shows the result; the suite requires the same
// result as Node. This file is copied into each app (as a user's own module).
const file = (name, lines) => Array.from({ length: lines }, (_, i) => `${name}:${i + 1}  export function step${i}(input) { return transform(input, ${i}); }`).join("\n");

export function conversation() {
  const messages = [];
  for (let turn = 0; turn < 24; turn++) {
    const path = `src/module${turn}.ts`;
    messages.push({ role: "user", content: `Turn ${turn}: read ${path}, fix the failing step and run the tests.` });
    messages.push({
      role: "assistant",
      content: [{ type: "toolCall", id: `read${turn}`, name: "read", arguments: { path } }],
      stopReason: "toolUse",
    });
    messages.push({ role: "toolResult", toolCallId: `read${turn}`, toolName: "read", content: [{ type: "text", text: file(path, 60) }] });
    messages.push({
      role: "assistant",
      content: [
        { type: "text", text: `The bug is in step${turn % 7}: the index is off by one. Editing it.` },
        { type: "toolCall", id: `edit${turn}`, name: "edit", arguments: { path, oldText: `step${turn % 7}(input, ${turn})`, newText: `step${turn % 7}(input, ${turn + 1})` } },
      ],
      stopReason: "toolUse",
    });
    messages.push({ role: "toolResult", toolCallId: `edit${turn}`, toolName: "edit", content: [{ type: "text", text: "Edited 1 line." }] });
    messages.push({ role: "assistant", content: [{ type: "text", text: `Fixed ${path}; all ${40 + turn} tests pass.` }], stopReason: "stop" });
  }
  return messages;
}

export const settings = { keepRecentTokens: 8000, contextWindowTokens: 32000, reserveTokens: 4000 };

/** The plan of the scenario in a form every app can print: what the suite compares. */
export function planSummary({ Compactor }) {
  const compactor = new Compactor({ keepRecentTokens: settings.keepRecentTokens, summarizer: { summarize: async () => "" } });
  const messages = conversation();
  const plan = compactor.plan({ messages, inputTokenBudget: settings.contextWindowTokens - settings.reserveTokens });
  compactor.free();
  if (plan === null) return { plan: null };
  return {
    messages: messages.length,
    firstKeptIndex: plan.firstKeptIndex,
    summarize: plan.messagesToSummarize.length,
    splitTurn: plan.splitTurn,
    estimateBefore: plan.estimateBefore,
    estimateAfterWithoutSummary: plan.estimateAfterWithoutSummary,
  };
}

/** Compacts the scenario with a summarizer that needs no network; for the server routes. */
export async function compactSummary({ Compactor }) {
  const compactor = new Compactor({
    keepRecentTokens: settings.keepRecentTokens,
    summarizer: { summarize: async ({ messages }) => `Fixed ${messages.length} messages' worth of modules.` },
  });
  const messages = conversation();
  const result = await compactor.compact({ messages, inputTokenBudget: settings.contextWindowTokens - settings.reserveTokens });
  compactor.free();
  return { summary: result.summary, kept: result.messages.length, firstKeptIndex: result.record?.firstKeptIndex ?? null };
}
