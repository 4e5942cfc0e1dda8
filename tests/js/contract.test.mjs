// The JavaScript contract: plan, apply, compact, estimate, projectSummary, identity, defaults.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError, HeuristicEstimator, estimate, projectSummary } from "context-compaction";
import { call, conversation, generator, result, say, user } from "./helpers.mjs";

const summarizer = generator(async () => "SUMMARY");

test("plan returns the host's own message objects", () => {
  const messages = conversation();
  const compactor = new Compactor({ keepRecentTokens: 100, summarizer });
  const plan = compactor.plan({ messages, inputTokenBudget: 0 });
  assert.ok(plan);
  assert.ok(plan.firstKeptIndex > 0 && plan.firstKeptIndex <= messages.length);
  const all = [...plan.messagesToSummarize, ...plan.turnPrefixMessages];
  all.forEach((m, i) => assert.equal(m, messages[i]));
  assert.equal(all.length, plan.firstKeptIndex);
  assert.equal(plan.messageTokens.length, messages.length);
  assert.equal(plan.splitTurn, plan.turnPrefixMessages.length > 0);
  assert.equal(typeof plan.estimateBefore, "number");
  assert.ok(plan.estimateAfterWithoutSummary < plan.estimateBefore);
});

test("plan is null below the threshold and without a budget", () => {
  const messages = conversation(1);
  const compactor = new Compactor({ keepRecentTokens: 0, summarizer });
  const { total } = estimate({ messages });
  assert.equal(compactor.plan({ messages, inputTokenBudget: total }), null);
  assert.ok(compactor.plan({ messages, inputTokenBudget: total - 1 }));
  assert.equal(compactor.plan({ messages }), null);
  assert.ok(compactor.plan({ messages, requireReduction: true }));
});

test("missing, undefined and null optional fields take defaults", () => {
  const messages = conversation(2);
  const compactor = new Compactor({ keepRecentTokens: null, triggerRatio: undefined, summarizer });
  const a = compactor.plan({ messages, inputTokenBudget: 0 });
  const b = compactor.plan({
    messages, inputTokenBudget: 0, systemPrompt: null, summary: undefined, tools: null,
    requireReduction: null, estimator: undefined, format: null,
  });
  assert.deepEqual(a, b);
});

test("apply returns the kept host objects and a record", async () => {
  const messages = conversation();
  const compactor = new Compactor({ keepRecentTokens: 100, summarizer });
  const request = { messages, inputTokenBudget: 0, systemPrompt: "You are helpful." };
  const plan = compactor.plan(request);
  const out = await compactor.apply(request, plan);
  assert.equal(out.messages.length, messages.length - plan.firstKeptIndex);
  out.messages.forEach((m, i) => assert.equal(m, messages[plan.firstKeptIndex + i]));
  assert.ok(out.summary.startsWith("SUMMARY"));
  assert.equal(out.record.summary, out.summary);
  assert.equal(out.record.firstKeptIndex, plan.firstKeptIndex);
  assert.equal(out.record.estimateBefore, plan.estimateBefore);
  assert.ok(out.record.estimateAfter < out.record.estimateBefore);
});

test("a null plan is a no-op with a cloned array", async () => {
  const messages = conversation(1);
  const compactor = new Compactor({ summarizer });
  const out = await compactor.apply({ messages, summary: "old", requireReduction: true }, null);
  assert.equal(out.summary, "old");
  assert.equal(out.record, null);
  assert.notEqual(out.messages, messages);
  assert.deepEqual(out.messages, messages);
  out.messages.forEach((m, i) => assert.equal(m, messages[i]));
});

test("compact is plan plus apply", async () => {
  const messages = conversation();
  const compactor = new Compactor({ keepRecentTokens: 100, summarizer });
  const request = { messages, inputTokenBudget: 0 };
  const plan = compactor.plan(request);
  const out = await compactor.compact(request);
  assert.equal(out.record.firstKeptIndex, plan.firstKeptIndex);
});

test("generate receives the documented request and may return { text, usage }", async () => {
  const seen = [];
  const compactor = new Compactor({
    keepRecentTokens: 0,
    summarizer: generator(async (req, options) => {
      seen.push({ req, options });
      return { text: " TEXT ", usage: { input: 10, output: 3, totalTokens: 13 } };
    }, { maxOutputTokens: 4000 }),
  });
  const controller = new AbortController();
  const out = await compactor.compact({ messages: conversation(1), inputTokenBudget: 0 }, { signal: controller.signal });
  const { req, options } = seen[0];
  assert.equal(req.model, "summary-model");
  assert.equal(req.maxOutputTokens, 4000);
  assert.deepEqual(req.tools, []);
  assert.equal(req.toolChoice, "none");
  assert.equal(req.purpose, "history");
  assert.equal(req.messages.length, 1);
  assert.equal(req.messages[0].role, "user");
  assert.match(req.messages[0].content, /\[User\]: question 0/);
  assert.match(req.systemPrompt, /structured summary/);
  assert.equal(options.signal, controller.signal);
  assert.ok(out.summary.startsWith("TEXT"));
  assert.deepEqual(out.record.usage, { input: 10, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 13 });
});

