// What the provider counted: usage on assistant messages, `reportedUsage`, and what
// `ContextManager.run` learns from the response `send` returns; anchoring and calibration, and
// the usage that must be ignored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, ContextManager, estimate } from "context-compaction";
import { conversation, generator, readTurns, say, user } from "./helpers.mjs";

const usage = (input, output = 0) => ({ input, output, cacheRead: 0, cacheWrite: 0 });
const withUsage = (message, u, stopReason = message.stopReason) => ({ ...message, usage: u, stopReason });
const summarizer = { summarize: async () => "S" };

/** The conversation, its last answer carrying `ratio` times our estimate of what it answered. */
function reported(ratio, stopReason) {
  const messages = conversation(6);
  const last = messages.length - 1;
  const before = estimate({ messages: messages.slice(0, last) }).total;
  messages[last] = withUsage(messages[last], usage(Math.round(before * ratio), 40), stopReason);
  return { messages, input: Math.round(before * ratio) };
}

test("without usage the estimate and the plan are the local ones", () => {
  const messages = conversation(6);
  const plain = estimate({ messages });
  assert.equal(plain.anchor, undefined);
  assert.equal(plain.ratio, undefined);
  const compactor = new Compactor({ keepRecentTokens: 100, summarizer });
  assert.equal(compactor.plan({ messages, inputTokenBudget: 0 }).estimateBefore, plain.total);
});

test("usage on an answer anchors the estimate and calibrates every part", () => {
  const { messages, input } = reported(1.25);
  const plain = estimate({ messages: messages.map(({ usage: _, ...m }) => m) });
  const anchored = estimate({ messages });
  // The answer's request as the provider counted it, and the answer itself (its output).
  assert.equal(anchored.total, input + 40);
  assert.deepEqual(anchored.anchor, { messages: messages.length, tokens: input + 40 });
  assert.ok(Math.abs(anchored.ratio - (input + 40) / plain.total) < 1e-3);
  // Every part is scaled by the same ratio.
  for (const [i, tokens] of anchored.messages.entries()) {
    assert.ok(Math.abs(tokens - plain.messages[i] * anchored.ratio) <= 0.5, `message ${i}`);
  }
  // What follows the answer is estimated on top of it, calibrated.
  const next = [...messages, user("and now?")];
  const grown = estimate({ messages: next });
  const added = estimate({ messages: [user("and now?")] }).total;
  assert.equal(grown.total, input + 40 + Math.round(added * anchored.ratio));
  // plan and planBytes use the same figures.
  const compactor = new Compactor({ keepRecentTokens: 100, summarizer });
  const plan = compactor.plan({ messages: next, inputTokenBudget: 0 });
  assert.equal(plan.estimateBefore, grown.total);
  const bytes = compactor.planBytes(JSON.stringify(next), { inputTokenBudget: 0 });
  assert.equal(bytes.estimateBefore, grown.total);
  assert.equal(bytes.firstKeptIndex, plan.firstKeptIndex);
});

test("usage on aborted or failed answers, and zero usage, is ignored", () => {
  const plain = estimate({ messages: conversation(6) }).total;
  for (const stop of ["aborted", "error"]) {
    const { messages } = reported(1.25, stop);
    assert.equal(estimate({ messages }).total, plain, stop);
    assert.equal(estimate({ messages }).anchor, undefined, stop);
  }
  const zero = conversation(6);
  zero[zero.length - 1] = withUsage(zero[zero.length - 1], usage(0));
  assert.equal(estimate({ messages: zero }).total, plain);
});

test("usage kept through a compaction is stale and ignored", async () => {
  // A long history whose answers carry what their requests cost.
  const messages = conversation(12);
  for (let i = 0; i < messages.length; i++) {
    if (messages[i].role !== "assistant") continue;
    const before = estimate({ messages: messages.slice(0, i) }).total;
    messages[i] = withUsage(messages[i], usage(Math.round(before * 1.2)));
  }
  const compactor = new Compactor({ keepRecentTokens: 150, summarizer });
  const done = await compactor.compact({ messages, requireReduction: true });
  const kept = done.messages;
  assert.ok(kept.some((m) => m.usage), "a kept answer carries usage from before the compaction");
  const after = estimate({ summary: done.summary, messages: kept });
  const plain = estimate({ summary: done.summary, messages: kept.map(({ usage: _, ...m }) => m) });
  assert.equal(after.anchor, undefined);
  assert.equal(after.total, plain.total);
  // Maintenance is not triggered again by the old size.
  const budget = plain.total + 10;
  assert.equal(compactor.plan({ summary: done.summary, messages: kept, inputTokenBudget: budget }), null);
});

