// ContextManager: maintenance (budget, events, failures) and overflow recovery around a host
// model loop that talks to a local stub server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor, ContextManager, estimate, isContextOverflowError, openAICompatibleGenerator } from "context-compaction";
import { conversation, generator, say, user } from "./helpers.mjs";
import { openAIOverflow, openAIText, startStub } from "./stub.mjs";

const stateOf = (messages, extra = {}) => ({ systemPrompt: "You help.", summary: "", messages, tools: [], ...extra });
const total = (state) => estimate(state).total;

function setup({ keep = 100, summarize = async () => "SUMMARY", window, reserve = 0, cacheFacts, estimator } = {}) {
  const events = [];
  const compactor = new Compactor({ keepRecentTokens: keep, summarizer: generator(summarize), cacheFacts });
  const manager = new ContextManager({ compactor, contextWindowTokens: window, reserveTokens: reserve, estimator, onEvent: (e) => events.push(e) });
  return { manager, events, compactor };
}

test("the constructor checks its options", () => {
  assert.throws(() => new ContextManager({}), (e) => e instanceof CompactionError && e.code === "invalid_config");
  assert.throws(() => new ContextManager(null), (e) => e.code === "invalid_config");
  const compactor = new Compactor({ summarizer: generator(async () => "S") });
  assert.throws(() => new ContextManager({ compactor, reserveTokens: -1 }), (e) => e.code === "invalid_config");
  assert.throws(() => new ContextManager({ compactor, contextWindowTokens: NaN }), (e) => e.code === "invalid_config");
  assert.throws(() => new ContextManager({ compactor, contextWindowTokens: 1.5 }), (e) => e.code === "invalid_config" && /contextWindowTokens/.test(e.message));
  assert.throws(() => new ContextManager({ compactor, contextWindowTokens: 100, reserveTokens: 2.5 }), (e) => e.code === "invalid_config" && /reserveTokens/.test(e.message));
  assert.throws(() => new ContextManager({ compactor, onEvent: "x" }), (e) => e.code === "invalid_config");
});

test("maintenance compacts only strictly above the budget, with one start and one end event", async () => {
  const state = stateOf(conversation(6));
  const estimateNow = total(state);
  const equal = setup({ window: estimateNow });
  const same = await equal.manager.maintain(state);
  assert.equal(same.compacted, false);
  assert.equal(same.reason, "belowThreshold");
  assert.equal(same.state, state);
  assert.deepEqual(equal.events, []);

  const above = setup({ window: estimateNow - 1 });
  const done = await above.manager.maintain(state);
  assert.equal(done.compacted, true);
  assert.equal(done.reason, "compacted");
  assert.ok(done.state.summary.startsWith("SUMMARY"));
  assert.equal(done.state.systemPrompt, state.systemPrompt);
  done.state.messages.forEach((m, i) => assert.equal(m, state.messages[done.record.firstKeptIndex + i]));
  assert.deepEqual(above.events.map((e) => [e.type, e.reason]), [["compactionStart", "threshold"], ["compactionEnd", "threshold"]]);
  assert.equal(above.events[0].estimate, estimateNow);
  assert.equal(above.events[0].plan.messagesToSummarize[0], state.messages[0]);
  assert.deepEqual(above.events[1].record, done.record);
});

test("the budget reserves the larger of reserve and max output, and withholds skill tokens", async () => {
  const state = stateOf(conversation(6));
  const estimateNow = total(state);
  const run = (options, reserve) => setup({ window: estimateNow + 1000, reserve }).manager.maintain(state, options);
  assert.equal((await run({}, 1000)).compacted, false);
  assert.equal((await run({}, 1001)).compacted, true);
  assert.equal((await run({ maxOutputTokens: 1001 }, 10)).compacted, true);
  assert.equal((await run({ maxOutputTokens: 1000 }, 10)).compacted, false);
  assert.equal((await run({ skillTokens: 1001 }, 0)).compacted, true);
});

test("no window disables maintenance; failures leave the state unchanged and are reported", async () => {
  const state = stateOf(conversation(6));
  assert.equal((await setup({}).manager.maintain(state)).reason, "disabled");
  for (const window of [0, -5]) assert.equal((await setup({ window }).manager.maintain(state)).reason, "disabled", String(window));
  const thrown = new Error("model down");
  const failing = setup({ window: 300, summarize: async () => { throw thrown; } });
  const out = await failing.manager.maintain(state);
  assert.equal(out.compacted, false);
  assert.equal(out.reason, "rewriteFailed");
  assert.equal(out.state, state);
  assert.equal(out.error.code, "summarization");
  assert.equal(out.error.cause, thrown);
  assert.deepEqual(failing.events.map((e) => e.type), ["compactionStart", "compactionEnd"]);
  assert.equal(failing.events[1].record, null);
  assert.equal(failing.events[1].error.code, "summarization");
  const broken = setup({ window: 100, estimator: { countTokens() { throw new Error("tok"); } } });
  const skipped = await broken.manager.maintain(state);
  assert.equal(skipped.reason, "estimateFailed");
  assert.deepEqual(broken.events, []);
});

