// Pinned UIMessages (`metadata.pinned: true`) through the chat route and its preview, against
// `ai` 5's and 7's own convertToModelMessages: a replayed chat compacts ten times and more, and
// every request sends the pinned messages right after the summary, verbatim (as
// convertToModelMessages makes them, marked pinned for the steps between) and in order, a
// pinned tool loop with its tool pairs intact; the summarizer never sees them; the preview
// shows them with the fate "pinned".
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { ChatCompaction, ChatPreview } from "context-compaction/ai-sdk";

const root = process.env.CC_AI_SDK ?? new URL(".", import.meta.url).pathname;
const require = createRequire(`${root}/package.json`);
const sdk = {};
for (const major of [5, 7]) sdk[major] = await import(pathToFileURL(require.resolve(`ai${major}`)).href);

const OPTIONS = { contextWindowTokens: 9_000, reserveTokens: 2_000, keepRecentTokens: 1_500, system: "You are a careful assistant." };
const words = (label, n) => Array.from({ length: n }, (_, i) => `${label}${i % 7} word${i}`).join(" ");

/** Turn `turn`'s answer: every fifth one a two-step tool loop (a read, then the text). */
function answer(turn) {
  if (turn % 5 !== 4) return [{ type: "step-start" }, { type: "text", text: words(`a${turn}`, 120), state: "done" }];
  return [
    { type: "step-start" },
    { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `src/m${turn}.rs` }, output: words(`f${turn}`, 150) },
    { type: "step-start" },
    { type: "text", text: words(`a${turn}`, 40), state: "done" },
  ];
}

/** The model messages of UIMessage `message` as the route sends a pinned one. */
async function pinnedModels(convert, message) {
  const models = await convert([{ id: message.id, role: message.role, parts: message.parts }]);
  return models.map((m) => ({ ...m, providerOptions: { ...m.providerOptions, contextCompaction: { pinned: true } } }));
}

for (const major of [5, 7]) {
  test(`ai ${major}: pinned UIMessages survive ten and more compactions of a replayed chat, verbatim, in order, right after the summary`, async () => {
    const convert = (ui) => sdk[major].convertToModelMessages(ui);
    const summarized = [];
    const summarizer = {
      summarize: async (req) => {
        summarized.push(...req.messages, ...req.turnPrefixMessages);
        return "Summary: the chat so far.";
      },
    };
    const route = new ChatCompaction({ ...OPTIONS, summarizer, convertToModelMessages: convert });
    const preview = new ChatPreview(OPTIONS);
    const messages = [];
    const pinned = [];
    let state = null;
    let compactions = 0;
    let shownPinned = 0;
    for (let turn = 0; turn < 90; turn++) {
      const user = { id: `u${turn}`, role: "user", parts: [{ type: "text", text: words(`q${turn}`, 70) }] };
      // The task statement is pinned.
      if (turn === 0) user.metadata = { pinned: true };
      messages.push(user);
      if (turn === 0) pinned.push(user);
      preview.update(messages, state);
      const planned = preview.plan();
      const chat = await route.prepare(messages, state);
      assert.equal(chat.error, undefined, `turn ${turn}`);
      assert.equal(chat.compacted, planned !== null, `turn ${turn}: the preview decides as the route`);
      if (planned?.kind === "summary") {
        assert.deepEqual([chat.state.firstKeptId, chat.state.firstKeptPart], [planned.firstKeptId, planned.firstKeptPart], `turn ${turn}`);
        const shown = planned.messages.filter((m) => m.fate === "pinned").map((m) => m.id);
        const before = pinned.filter((m) => messages.indexOf(m) < messages.findIndex((x) => x.id === planned.firstKeptId)).map((m) => m.id);
        assert.deepEqual(shown, before, `turn ${turn}: the preview shows the pinned messages before the cut`);
        shownPinned += shown.length;
      }
      if (chat.compacted && chat.reason === "compacted") compactions++;
      // What the model is sent: the summary, then the pinned messages as they are, in order.
      const expected = [];
      for (const message of pinned) expected.push(...(await pinnedModels(convert, message)));
      // Every pinned message is sent, verbatim and in order (those before the cut right after
      // the summary, the others in their places), and the task statement first.
      const marked = chat.messages.filter((m) => m.providerOptions?.contextCompaction?.pinned === true);
      assert.deepEqual(marked, expected, `turn ${turn}: the pinned messages, in order`);
      assert.deepEqual(chat.messages[chat.state?.summary ? 1 : 0], expected[0], `turn ${turn}: first after the summary`);
      if (chat.state?.summary && messages.indexOf(pinned.at(-1)) < messages.findIndex((m) => m.id === chat.state.firstKeptId)) {
        assert.deepEqual(chat.messages.slice(1, 1 + expected.length), expected, `turn ${turn}: right after the summary`);
      }
      const parts = answer(turn);
      // A decision reached in a tool loop is pinned, with its tool pair.
      const response = { id: `a${turn}`, role: "assistant", parts, ...(turn === 14 ? { metadata: { pinned: true } } : {}) };
      if (parts.length > 2) {
        const done = await convert([{ id: "r", role: "assistant", parts: parts.slice(0, 2) }]);
        const prepared = await chat.prepareStep({ messages: [...chat.messages, ...done], steps: [{ response: { messages: done } }] });
        const sent = prepared?.messages ?? [...chat.messages, ...done];
        for (const models of expected) assert.ok(sent.some((m) => JSON.stringify(m) === JSON.stringify(models)), `turn ${turn}: the second step still sends the pinned messages`);
      }
      messages.push(response);
      if (turn === 14) pinned.push(response);
      state = JSON.parse(JSON.stringify(chat.stateAfter(response)));
    }
    assert.ok(compactions >= 10, `${compactions} compactions`);
    assert.ok(shownPinned > 0, "the preview showed pinned messages");
    assert.ok(summarized.length > 0);
    const ids = new Set(pinned.map((m) => m.id));
    for (const m of summarized) {
      assert.ok(!ids.has(m.id) && m.providerOptions?.contextCompaction?.pinned !== true, `never summarized: ${JSON.stringify(m).slice(0, 80)}`);
    }
    route.free();
    preview.free();
  });
}