test("reportedUsage tells what a request outside the messages cost", () => {
  const chat = conversation(6).filter((m) => m.role === "user").map((m) => ({ role: "user", content: m.content }));
  chat.splice(1, 0, { role: "assistant", content: "sure" });
  const base = estimate({ format: "openai-chat", messages: chat });
  const first = estimate({ format: "openai-chat", messages: chat.slice(0, 4) }).total;
  const billed = Math.round(first * 1.3);
  // The provider's own usage object, or the count.
  for (const reportedUsage of [{ messages: 4, usage: { prompt_tokens: billed, completion_tokens: 9 } }, { messages: 4, inputTokens: billed }]) {
    const anchored = estimate({ format: "openai-chat", messages: chat, reportedUsage });
    assert.equal(anchored.anchor.tokens, billed);
    assert.ok(anchored.total > base.total, "calibrated up");
  }
  // For another summary (the history was compacted since): ignored.
  const stale = estimate({ format: "openai-chat", messages: chat, reportedUsage: { messages: 4, inputTokens: billed, summary: "older" } });
  assert.equal(stale.total, base.total);
  // Bad reports are errors naming the place.
  assert.throws(
    () => estimate({ format: "openai-chat", messages: chat, reportedUsage: { messages: 99, inputTokens: 5 } }),
    (e) => e.code === "invalid_request" && /reportedUsage\.messages/.test(e.message),
  );
  assert.throws(
    () => estimate({ messages: chat.slice(0, 1), reportedUsage: [{ messages: 1 }] }),
    (e) => e.code === "invalid_request" && /reportedUsage\[0\]\.inputTokens/.test(e.message),
  );
});

test("run learns what a request cost from the response send returns", async () => {
  const state = { systemPrompt: "You help.", summary: "", messages: conversation(8), tools: [] };
  const plain = estimate(state).total;
  const answer = say("done");
  const next = (s) => ({ ...s, messages: [...s.messages, answer, user("next question")] });
  const threshold = Math.round(plain * 1.15);
  const setup = () => {
    const compactor = new Compactor({ keepRecentTokens: 100, summarizer: generator(async () => "S") });
    return new ContextManager({ compactor, contextWindowTokens: threshold, reserveTokens: 0 });
  };
  // Told nothing, the next state is below the threshold.
  const blind = setup();
  await blind.run(state, async () => ({ message: answer }));
  assert.equal((await blind.maintain(next(state))).reason, "belowThreshold");
  // Told that the request cost 1.4 times our estimate (an AI SDK result), it compacts.
  const told = setup();
  const ran = await told.run(state, async () => ({ text: "done", usage: { inputTokens: Math.round(plain * 1.4), outputTokens: 3 } }));
  assert.equal(ran.response.text, "done");
  const maintained = await told.maintain(next(state));
  assert.equal(maintained.compacted, true);
  assert.ok(maintained.record.estimateBefore >= Math.round(plain * 1.4));
  // After the rewrite the learned count is stale (another summary): the compacted state is
  // estimated locally again, calibrated.
  assert.equal((await told.maintain(maintained.state)).reason, "belowThreshold");
});

test("a response whose usage cannot be read teaches nothing and breaks nothing", async () => {
  const state = { systemPrompt: "", summary: "", messages: conversation(3), tools: [] };
  const compactor = new Compactor({ keepRecentTokens: 100, summarizer });
  const manager = new ContextManager({ compactor, contextWindowTokens: 100_000, reserveTokens: 0 });
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const throwing = { get usage() { throw new Error("no usage here"); } };
  const odd = { usage: { input: "many" }, steps: "not an array" };
  // (A revoked Proxy cannot be a promise's value: resolving reads its `then`.)
  for (const response of [throwing, odd, null, 42, "text", { steps: [proxy] }, { steps: proxy, usage: proxy }]) {
    const ran = await manager.run(state, async () => response);
    assert.equal(ran.response, response);
    assert.equal((await manager.maintain(state)).reason, "belowThreshold");
  }
});

