// Pinned messages in every format, through the packed package: the request's `pinned` (indices
// or a predicate) for any format, the markers on UIMessages (`metadata.pinned`) and
// ModelMessages (`providerOptions.contextCompaction.pinned`), in every path (objects,
// planBytes, conversation handles, ContextManager); plans list them in `pinnedIndices`; a pair
// split by the pin is refused, a UIMessage's own tool parts are not; pinned results are never
// cleared; bad options are errors naming them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CompactionError, Compactor, ContextManager } from "context-compaction";

const fixture = (name) => JSON.parse(readFileSync(new URL(`./formats/${name}.json`, import.meta.url), "utf8"));
const FORMATS = ["canonical", "openai-chat", "openai-responses", "anthropic", "ai-sdk", "ai-sdk-ui"];

/** A compactor that keeps as little as it can, recording what its summarizer is handed. */
function compactor(options = {}) {
  const seen = new Set();
  const summarize = async (req) => {
    for (const m of [...req.messages, ...req.turnPrefixMessages]) seen.add(m);
    return "S";
  };
  return { compactor: new Compactor({ keepRecentTokens: 1, cacheFacts: false, summarizer: { summarize }, ...options }), seen };
}

const invalid = (pattern) => (e) => e instanceof CompactionError && e.code === "invalid_request" && pattern.test(e.message);

for (const format of FORMATS) {
  test(`${format}: the request's pinned indices (or a predicate) keep the message after the summary, in every path`, async () => {
    const messages = fixture(format);
    const { compactor: c, seen } = compactor();
    const request = { format, messages, requireReduction: true, pinned: [0] };
    const plan = c.plan(request);
    assert.ok(plan.firstKeptIndex > 0, "a cut after the pinned message");
    assert.deepEqual(plan.pinnedIndices, [0]);
    assert.ok(!plan.messagesToSummarize.includes(messages[0]), "not summarized");
    // Without the option the same message is summarized.
    const unpinned = c.plan({ format, messages, requireReduction: true });
    assert.deepEqual(unpinned.pinnedIndices, []);
    assert.equal(unpinned.messagesToSummarize[0], messages[0]);
    // The same decision from a predicate, a body and a conversation handle.
    const byPredicate = c.plan({ ...request, pinned: (message, index) => message === messages[0] && index === 0 });
    assert.deepEqual([byPredicate.firstKeptIndex, byPredicate.pinnedIndices], [plan.firstKeptIndex, [0]]);
    const { messages: _, ...rest } = request;
    const bytes = c.planBytes(JSON.stringify(messages), rest);
    assert.deepEqual([bytes.firstKeptIndex, bytes.pinnedIndices, bytes.estimateAfterWithoutSummary], [plan.firstKeptIndex, [0], plan.estimateAfterWithoutSummary]);
    const handle = c.conversation({ format });
    handle.append(messages[0], { pinned: true });
    handle.append(messages.slice(1));
    const fromHandle = handle.plan({ requireReduction: true });
    assert.deepEqual([fromHandle.firstKeptIndex, fromHandle.pinnedIndices], [plan.firstKeptIndex, [0]]);
    handle.reset(messages, { pinned: [0] });
    assert.deepEqual(handle.plan({ requireReduction: true }).pinnedIndices, [0]);
    handle.free();
    // Applied: the host's own object, first after the summary, never handed to the summarizer.
    const result = await c.apply(request, plan);
    assert.equal(result.messages[0], messages[0]);
    assert.ok(!seen.has(messages[0]));
    c.free();
  });
}

test("ai-sdk-ui: metadata.pinned pins a UIMessage with its tool parts: never split by a step cut, its results never cleared", () => {
  const messages = fixture("ai-sdk-ui");
  const pinned = messages.map((m, i) => (i === 1 ? { ...m, metadata: { pinned: true } } : m));
  const { compactor: c } = compactor();
  const plan = c.plan({ format: "ai-sdk-ui", messages: pinned, requireReduction: true });
  assert.ok(!(plan.firstKeptIndex === 1 && plan.firstKeptPart > 0), "no cut inside the pinned message");
  if (plan.firstKeptIndex > 1) assert.deepEqual(plan.pinnedIndices, [1]);
  assert.ok(!plan.messagesToSummarize.includes(pinned[1]));
  // Unpinned, the same request cuts between the steps of that message or summarizes it.
  const unpinned = c.plan({ format: "ai-sdk-ui", messages, requireReduction: true });
  assert.ok(unpinned.firstKeptIndex !== plan.firstKeptIndex || unpinned.firstKeptPart !== plan.firstKeptPart || unpinned.pinnedIndices.length === 0);
  // Clearing: the pinned message's results are not clearable, the unpinned one's are.
  const clearing = new Compactor({ keepRecentTokens: 1, clearing: { protectRecentTokens: 0 }, summarizer: { summarize: async () => "S" } });
  const clearable = (list) => clearing.clearableResults({ format: "ai-sdk-ui", messages: list, inputTokenBudget: 100_000 }).map((r) => r.index);
  assert.ok(clearable(messages).includes(1), "clearable when not pinned");
  assert.ok(!clearable(pinned).includes(1), "never cleared when pinned");
  clearing.free();
  c.free();
});