test("between the steps of a tool loop, a model message marked pinned stays right after the summary at every compaction (ai 5 and 6 rebuild the list, ai 7 keeps it)", async () => {
  for (const rebuild of [true, false]) {
    const summarized = [];
    const summarizer = { summarize: async (req) => (summarized.push(...req.messages, ...req.turnPrefixMessages), "Summary so far.") };
    const route = new ChatCompaction({ ...OPTIONS, summarizer, convertToModelMessages: (ui) => sdk[7].convertToModelMessages(ui) });
    const task = { role: "user", content: words("task", 80), providerOptions: { contextCompaction: { pinned: true } } };
    const initial = [task, { role: "user", content: words("go", 20) }];
    const prepareStep = route.prepareStep();
    let list = initial;
    const steps = [];
    let compactions = 0;
    for (let step = 0; step < 40; step++) {
      const response = [
        { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${step}`, toolName: "read", input: { path: `f${step}` } }] },
        { role: "tool", content: [{ type: "tool-result", toolCallId: `c${step}`, toolName: "read", output: { type: "text", value: words(`r${step}`, 200) } }] },
      ];
      steps.push({ response: { messages: response } });
      // ai 5 and 6: the request's messages and every step's; ai 7: what prepareStep returned last, and the new step.
      list = rebuild ? [...initial, ...steps.flatMap((s) => s.response.messages)] : [...list, ...response];
      const prepared = await prepareStep({ messages: list, steps });
      if (!rebuild && prepared?.messages) list = prepared.messages;
      const sent = prepared?.messages ?? list;
      if (sent[0]?.content?.[0]?.text?.includes?.("Summary so far.") || JSON.stringify(sent[0]).includes("Summary so far.")) {
        compactions++;
        assert.equal(sent[1], task, `step ${step}: the pinned message right after the summary`);
      }
      assert.equal(sent.filter((m) => m === task).length, 1, `step ${step}: sent once`);
    }
    assert.ok(compactions >= 3, `${compactions} steps sent a summary`);
    assert.ok(summarized.length > 0 && !summarized.includes(task), "never summarized");
    route.free();
  }
});