test("cancellation after the rewrite started rejects with aborted", async () => {
  const controller = new AbortController();
  const { manager, events } = setup({
    window: 300,
    summarize: (req, { signal }) => new Promise((_, reject) => { signal.addEventListener("abort", () => reject(signal.reason)); controller.abort(); }),
  });
  await assert.rejects(manager.maintain(stateOf(conversation(6)), { signal: controller.signal }), (e) => e.code === "aborted");
  assert.deepEqual(events.map((e) => e.type), ["compactionStart", "compactionEnd"]);
});

test("an irreducible part over the budget is reported instead of compacting every call", async () => {
  let calls = 0;
  const { manager, events } = setup({ window: 2000, summarize: async () => (calls++, "S") });
  const state = stateOf(conversation(6), { systemPrompt: "rule ".repeat(3000) });
  for (let i = 0; i < 3; i++) assert.equal((await manager.maintain(state)).reason, "irreducible");
  assert.equal(calls, 0);
  assert.deepEqual(events, []);
});

test("throwing and rejecting listeners never break maintenance", async () => {
  const compactor = new Compactor({ keepRecentTokens: 100, summarizer: generator(async () => "S") });
  let unhandled = 0;
  const onUnhandled = () => unhandled++;
  process.on("unhandledRejection", onUnhandled);
  try {
    for (const onEvent of [() => { throw new Error("listener"); }, async () => { throw new Error("async listener"); }]) {
      const manager = new ContextManager({ compactor, contextWindowTokens: 300, reserveTokens: 0, onEvent });
      assert.equal((await manager.maintain(stateOf(conversation(6)))).compacted, true);
    }
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(unhandled, 0);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

test("a chat loop against the stub: maintained, an overflow recovered, and the run's records", async () => {
  const stub = await startStub((req) =>
    req.body.messages[0].content.startsWith("You summarize") ? openAIText("## Goal\nHelp the user.")
      : req.body.messages.length > 12 ? openAIOverflow : openAIText("the answer"),
  );
  try {
    const generate = openAICompatibleGenerator({ baseURL: stub.url });
    const compactor = new Compactor({ keepRecentTokens: 300, summarizer: { model: "summary-model", generate } });
    const events = [];
    const manager = new ContextManager({ compactor, contextWindowTokens: 1_000_000, onEvent: (e) => events.push(`${e.type}:${e.reason}`) });
    const send = async (state, { signal }) => {
      const messages = [{ role: "system", content: state.systemPrompt }];
      if (state.summary) messages.push({ role: "user", content: state.summary });
      for (const m of state.messages) messages.push({ role: m.role === "assistant" ? "assistant" : "user", content: JSON.stringify(m.content) });
      const response = await fetch(`${stub.url}/chat/completions`, { method: "POST", signal, body: JSON.stringify({ model: "chat", messages }) });
      const body = await response.json();
      if (!response.ok) throw Object.assign(new Error(body.error.message), { status: response.status, code: body.error.code });
      return body.choices[0].message.content;
    };
    // Large window: maintenance does not fire, the provider rejects, recovery compacts.
    let state = stateOf(conversation(5));
    const maintained = await manager.maintain(state);
    assert.equal(maintained.reason, "belowThreshold");
    const ran = await manager.run(maintained.state, send);
    assert.equal(ran.response, "the answer");
    assert.equal(ran.compactions.length, 1);
    assert.equal(ran.failedAttempts.length, 1);
    assert.equal(isContextOverflowError(ran.failedAttempts[0]), true);
    assert.ok(ran.state.summary.startsWith("## Goal"));
    assert.ok(ran.state.messages.length < state.messages.length);
    assert.deepEqual(events, ["compactionStart:overflow", "compactionEnd:overflow"]);
  } finally {
    await stub.close();
  }
});

test("a non-overflow error ends the run at once; recovery that cannot reduce ends it with the state", async () => {
  const { manager } = setup({ keep: 1_000_000 });
  const rateLimited = Object.assign(new Error("slow down"), { status: 429 });
  await assert.rejects(manager.run(stateOf(conversation(2)), async () => { throw rateLimited; }), (e) => e === rateLimited && e.compactions.length === 0);
  const overflow = Object.assign(new Error("prompt is too long"), { status: 400 });
  await assert.rejects(manager.run(stateOf(conversation(2)), async () => { throw overflow; }), (e) => e.code === "no_reduction" && e.failedAttempts[0] === overflow);
});

test("two recoveries at most: the third overflow surfaces with the compacted state", async () => {
  // The planner never finds a second cut in a history it has just compacted (the kept suffix is
  // the shortest that reaches keepRecentTokens), so this estimator doubles its counts at every
  // send to give recovery room; facts are not cached so the counts are re-read.
  let scale = 1;
  const estimator = { countTokens: (text) => text.length * scale };
  const { manager } = setup({ keep: 400, estimator, cacheFacts: false });
  const overflow = () => Object.assign(new Error("prompt is too long: 300000 tokens > 200000 maximum"), { status: 400 });
  let sends = 0;
  const send = async () => {
    sends++;
    scale *= 2;
    throw overflow();
  };
  const state = stateOf(Array.from({ length: 16 }, (_, i) => (i % 2 ? say("a".repeat(100)) : user("u".repeat(100)))));
  const error = await manager.run(state, send).then(() => null, (e) => e);
  assert.equal(sends, 3);
  assert.equal(error.status, 400);
  assert.match(error.message, /prompt is too long/);
  assert.equal(error.compactions.length, 2);
  assert.equal(error.failedAttempts.length, 2);
  assert.ok(error.state.messages.length < state.messages.length);
  assert.ok(error.state.summary.startsWith("SUMMARY"));
  // Carried, not enumerable: logging or spreading the error does not copy the state.
  for (const key of ["state", "compactions", "failedAttempts"]) {
    const field = Object.getOwnPropertyDescriptor(error, key);
    assert.deepEqual([field.enumerable, field.writable, field.configurable], [false, true, true], key);
  }
  assert.ok(!Object.keys(error).includes("state"));
});

test("a rewrite committed before cancellation stays in the state the error carries", async () => {
  const controller = new AbortController();
  const { manager } = setup({ keep: 100 });
  let sends = 0;
  const send = async (state, { signal }) => {
    sends++;
    if (sends === 1) throw Object.assign(new Error("prompt is too long"), { status: 400 });
    controller.abort();
    throw signal.reason;
  };
  const state = stateOf(conversation(6));
  const error = await manager.run(state, send, { signal: controller.signal }).then(() => null, (e) => e);
  assert.equal(error, controller.signal.reason);
  assert.equal(error.compactions.length, 1);
  assert.ok(error.state.summary.startsWith("SUMMARY"));
  assert.ok(error.state.messages.length < state.messages.length);
});

test("maintenance reports a clearing that fails instead of summarizing", async () => {
  const { readTurns } = await import("./helpers.mjs");
  const calls = [];
  const summarizer = { summarize: async () => (calls.push("summarize"), "S") };
  const compactor = new Compactor({ keepRecentTokens: 0, clearing: { protectRecentTokens: 0 }, summarizer });
  // Counting the placeholder fails: clearing cannot be planned.
  const heuristic = (text) => Math.ceil(text.length / 4);
  const estimator = { countTokens: (text) => (text.startsWith("[Tool result cleared") ? (() => { throw new Error("no placeholders"); })() : heuristic(text)) };
  const events = [];
  const manager = new ContextManager({ compactor, contextWindowTokens: 2000 + 16_384, estimator, onEvent: (e) => events.push(e) });
  const state = { summary: "", messages: [...readTurns(), say("all good")] };
  const done = await manager.maintain(state);
  assert.equal(done.reason, "planFailed");
  assert.equal(done.compacted, false);
  assert.equal(done.error.code, "invalid_request");
  assert.equal(done.state, state);
  assert.deepEqual([calls, events], [[], []]);
  // With a working estimator the same maintenance clears.
  const working = new ContextManager({ compactor, contextWindowTokens: 2000 + 16_384, estimator: { countTokens: heuristic } });
  assert.equal((await working.maintain(state)).reason, "cleared");
});

test("a pasted document larger than the window: no summary call, a too_large error naming it, from maintain and from run", async () => {
  let calls = 0;
  const { manager, events } = setup({ window: 4000, summarize: async () => (calls++, "S") });
  const state = stateOf([user("hello"), say("hi"), user(`here is the spec: ${"lorem ipsum dolor sit amet ".repeat(2000)}`)]);
  const maintained = await manager.maintain(state);
  assert.equal(maintained.reason, "irreducible");
  assert.equal(maintained.compacted, false);
  assert.equal(maintained.state.messages, state.messages);
  assert.ok(maintained.error instanceof CompactionError && maintained.error.code === "too_large");
  assert.match(maintained.error.message, /messages\[2\] is \d+ tokens.*input budget of 4000 tokens/);
  let sends = 0;
  const overflow = Object.assign(new Error("prompt is too long"), { status: 400 });
  await assert.rejects(
    manager.run(state, async () => (sends++, Promise.reject(overflow))),
    (e) => e.code === "too_large" && /messages\[2\]/.test(e.message) && e.failedAttempts.length === 1,
  );
  assert.equal(sends, 1);
  assert.equal(calls, 0, "no model call was spent");
  assert.deepEqual(events, []);
});
