// Drafts through the packed package: a summary made and not applied (`draft`), edited and
// committed onto the history or one that grew (`commit`), refused as `stale` when what it covers
// changed; receipts and their digest; `beforeCommit`; `focus`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError } from "context-compaction";
import { sessionMessages } from "./walk-helpers.mjs";

const all = sessionMessages();
const head = all.slice(0, 300);
const budget = { inputTokenBudget: 40_000 };

function compactor(extra = {}) {
  const seen = [];
  const made = new Compactor({
    keepRecentTokens: 8000,
    summarizer: {
      summarize: async (req) => {
        seen.push(req);
        return { text: `summary of ${req.messages.length} messages` };
      },
    },
    ...extra,
  });
  return { compactor: made, seen };
}

test("a committed draft is exactly what apply gives, and the summarizer is called once", async () => {
  const { compactor: c, seen } = compactor();
  const request = { messages: head, summary: "old", ...budget };
  const plan = c.plan(request);
  assert.ok(plan);
  const draft = await c.draft(request, plan);
  assert.equal(seen.length, 1);
  assert.equal(draft.firstKeptIndex, plan.firstKeptIndex);
  assert.match(draft.digest, /^[0-9a-f]{16}$/);
  const committed = c.commit(request, draft);
  assert.equal(seen.length, 1, "commit calls no summarizer");
  const applied = await c.apply(request, plan);
  assert.deepEqual(committed, applied);
  assert.equal(committed.messages[committed.messages.length - 1], head[head.length - 1], "your own objects");
});

test("a draft commits onto a history that grew, keeping every message after its cut", async () => {
  const { compactor: c } = compactor();
  const request = { messages: head, summary: "old", ...budget };
  const draft = await c.draft(request, c.plan(request));
  const grown = all.slice(0, 340);
  const committed = c.commit({ ...request, messages: grown }, draft);
  assert.equal(committed.summary, draft.summary);
  assert.deepEqual(committed.messages, grown.slice(draft.firstKeptIndex));
  assert.ok(committed.record.estimateAfter < committed.record.estimateBefore);
});

test("an edited draft is what is stored; a draft that no longer covers the history is stale", async () => {
  const { compactor: c } = compactor();
  const request = { messages: head, summary: "old", ...budget };
  const draft = await c.draft(request, c.plan(request));
  const edited = { ...draft, summary: "  what the user wrote  " };
  assert.equal(c.commit(request, edited).summary, "what the user wrote");
  const stale = (req, why) =>
    assert.throws(() => c.commit(req, draft), (e) => e instanceof CompactionError && e.code === "stale" && why.test(e.message));
  const changed = head.slice();
  changed[3] = { ...changed[3], content: [{ type: "text", text: "edited later" }] };
  stale({ ...request, messages: changed }, /changed/);
  stale({ ...request, summary: "another" }, /summary/);
  stale({ ...request, messages: head.slice(0, draft.firstKeptIndex - 1) }, /beyond/);
  assert.throws(() => c.commit(request, { ...draft, digest: "nope" }), (e) => e.code === "invalid_request" && /draft\.digest/.test(e.message));
});

test("a failed draft rejects and changes nothing; the caller's objects are untouched", async () => {
  const c = new Compactor({ keepRecentTokens: 8000, summarizer: { summarize: async () => { throw new Error("model down"); } } });
  const messages = head.slice();
  const before = JSON.stringify(messages);
  const request = { messages, summary: "old", ...budget };
  await assert.rejects(c.draft(request, c.plan(request)), (e) => e.code === "summarization");
  assert.equal(JSON.stringify(messages), before);
});

test("the receipt says what was summarized, and its digest follows every summarized message", async () => {
  const { compactor: c } = compactor();
  const request = { messages: head, summary: "old", ...budget };
  const { record } = await c.compact(request);
  const { receipt } = record;
  assert.equal(receipt.summarizedMessages, record.firstKeptIndex);
  assert.ok(receipt.summarizedTokens > 0);
  assert.deepEqual(receipt.pinned, []);
  assert.deepEqual(receipt.cleared, []);
  assert.equal(c.digest(request, record), receipt.digest, "a store checks it later");
  for (const i of [0, Math.floor(record.firstKeptIndex / 2), record.firstKeptIndex - 1]) {
    const changed = head.slice();
    changed[i] = JSON.parse(JSON.stringify(changed[i]).replace(/"text":"/, '"text":"x'));
    assert.notEqual(c.digest({ ...request, messages: changed }, record), receipt.digest, `messages[${i}]`);
  }
  const after = head.slice();
  after[record.firstKeptIndex + 1] = { role: "user", content: "a kept message" };
  assert.equal(c.digest({ ...request, messages: after }, record), receipt.digest, "kept messages are not covered");
});

test("beforeCommit replaces, keeps or declines; a throw declines with the cause", async () => {
  const request = { messages: head, summary: "old", ...budget };
  const run = (beforeCommit) => compactor({ beforeCommit }).compactor.compact(request);
  let shown;
  assert.equal((await run((draft) => { shown = draft; return "replaced"; })).summary, "replaced");
  assert.match(shown.summary, /^summary of/);
  assert.equal(typeof shown.firstKeptIndex, "number");
  assert.match((await run(async () => undefined)).summary, /^summary of/);
  await assert.rejects(run(() => false), (e) => e instanceof CompactionError && e.code === "declined");
  const cause = new Error("policy");
  await assert.rejects(run(() => { throw cause; }), (e) => e.code === "declined" && e.cause === cause);
  await assert.rejects(run(() => 42), (e) => e.code === "declined" && /string, false or nothing/.test(e.message));
  assert.throws(() => new Compactor({ summarizer: { summarize: async () => "x" }, beforeCommit: 1 }), (e) => e.code === "invalid_config");
});

test("focus reaches an application summarizer and the built-in summarizer's history prompt", async () => {
  const { compactor: c, seen } = compactor();
  const request = { messages: head, summary: "old", focus: "the database migration", ...budget };
  await c.compact(request);
  assert.equal(seen[0].focus, "the database migration");
  const prompts = [];
  const generated = new Compactor({
    keepRecentTokens: 8000,
    summarizer: { model: "m", generate: async (req) => { prompts.push(req.messages[0].content); return "generated"; } },
  });
  await generated.compact(request);
  assert.ok(prompts.some((p) => p.includes("<focus>\nthe database migration\n</focus>")));
  const previewed = generated.summarizerInput(request, generated.plan(request));
  assert.ok(previewed[0].prompt.includes("<focus>"), "summarizerInput shows it too");
  assert.throws(() => c.plan({ ...request, focus: 3 }), (e) => e.code === "invalid_request" && /focus/.test(e.message));
});