test("a UIMessage's usage is read from its metadata, as the AI SDK documents it", () => {
  const text = (id, role, words) => ({ id, role, parts: [{ type: "text", text: words }] });
  const ui = Array.from({ length: 40 }, (_, i) => text(`m${i}`, i % 2 ? "assistant" : "user", `message ${i} `.repeat(20)));
  const plain = estimate({ format: "ai-sdk-ui", messages: ui });
  assert.equal(plain.anchor, undefined);
  const billed = Math.round(plain.total * 1.2);
  // `totalTokens` in the metadata (the AI SDK's example), or a usage object under `usage`.
  for (const metadata of [{ totalTokens: billed }, { usage: { inputTokens: billed, outputTokens: 0 } }]) {
    const messages = [...ui.slice(0, 39), { ...ui[39], metadata }];
    const anchored = estimate({ format: "ai-sdk-ui", messages });
    assert.deepEqual(anchored.anchor, { messages: 40, tokens: billed });
    assert.equal(anchored.total, billed);
  }
});

test("a failed attempt counts nothing once calibrated: the provider never counted it", () => {
  // An aborted answer between two turns, then an answer whose usage counts what was sent.
  const messages = conversation(6);
  const failed = { ...say("half an answer that was cut off ".repeat(30)), stopReason: "aborted" };
  messages.splice(4, 0, failed);
  const last = messages.length - 1;
  const plain = estimate({ messages });
  const sent = estimate({ messages: messages.slice(0, last).filter((m) => m !== failed) }).total;
  messages[last] = withUsage(messages[last], usage(Math.round(sent * 1.3)));
  const calibrated = estimate({ messages });
  // Without usage it counts, as the reference counts it; calibrated, it does not.
  assert.ok(plain.messages[4] > 100);
  assert.equal(calibrated.messages[4], 0);
  assert.ok(Math.abs(calibrated.ratio - Math.round(sent * 1.3) / (sent + plain.messages[last])) < 2e-3);
});

test("a conversation() handle plans as compactor.plan does with the usage its messages carry", () => {
  const compactor = new Compactor({ keepRecentTokens: 150, summarizer });
  const handle = compactor.conversation();
  const messages = [];
  const options = { systemPrompt: "You are terse.", inputTokenBudget: 0 };
  const same = () => {
    const plan = compactor.plan({ ...options, messages });
    const planned = handle.plan(options);
    assert.deepEqual(planned, plan, `after ${messages.length} messages`);
    return plan;
  };
  // Appended one by one, each answer carrying what its request cost (1.2× our estimate, then
  // 1.35×: the ratio follows the latest report), with a failed attempt among them.
  for (const [i, message] of conversation(10).entries()) {
    let next = message;
    if (message.role === "assistant" && i % 4 === 3) {
      const before = estimate({ ...options, messages }).total;
      next = withUsage(message, usage(Math.round(before * (i < 20 ? 1.2 : 1.35)), 30));
    }
    if (i === 13) {
      const attempt = { ...say("an answer that failed ".repeat(20)), stopReason: "error" };
      messages.push(attempt);
      handle.append(attempt);
    }
    messages.push(next);
    handle.append(next);
    same();
  }
  const plain = compactor.plan({ ...options, messages: messages.map(({ usage: _, ...m }) => m) });
  const anchored = same();
  assert.ok(anchored.estimateBefore > plain.estimateBefore * 1.25, "the handle's plan is calibrated");
  assert.equal(anchored.estimateBefore, estimate({ ...options, messages }).total);
  // Appended all at once, and after a reset to the kept messages, the same again.
  const batch = compactor.conversation({ messages });
  assert.deepEqual(batch.plan(options), anchored);
  const kept = messages.slice(anchored.firstKeptIndex);
  handle.reset(kept);
  messages.splice(0, messages.length, ...kept);
  same();
});

