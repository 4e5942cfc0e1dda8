// A pinned message is kept after the summary, so no summarizer is sent it: not the built-in
// summarizer's prompts (records written as the messages are read, or from units when the
// summary model has a window), not `summarizerInput`'s preview, not a draft's digest.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor } from "context-compaction";

function history() {
  const messages = [];
  for (let i = 0; i < 40; i++) {
    messages.push({ role: "user", content: `question ${i} ${"word ".repeat(200)}` });
    messages.push({ role: "assistant", content: [{ type: "text", text: `answer ${i} ${"word ".repeat(200)}` }] });
  }
  messages[2] = { role: "user", content: `THE PINNED SPEC ${"word ".repeat(50)}`, pinned: true };
  return messages;
}

// Pinned by its marker, by the request's indices, by a predicate.
const pins = {
  marker: (messages) => ({ messages }),
  indices: (messages) => ({ messages: messages.map(({ pinned, ...rest }) => rest), pinned: [2] }),
  predicate: (messages) => ({ messages: messages.map(({ pinned, ...rest }) => rest), pinned: (m) => String(m.content).startsWith("THE PINNED") }),
};

for (const [how, pin] of Object.entries(pins)) for (const window of [undefined, 8000]) {
  test(`the built-in summarizer is never sent a pinned message (pinned by ${how}, summary model window ${window ?? "none"})`, async () => {
    const { messages, pinned } = pin(history());
    const prompts = [];
    const compactor = new Compactor({
      keepRecentTokens: 2000,
      summarizer: { model: "m", contextWindowTokens: window, generate: async (req) => { prompts.push(req.messages[0].content); return "summary"; } },
    });
    const request = { messages, inputTokenBudget: 5000, pinned };
    const plan = compactor.plan(request);
    assert.ok(plan.firstKeptIndex > 2, "the pinned message is before the cut");
    const previewed = compactor.summarizerInput(request, plan).map((p) => p.prompt).join("\n");
    assert.ok(previewed.includes("question 0"), "the history is summarized");
    assert.ok(!previewed.includes("THE PINNED SPEC"), "not in the preview");
    const { messages: kept } = await compactor.apply(request, plan);
    assert.ok(prompts.length > 0 && prompts.every((p) => !p.includes("THE PINNED SPEC")), "not in any prompt");
    assert.equal(kept[0], messages[2], "kept, first after the summary");
  });
}

test("a draft's digest does not cover a pinned message: editing it leaves the draft committable", async () => {
  const messages = history();
  const compactor = new Compactor({ keepRecentTokens: 2000, summarizer: { summarize: async () => "summary" } });
  const request = { messages, inputTokenBudget: 5000 };
  const draft = await compactor.draft(request, compactor.plan(request));
  const edited = messages.slice();
  edited[2] = { ...messages[2], content: "THE PINNED SPEC, revised" };
  const committed = compactor.commit({ ...request, messages: edited }, draft);
  assert.equal(committed.messages[0], edited[2]);
});

// Every pin kind, every path: the messages an application summarizer is handed (its slices,
// from facts), those the built-in summarizer's prompts quote (records as the messages are read,
// or units when the summary model has a window) and those a draft's digest covers must be the
// same ones: the history before the cut (a split turn's prefix too) but the pinned and system messages.
const TEXT = (i) => `[m${i}] ${"word ".repeat(150)}`;
const shapes = {
  canonical: (i, role) => (role === "assistant" ? { role, content: [{ type: "text", text: TEXT(i) }] } : { role, content: TEXT(i) }),
  "openai-chat": (i, role) => ({ role, content: TEXT(i) }),
  "ai-sdk": (i, role) => ({ role, content: TEXT(i) }),
  "ai-sdk-ui": (i, role) => ({ id: `u${i}`, role, parts: [{ type: "text", text: TEXT(i) }] }),
};
const markers = {
  canonical: (m) => ({ ...m, pinned: true }),
  "ai-sdk": (m) => ({ ...m, providerOptions: { contextCompaction: { pinned: true } } }),
  "ai-sdk-ui": (m) => ({ ...m, metadata: { pinned: true } }),
};
// [format, how, the request's `pinned`, whether message 1 is marked, whether message 2 is a system message]
const kinds = [
  ...Object.keys(markers).map((format) => [format, "its marker", undefined, true, false]),
  ["canonical", "the request's indices", [1], false, false],
  ["ai-sdk-ui", "a predicate", (m) => m.id === "u1", false, false],
  ["openai-chat", "the request's indices, beside a system message", [1], false, true],
  ["ai-sdk", "its marker, beside a system message", undefined, true, true],
  ["ai-sdk-ui", "its marker, beside a system message", undefined, true, true],
];
const named = (text, count) => [...Array(count).keys()].filter((i) => text.includes(`[m${i}]`));

for (const [format, how, pinned, marked, system] of kinds) {
  test(`${format}, pinned by ${how}: every summarizer path summarizes the same messages`, async () => {
    const messages = [...Array(12).keys()].map((i) => {
      const role = i === 2 && system ? "system" : i % 2 === 0 ? "user" : "assistant";
      const message = shapes[format](i, role);
      return i === 1 && marked ? markers[format](message) : message;
    });
    const request = { format, messages, inputTokenBudget: 1200, ...(pinned ? { pinned } : {}) };
    let handed = null;
    const application = new Compactor({ keepRecentTokens: 400, summarizer: { summarize: async (req) => ((handed = JSON.stringify([req.messages, req.turnPrefixMessages])), "S") } });
    const plan = application.plan(request);
    assert.ok(plan.firstKeptIndex > 3 && plan.firstKeptPart === 0, `a cut after the pinned message (${plan.firstKeptIndex})`);
    const expected = [...Array(plan.firstKeptIndex).keys()].filter((i) => i !== 1 && !(system && i === 2));
    await application.apply(request, plan);
    assert.deepEqual(named(handed, messages.length), expected, "an application summarizer's slices");
    for (const window of [undefined, 100000]) {
      // A split turn's prefix summarized by a prompt of its own, not quoted.
      const builtIn = new Compactor({ keepRecentTokens: 400, summarizer: { model: "m", contextWindowTokens: window, quoteTurnPrefixTokens: 0, generate: async () => "S" } });
      const prompts = builtIn.summarizerInput(request, plan).map((p) => p.prompt).join("\n");
      assert.deepEqual(named(prompts, messages.length), expected, `the built-in summarizer's prompts (window ${window ?? "none"})`);
      builtIn.free();
    }
    // A draft's digest covers the same messages: editing a pinned or system one leaves it.
    const draft = await application.draft(request, plan);
    const edited = messages.map((m, i) => (expected.includes(i) || i >= plan.firstKeptIndex ? m : JSON.parse(JSON.stringify(m).replace(`[m${i}]`, `[m${i}] edited`))));
    assert.ok(application.covers({ ...request, messages: edited }, draft), "a pinned message's edit is not in the digest");
    const summarizedEdit = messages.with(expected[0], JSON.parse(JSON.stringify(messages[expected[0]]).replace("[m0]", "[m0] edited")));
    assert.ok(!application.covers({ ...request, messages: summarizedEdit }, draft), "a summarized message's edit is");
    application.free();
  });
}