test("ai-sdk: providerOptions.contextCompaction.pinned pins a ModelMessage; a call pinned without its results is refused", () => {
  const messages = fixture("ai-sdk");
  const mark = (m) => ({ ...m, providerOptions: { ...m.providerOptions, contextCompaction: { pinned: true } } });
  const { compactor: c } = compactor();
  const both = messages.map((m, i) => (i === 1 || i === 2 ? mark(m) : m));
  const plan = c.plan({ format: "ai-sdk", messages: both, requireReduction: true });
  assert.deepEqual(plan.pinnedIndices, [1, 2]);
  const half = messages.map((m, i) => (i === 1 ? mark(m) : m));
  assert.throws(() => c.plan({ format: "ai-sdk", messages: half, requireReduction: true }), invalid(/messages\[1\]: pinned.*messages\[2\]/));
  // The same rule for the request's indices, in a provider format.
  const anthropic = fixture("anthropic");
  assert.throws(() => c.plan({ format: "anthropic", messages: anthropic, requireReduction: true, pinned: [2] }), invalid(/messages\[2\]: pinned/));
  assert.deepEqual(c.plan({ format: "anthropic", messages: anthropic, requireReduction: true, pinned: [1, 2] }).pinnedIndices, [1, 2]);
  c.free();
});

test("a bad pinned option is an invalid_request naming it; a throwing predicate's error is the cause", () => {
  const messages = fixture("openai-chat");
  const { compactor: c } = compactor();
  const plan = (pinned) => c.plan({ format: "openai-chat", messages, requireReduction: true, pinned });
  assert.throws(() => plan([99]), invalid(/pinned: index 99 is out of range for 9 messages/));
  assert.throws(() => plan([1.5]), invalid(/pinned\[0\]/));
  assert.throws(() => plan("first"), invalid(/pinned: expected an array of message indices or \(not with a body\) a function/));
  const thrown = new Error("nope");
  assert.throws(
    () => plan(() => { throw thrown; }),
    (e) => invalid(/pinned: the predicate threw on messages\[0\]: .*nope/)(e) && e.cause === thrown,
  );
  assert.throws(() => c.planBytes(JSON.stringify(messages), { format: "openai-chat", requireReduction: true, pinned: () => true }), invalid(/not with a body/));
  assert.throws(() => c.planBytes(JSON.stringify(messages), { format: "openai-chat", requireReduction: true, pinned: [9] }), invalid(/index 9 is out of range/));
  c.free();
});

for (const by of ["predicate", "indices"]) {
  test(`a ContextManager keeps messages pinned by ${by} through ten compactions of the replayed session (openai-chat)`, async () => {
    const { history, openAIChat } = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);
    const session = openAIChat(history(1_400));
    const first = session.find((m) => m.role === "user");
    const middle = session.find((m, i) => i >= session.length / 2 && m.role === "user");
    const keep = new Set([first, middle]);
    const seen = new Set();
    const c = new Compactor({ keepRecentTokens: 4_000, summarizer: { summarize: async (req) => (req.messages.forEach((m) => seen.add(m)), "S") } });
    const manager = new ContextManager({ compactor: c, contextWindowTokens: 16_000, reserveTokens: 4_000 });
    let state = { format: "openai-chat", messages: [], summary: null, pinned: by === "predicate" ? (m) => keep.has(m) : [] };
    let compactions = 0;
    for (const message of session) {
      state = { ...state, messages: [...state.messages, message] };
      // Indices: the host names a message as it arrives; the manager renumbers them after a compaction.
      if (by === "indices" && keep.has(message)) state.pinned = [...state.pinned, state.messages.length - 1];
      const done = await manager.maintain(state, { maxOutputTokens: 1_000 });
      assert.equal(done.error, undefined);
      if (!done.compacted) continue;
      compactions++;
      state = done.state;
      assert.ok(done.record.estimateAfter < 12_000);
      const expected = [first, middle].filter((m) => session.indexOf(m) <= session.indexOf(message));
      assert.deepEqual(state.messages.filter((m) => keep.has(m)), expected, `after compaction ${compactions}`);
      assert.equal(state.messages[0], first, "first after the summary");
      if (by === "indices") assert.deepEqual(state.pinned.map((i) => state.messages[i]), expected, "renumbered");
    }
    assert.ok(compactions >= 10, `${compactions} compactions`);
    assert.ok(!seen.has(first) && !seen.has(middle), "never summarized");
    manager.free();
    c.free();
  });
}