test("after maintenance clears old tool results, the usage reported before no longer holds the estimate up", async () => {
  const messages = readTurns();
  // The last answer carries what its request cost: 1.2 times our estimate.
  const before = estimate({ messages }).total;
  messages.push(withUsage(say("all good"), usage(Math.round(before * 1.2), 5)));
  const calls = [];
  const summarize = async () => (calls.push("summarize"), "SUMMARY");
  const compactor = new Compactor({ keepRecentTokens: 0, clearing: { protectRecentTokens: 0 }, summarizer: { summarize } });
  const events = [];
  const onEvent = (e) => events.push(e);
  const manager = new ContextManager({ compactor, contextWindowTokens: 3000 + 16_384, onEvent });
  const cleared = await manager.maintain({ summary: "", messages });
  assert.equal(cleared.reason, "cleared");
  assert.ok(cleared.record.estimateBefore > 3000 * 0.9, `${cleared.record.estimateBefore}`);
  // The report on "all good" still says the larger request; the estimate of the cleared state
  // is what clearing left, so maintenance does not run again (it would summarize).
  const again = await manager.maintain(cleared.state);
  assert.equal(again.compacted, false);
  assert.deepEqual(calls, []);
  // What the cleared state is estimated at (seen with a budget it is over): the report less
  // what clearing freed, calibrated.
  events.length = 0;
  await manager.maintain(cleared.state, { skillTokens: 2990 });
  const estimated = events[0].estimate;
  const local = estimate({ messages: cleared.state.messages.map(({ usage: _, ...m }) => m) }).total;
  assert.ok(estimated < cleared.record.estimateBefore / 2, `${estimated}`);
  assert.ok(Math.abs(estimated / local - 1.2) < 0.1, `${estimated} for ${local} by our estimate`);
});

/**
 * Twelve messages whose answers carry what their requests cost (1.2 times our local estimate),
 * and a manager whose compaction keeps most of them (a small one: the usage on the kept answers
 * stays within twice our estimate of what they then end, close enough to anchor an estimate),
 * its window 0.95 of the history's estimate; `calls` counts the summaries.
 */
function smallCompaction() {
  const messages = conversation(12);
  for (let i = 0; i < messages.length; i++) {
    if (messages[i].role !== "assistant") continue;
    const before = estimate({ messages: messages.slice(0, i).map(({ usage: _, ...m }) => m) }).total;
    messages[i] = withUsage(messages[i], usage(Math.round(before * 1.2)));
  }
  const total = estimate({ messages }).total;
  const calls = [];
  const summarize = async () => (calls.push("summarize"), "SUMMARY");
  const compactor = new Compactor({ keepRecentTokens: Math.round(total * 0.7), summarizer: { summarize } });
  const window = Math.round(total * 0.95);
  const manager = new ContextManager({ compactor, contextWindowTokens: window, reserveTokens: 0 });
  return { messages, calls, window, manager };
}

test("after maintenance summarizes a little, the usage its kept answers carry no longer holds the estimate up", async () => {
  const { messages, calls, window, manager } = smallCompaction();
  const done = await manager.maintain({ summary: "", messages });
  assert.equal(done.reason, "compacted");
  assert.ok(done.record.estimateAfter < window, `${done.record.estimateAfter}`);
  const { total: stale } = estimate({ summary: done.state.summary, messages: done.state.messages });
  assert.ok(stale > window, `the kept answers' usage alone still says the old size (${stale})`);
  // The manager estimates the new state at what the compaction left: no second summary.
  const again = await manager.maintain(done.state);
  assert.deepEqual([again.compacted, again.reason, calls.length], [false, "belowThreshold", 1]);
  // Exactly that: at a threshold of estimateAfter it is not over; one token lower, it is.
  const at = (threshold) => manager.maintain(done.state, { skillTokens: window - threshold });
  assert.equal((await at(done.record.estimateAfter)).reason, "belowThreshold");
  assert.notEqual((await at(done.record.estimateAfter - 1)).reason, "belowThreshold");
  assert.equal(calls.length, 1);
});

test("after run recovers from an overflow with a small summary, the usage its kept answers carry no longer holds the estimate up", async () => {
  const { messages, calls, window, manager } = smallCompaction();
  let sends = 0;
  // The provider refuses the first request; the answer to the second carries no usage.
  const send = async () => {
    if (++sends === 1) throw new Error("prompt is too long: 250000 tokens > 200000 maximum");
    return { message: say("done") };
  };
  const ran = await manager.run({ summary: "", messages }, send);
  assert.deepEqual([sends, ran.compactions.length, calls.length], [2, 1, 1]);
  const [record] = ran.compactions;
  assert.ok(record.estimateAfter < window, `${record.estimateAfter}`);
  const { total: stale } = estimate({ summary: ran.state.summary, messages: ran.state.messages });
  assert.ok(stale > window, `the kept answers' usage alone still says the old size (${stale})`);
  // The manager estimates the recovered state at what the recovery left: no second summary.
  const again = await manager.maintain(ran.state);
  assert.deepEqual([again.compacted, again.reason, calls.length], [false, "belowThreshold", 1]);
});