test("a split turn calls generate twice and joins the summaries (quoting off)", async () => {
  const messages = [user("old"), say("old answer"), user("new task"), call("a"), result("a"), say("the kept answer here")];
  const purposes = [];
  const compactor = new Compactor({
    keepRecentTokens: 1,
    summarizer: generator(async (req) => (purposes.push(req.purpose), req.purpose.toUpperCase()), { quoteTurnPrefixTokens: 0 }),
  });
  const plan = compactor.plan({ messages, inputTokenBudget: 0 });
  assert.equal(plan.splitTurn, true);
  assert.deepEqual(plan.turnPrefixMessages, messages.slice(2, 5));
  const prompts = compactor.summarizerInput({ messages }, plan);
  assert.deepEqual(prompts.map((p) => p.purpose), ["history", "turnPrefix"]);
  const out = await compactor.apply({ messages }, plan);
  assert.deepEqual(purposes, ["history", "turnPrefix"]);
  assert.equal(out.summary, "HISTORY\n\n**Turn Context (split turn):**\n\nTURNPREFIX\n\n<read-files>\na.ts\n</read-files>");
});

test("an application summarizer gets the host's objects and is called once", async () => {
  const messages = conversation(3);
  let calls = 0;
  let got;
  const compactor = new Compactor({
    keepRecentTokens: 0,
    summarizer: { summarize: async (req) => { calls++; got = req; return "APP"; } },
  });
  assert.equal(compactor.summarizerInput({ messages }, compactor.plan({ messages, inputTokenBudget: 0 })), null);
  const out = await compactor.compact({ messages, summary: "prev", inputTokenBudget: 0 });
  assert.equal(calls, 1);
  assert.equal(got.previousSummary, "prev");
  got.messages.forEach((m, i) => assert.equal(m, messages[i]));
  assert.ok(out.summary.startsWith("APP"));
});

test("host functions may return plain values, throw synchronously or reject", async () => {
  const messages = conversation(1);
  const request = { messages, inputTokenBudget: 0 };
  const plain = new Compactor({ keepRecentTokens: 0, summarizer: generator(() => "PLAIN") });
  assert.ok((await plain.compact(request)).summary.startsWith("PLAIN"));
  const thrown = new Error("sync");
  const sync = new Compactor({ keepRecentTokens: 0, summarizer: generator(() => { throw thrown; }) });
  await assert.rejects(sync.compact(request), (e) => e instanceof CompactionError && e.cause === thrown);
  const rejected = { custom: true };
  const rejecting = new Compactor({ keepRecentTokens: 0, summarizer: generator(() => Promise.reject(rejected)) });
  await assert.rejects(rejecting.compact(request), (e) => e.code === "summarization" && e.cause === rejected);
  const wrong = new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => 42) });
  await assert.rejects(wrong.compact(request), (e) => e.code === "summarization" && /string or \{ text, usage \}/.test(e.message));
});

test("a host estimator replaces the heuristic", () => {
  const messages = [user("abcd"), say("efgh")];
  const chars = { countTokens: (t) => t.length };
  const e = estimate({ messages, estimator: chars });
  assert.deepEqual(e.messages, [4 + 4, 4 + 4]);
  const heuristic = new HeuristicEstimator({ imageTokens: 85 });
  const image = { role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] };
  assert.deepEqual(estimate({ messages: [image], estimator: heuristic }).messages, [85 + 4]);
  assert.deepEqual(estimate({ messages: [image] }).messages, [1200 + 4]);
  assert.equal(heuristic.countTokens("hello world"), 2);
});

test("estimate adds system prompt, summary, messages and tools", () => {
  const tools = [{ name: "read", description: "Read a file", parameters: { type: "object" } }];
  const e = estimate({ systemPrompt: "sys", summary: "sum", messages: [user("hi")], tools });
  assert.equal(e.total, e.systemPrompt + e.summary + e.tools + e.messages.reduce((a, b) => a + b, 0));
  assert.ok(e.systemPrompt > 0 && e.summary > 0 && e.tools > 0);
});

test("projectSummary projects one user message, or nothing", () => {
  assert.equal(projectSummary(""), null);
  assert.equal(projectSummary(null), null);
  assert.deepEqual(projectSummary("S"), {
    role: "user",
    content: "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS\n</summary>",
  });
});

test("objects support free() and Symbol.dispose", () => {
  const compactor = new Compactor({ summarizer });
  assert.equal(typeof compactor[Symbol.dispose], "function");
  compactor.free();
  assert.throws(() => compactor.plan({ messages: [] }), Error);
  // `using` needs a newer Node than 20; this is what it calls.
  const estimator = new HeuristicEstimator();
  assert.equal(estimator.countTokens("a"), 1);
  estimator[Symbol.dispose]();
  assert.throws(() => estimator.countTokens("a"), Error);
});

test("long prompts with other characters among long ASCII runs reach the summarizer whole", async () => {
  // Long ASCII runs, short ones, and characters of every width, in the order they come.
  const pieces = ["a".repeat(5000), "é", "b".repeat(10), "日本", "c".repeat(1023), "😀", "d".repeat(1024), "ü", "e".repeat(3000)];
  const text = pieces.join("") + pieces.reverse().join("");
  const messages = [user(text), say("ok"), user("next"), say("kept")];
  const sent = [];
  const compactor = new Compactor({ keepRecentTokens: 1, summarizer: generator(async (req) => (sent.push(req.messages[0].content), "S")) });
  const plan = compactor.plan({ messages, inputTokenBudget: 0 });
  const [{ prompt }] = compactor.summarizerInput({ messages }, plan);
  assert.ok(prompt.includes(`[User]: ${text}\n\n[Assistant]: ok`), "the text is whole and in order");
  await compactor.apply({ messages }, plan);
  assert.equal(sent[0], prompt);
});
