// Pinned messages (`pinned: true` on a canonical message) through the packed package: never handed
// to the summarizer, kept after the summary as the host's own objects in their order, through ten
// successive compactions of the real session; too_large when they alone exceed the budget; a
// tool pair split by the pin refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor, CompactionError, estimate } from "context-compaction";

const session = () =>
  readFileSync(`${process.env.CC_ROOT}/tests/fixtures/large-session.jsonl`, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "message")
    .map((entry) => entry.message);

/** A compactor whose summarizer records every message it is handed. */
function recording() {
  const seen = new Set();
  let calls = 0;
  const compactor = new Compactor({
    keepRecentTokens: 4000,
    summarizer: {
      summarize: async (req) => {
        for (const m of [...req.messages, ...req.turnPrefixMessages]) seen.add(m);
        return { text: `summary ${++calls}` };
      },
    },
  });
  return { compactor, seen };
}

for (const route of ["objects", "conversation"]) {
  test(`pinned messages survive ten compactions of the replayed session verbatim and in order (${route})`, async () => {
    const all = session();
    const first = all.findIndex((m) => m.role === "user");
    const middle = all.findIndex((m, i) => i >= all.length / 2 && m.role === "user");
    all[first] = { ...all[first], pinned: true };
    all[middle] = { ...all[middle], pinned: true };
    const texts = [JSON.stringify(all[first]), JSON.stringify(all[middle])];
    const { compactor, seen } = recording();
    let state = { summary: "", messages: [] };
    const handle = route === "conversation" ? compactor.conversation({ format: "canonical" }) : null;
    let compactions = 0;
    for (let i = 0; i < all.length; i++) {
      state.messages.push(all[i]);
      handle?.append(all[i]);
      const request = { format: "canonical", systemPrompt: "You help.", summary: state.summary, messages: state.messages, inputTokenBudget: 16000 };
      const plan = handle ? handle.plan(request) : compactor.plan(request);
      if (plan === null) continue;
      const result = await compactor.apply(request, plan);
      compactions++;
      state = { summary: result.summary, messages: [...result.messages] };
      handle?.reset(state.messages);
      const pinned = state.messages.filter((m) => m.pinned === true);
      const expected = i >= middle ? [all[first], all[middle]] : [all[first]];
      assert.deepEqual(pinned, expected, `after compaction ${compactions}`);
      assert.equal(pinned[0], all[first], "the host's own object");
      assert.equal(state.messages[0], all[first], "first after the summary");
      assert.deepEqual(pinned.map((m) => JSON.stringify(m)), texts.slice(0, expected.length), "verbatim");
      assert.ok(result.record.estimateAfter < result.record.estimateBefore);
    }
    assert.ok(compactions >= 10, `${compactions} compactions`);
    assert.ok(!seen.has(all[first]) && !seen.has(all[middle]), "never handed to the summarizer");
  });
}

test("pinned messages that alone exceed the budget fail with too_large, naming the message", () => {
  const { compactor } = recording();
  const big = { role: "user", content: "word ".repeat(5000), pinned: true };
  const messages = [big, { role: "assistant", content: [{ type: "text", text: "ok" }] }, { role: "user", content: "next" }];
  assert.throws(
    () => compactor.plan({ format: "canonical", messages, inputTokenBudget: 1000 }),
    (e) => e instanceof CompactionError && e.code === "too_large" && /messages\[0\]/.test(e.message) && /pinned/.test(e.message),
  );
});

test("a tool pair split by the pin is refused with invalid_request naming both; pinned together it is kept", () => {
  const call = { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "read", arguments: {} }], pinned: true };
  const result = { role: "toolResult", toolCallId: "c1", toolName: "read", content: "x" };
  const { compactor } = recording();
  const plan = (messages) => compactor.plan({ format: "canonical", messages, requireReduction: true });
  const refused = (messages, at, other) =>
    assert.throws(
      () => plan(messages),
      (e) => e instanceof CompactionError && e.code === "invalid_request" && e.message.includes(`messages[${at}]: pinned`) && e.message.includes(`messages[${other}]`),
    );
  // The newest message alone is past what the compactor keeps: the cut falls before it.
  const go = { role: "user", content: "go" };
  const next = { role: "user", content: "word ".repeat(8000) };
  refused([go, call, result, next], 1, 2);
  refused([go, { ...call, pinned: false }, { ...result, pinned: true }, next], 2, 1);
  const kept = plan([go, call, { ...result, pinned: true }, next]);
  assert.deepEqual(kept.pinnedIndices, [1, 2]);
  // Reading alone (an estimate) does not plan: nothing to refuse.
  assert.equal(estimate({ format: "canonical", messages: [go, call, result] }).messages.length, 3);
});

test("a plan from the tail of a long history reads a pinned message before the tail, as a system one", async () => {
  // A long history whose answers carry usage (1.22 × our estimate): the plan reads a tail, and
  // before it only the messages the sizer lists (system and pinned ones).
  const { history } = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);
  const messages = history(3_000);
  const at = messages.findIndex((m, i) => i > 10 && m.role === "user");
  messages[at] = { ...messages[at], pinned: true };
  const tokens = estimate({ messages }).messages;
  let sum = 0;
  messages.forEach((m, i) => {
    if (m.role === "assistant") m.usage = { input: Math.round(sum * 1.22), output: 0, cacheRead: 0, cacheWrite: 0 };
    sum += tokens[i];
  });
  const seen = new Set();
  const compactor = new Compactor({ keepRecentTokens: 20_000, cacheFacts: false, summarizer: { summarize: async (req) => (req.messages.forEach((m) => seen.add(m)), "S") } });
  const request = { messages, inputTokenBudget: 100_000 };
  const plan = compactor.plan(request);
  assert.ok(plan.firstKeptIndex > at + 100);
  assert.ok(!plan.messagesToSummarize.includes(messages[at]), "not summarized");
  assert.equal(plan.messagesToSummarize[at], messages[at + 1]);
  const result = await compactor.apply(request, plan);
  assert.equal(result.messages[0], messages[at], "kept first after the summary");
  assert.ok(!seen.has(messages[at]));
});
