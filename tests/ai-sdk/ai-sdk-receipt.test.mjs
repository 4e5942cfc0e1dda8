// The receipt a chat route stores: every summary's record says where in the posted UIMessages it
// starts (`receipt.firstId`, `receipt.firstPart`; it ends where the state's kept messages
// start), for compactions of `prepare` and between the steps of a tool loop, and the stored
// state stays the same size however long the chat. Against `ai` 5 and 7's convertToModelMessages.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { ChatCompaction } from "context-compaction/ai-sdk";

const root = process.env.CC_AI_SDK ?? new URL(".", import.meta.url).pathname;
const require = createRequire(`${root}/package.json`);

const words = (label, n) => Array.from({ length: n }, (_, i) => `${label}${i % 7} word${i}`).join(" ");

/** An answer: a tool loop of two steps, a read of varying size, then the text. */
function answer(turn) {
  return [
    { type: "step-start" },
    { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `src/m${turn}.rs` }, output: words(`f${turn}`, 60 + ((turn * 53) % 600)) },
    { type: "step-start" },
    { type: "text", text: words(`a${turn}`, 60), state: "done" },
  ];
}

/** The posted UIMessages a summary covers: from (firstId, firstPart) up to the state's cut. */
function covered(messages, receipt, state) {
  const from = messages.findIndex((m) => m.id === receipt.firstId);
  const to = messages.findIndex((m) => m.id === state.firstKeptId);
  assert.ok(from >= 0 && to >= from, `${receipt.firstId} .. ${state.firstKeptId}`);
  return messages.slice(from, state.firstKeptPart > 0 ? to + 1 : to).filter((m) => m.role !== "system");
}

for (const major of [5, 7]) {
  test(`ai ${major}: every stored summary says where it starts in the posted messages, and the state does not grow with the chat`, async () => {
    const ai = await import(pathToFileURL(require.resolve(`ai${major}`)).href);
    const convertToModelMessages = (ui) => ai.convertToModelMessages(ui);
    const route = new ChatCompaction({
      contextWindowTokens: 14_000,
      reserveTokens: 4_000,
      keepRecentTokens: 2_500,
      system: "Be brief.",
      summarizer: { summarize: async () => "Summary: the chat so far." },
      convertToModelMessages,
    });
    const messages = [{ id: "s", role: "system", parts: [{ type: "text", text: "Be brief." }] }];
    let state = null;
    const seen = { prepare: 0, steps: 0 };
    const sizes = [];
    for (let turn = 0; turn < 45; turn++) {
      messages.push({ id: `u${turn}`, role: "user", parts: [{ type: "text", text: words(`q${turn}`, 90) }] });
      const before = state;
      const chat = await route.prepare(messages, state);
      assert.equal(chat.error, undefined);
      if (chat.reason === "compacted") {
        seen.prepare++;
        const { receipt } = chat.record;
        assert.deepEqual(chat.state.record, chat.record, "the state stores the record prepare returned");
        // It starts where the last summary stopped (the chat's first message before any).
        assert.deepEqual([receipt.firstId, receipt.firstPart], before ? [before.firstKeptId, before.firstKeptPart] : ["u0", 0], `turn ${turn}`);
        assert.equal(covered(messages, receipt, chat.state).length, receipt.summarizedMessages, `turn ${turn}`);
      }
      const parts = answer(turn);
      const done = await convertToModelMessages([{ id: `a${turn}`, role: "assistant", parts: parts.slice(0, 2) }]);
      await chat.prepareStep({ messages: [...chat.messages, ...done], steps: [{ response: { messages: done } }] });
      const response = { id: `a${turn}`, role: "assistant", parts };
      messages.push(response);
      const after = JSON.parse(JSON.stringify(chat.stateAfter(response)));
      if (after?.record?.receipt && after.record !== null && JSON.stringify(after.record) !== JSON.stringify(chat.state?.record ?? null)) {
        // A summary made between the steps: it starts where the state it was made under kept from.
        seen.steps++;
        const start = chat.state ?? { firstKeptId: "u0", firstKeptPart: 0 };
        assert.deepEqual([after.record.receipt.firstId, after.record.receipt.firstPart], [start.firstKeptId, start.firstKeptPart], `turn ${turn}, between steps`);
      }
      state = after;
      if (state) sizes.push(JSON.stringify({ ...state, summary: "" }).length);
    }
    assert.ok(seen.prepare >= 3 && seen.steps >= 1, JSON.stringify(seen));
    // The record names where a summary starts, never every message it covers: the state's size
    // does not grow with the chat.
    assert.deepEqual(Object.keys(state.record.receipt).sort(), ["cleared", "digest", "firstId", "firstPart", "pinned", "summarizedMessages", "summarizedTokens"]);
    assert.ok(Math.max(...sizes) < 1000, `the stored state without its summary: at most ${Math.max(...sizes)} bytes`);
    route.free();
  });
}
