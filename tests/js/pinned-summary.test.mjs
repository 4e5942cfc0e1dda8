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
