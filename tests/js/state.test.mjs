// Concurrency on one Compactor, and the per-message facts cache.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor, estimate } from "context-compaction";
import { call, conversation, generator, result, say, user } from "./helpers.mjs";

test("many applies in flight at once, and plan while they wait", async () => {
  const releases = [];
  const compactor = new Compactor({
    keepRecentTokens: 0,
    summarizer: generator((req) => new Promise((resolve) => releases.push(() => resolve(`S${releases.length}`)))),
  });
  const histories = [conversation(2), conversation(3), conversation(4)];
  const pending = histories.map((messages) => compactor.compact({ messages, inputTokenBudget: 0 }));
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(releases.length, 3);
  const plan = compactor.plan({ messages: conversation(5), inputTokenBudget: 0 });
  assert.ok(plan, "plan works while applies wait");
  releases.reverse().forEach((release) => release());
  const results = await Promise.all(pending);
  results.forEach((out, i) => assert.equal(out.record.firstKeptIndex, histories[i].length));
});

test("a compactor freed while an apply is in flight still finishes it", async () => {
  let release;
  const compactor = new Compactor({ keepRecentTokens: 0, summarizer: generator(() => new Promise((r) => (release = () => r("S")))) });
  const pending = compactor.compact({ messages: conversation(1), inputTokenBudget: 0 });
  await new Promise((r) => setTimeout(r, 5));
  compactor.free();
  release();
  assert.ok((await pending).summary.startsWith("S"));
});

test("facts are cached per message object and estimator", () => {
  let counted = 0;
  const estimator = { countTokens: (text) => (counted++, text.length) };
  const compactor = new Compactor({ keepRecentTokens: 50, summarizer: generator(async () => "S") });
  const messages = conversation(5);
  compactor.plan({ messages, inputTokenBudget: 0, estimator });
  const cold = counted;
  assert.ok(cold >= messages.length);
  counted = 0;
  messages.push(user("one more question"));
  compactor.plan({ messages, inputTokenBudget: 0, estimator });
  // The new message, and the one before it: the last message of a request is never cached.
  assert.equal(counted, 2, "only the new message and the previous last one are counted");
  // Another estimator object has its own facts.
  const other = { countTokens: (text) => (counted++, 1) };
  counted = 0;
  estimate({ messages, estimator: other });
  assert.ok(counted >= messages.length);
});

test("cacheFacts: false re-reads every message", () => {
  let counted = 0;
  const estimator = { countTokens: (text) => (counted++, text.length) };
  const compactor = new Compactor({ cacheFacts: false, keepRecentTokens: 50, summarizer: generator(async () => "S") });
  const messages = conversation(3);
  compactor.plan({ messages, inputTokenBudget: 0, estimator });
  const first = counted;
  compactor.plan({ messages, inputTokenBudget: 0, estimator });
  assert.equal(counted, 2 * first);
});

test("a plan from cached facts equals one read afresh: every format, steps, odd ids, failed attempts", () => {
  const fixture = (name) => JSON.parse(readFileSync(new URL(`./formats/${name}.json`, import.meta.url), "utf8"));
  // Ids with the cache's separators, digits, other scripts, and none at all; an aborted attempt.
  const odd = ["a;1,2", "9:x", "调用", ""].flatMap((id) => [user(`use ${id}`), call(id), result(id, `out of ${id}`), say("next")]);
  odd.push({ role: "assistant", content: [{ type: "text", text: "cut off" }], stopReason: "aborted" });
  const histories = [["canonical", odd], ...["canonical", "openai-chat", "openai-responses", "anthropic", "ai-sdk", "ai-sdk-ui"].map((f) => [f, fixture(f)])];
  const shape = (p) => p && { ...p, messageTokens: [...p.messageTokens], messagesToSummarize: p.messagesToSummarize.length, turnPrefixMessages: p.turnPrefixMessages.length };
  for (const [format, messages] of histories) {
    // A host estimator counts each text it is given: a plan from cached facts counts none.
    let counted = 0;
    const estimator = { countTokens: (text) => (counted++, Math.ceil(text.length / 3)) };
    for (const keepRecentTokens of [0, 40, 200]) {
      const request = { format, messages, inputTokenBudget: 0, estimator };
      const fresh = new Compactor({ keepRecentTokens, summarizer: generator(async () => "S"), cacheFacts: false }).plan(request);
      const caching = new Compactor({ keepRecentTokens, summarizer: generator(async () => "S") });
      caching.plan(request);
      // The last message is never cached: what reading it alone counts.
      counted = 0;
      new Compactor({ keepRecentTokens, summarizer: generator(async () => "S"), cacheFacts: false }).plan({ ...request, messages: messages.slice(-1) });
      const last = counted;
      counted = 0;
      const cached = caching.plan(request);
      assert.equal(counted, last, `${format}: the second plan's facts come from the cache, but the last message's`);
      assert.deepEqual(shape(cached), shape(fresh), `${format}, keepRecentTokens ${keepRecentTokens}`);
      // The native estimator's facts are cached apart from the host's.
      const native = { format, messages, inputTokenBudget: 0 };
      const nativeFresh = new Compactor({ keepRecentTokens, summarizer: generator(async () => "S"), cacheFacts: false }).plan(native);
      caching.plan(native);
      assert.deepEqual(shape(caching.plan(native)), shape(nativeFresh), `${format}, native, keepRecentTokens ${keepRecentTokens}`);
    }
  }
});
