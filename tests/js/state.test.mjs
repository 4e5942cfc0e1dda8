// Concurrency on one Compactor, and the per-message facts cache.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, estimate } from "context-compaction";
import { conversation, generator, user } from "./helpers.mjs";

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
  assert.equal(counted, 1, "only the new message is counted");
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
