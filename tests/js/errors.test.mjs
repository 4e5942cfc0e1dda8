// Every error code, cause identity, and bad input that must never trap or throw a bare string.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError, estimate } from "context-compaction";
import { conversation, generator, say, user } from "./helpers.mjs";

const ok = generator(async () => "S");
const is = (code) => (e) => {
  assert.ok(e instanceof CompactionError, `not a CompactionError: ${e}`);
  assert.ok(e instanceof Error);
  assert.equal(e.name, "CompactionError");
  assert.equal(e.code, code, e.message);
  return true;
};

test("invalid_config for every rejected configuration", () => {
  const bad = [
    undefined, 42, {}, { summarizer: null }, { summarizer: {} },
    { summarizer: { summarize: () => "", generate: () => "", model: "m" } },
    { summarizer: { generate: () => "" } },
    { summarizer: { generate: () => "", model: "   " } },
    { summarizer: { generate: () => "", model: 7 } },
    { summarizer: ok, keepRecentTokens: -1 },
    { summarizer: ok, keepRecentTokens: NaN },
    { summarizer: ok, keepRecentTokens: 1.5 },
    { summarizer: ok, keepRecentTokens: "2000" },
    { summarizer: ok, keepRecentTokens: 1e300 },
    { summarizer: ok, triggerRatio: 0 },
    { summarizer: ok, triggerRatio: -1 },
    { summarizer: ok, triggerRatio: Infinity },
    { summarizer: ok, cacheFacts: "yes" },
    { summarizer: { ...ok, maxOutputTokens: -5 } },
    { summarizer: { ...ok, retry: { delaysMs: [1, "x"] } } },
    { summarizer: { ...ok, retry: { delaysMs: 5 } } },
  ];
  for (const config of bad) assert.throws(() => new Compactor(config), is("invalid_config"), JSON.stringify(config));
  assert.ok(new Compactor({ summarizer: ok, triggerRatio: 2.5, keepRecentTokens: 0 }));
});

test("invalid_request names the place", () => {
  const compactor = new Compactor({ summarizer: ok });
  const cases = [
    [{ messages: "nope" }, /messages: expected an array/],
    [null, /request: expected an object/],
    [{ messages: [user("a"), { role: "assistant", content: [{ type: "foo" }] }] }, /messages\[1\]\.content\[0\]\.type: unknown block type "foo"/],
    [{ messages: [42] }, /messages\[0\]: expected an object/],
    [{ messages: [{ role: "toolResult", content: [] }] }, /messages\[0\]\.toolCallId: missing/],
    [{ messages: [], inputTokenBudget: -1 }, /inputTokenBudget/],
    [{ messages: [], inputTokenBudget: NaN }, /inputTokenBudget/],
    [{ messages: [], inputTokenBudget: "10" }, /inputTokenBudget/],
    [{ messages: [], systemPrompt: 5 }, /systemPrompt: expected a string/],
    [{ messages: [], tools: [{ description: "no name" }] }, /tools\[0\]\.name: missing/],
    [{ messages: [], format: "xml" }, /format: unknown format "xml"/],
    [{ messages: [], estimator: { countTokens: 1 } }, /estimator\.countTokens/],
    [{ messages: [], requireReduction: "yes" }, /requireReduction: expected a boolean/],
  ];
  for (const [request, pattern] of cases) {
    assert.throws(() => compactor.plan(request), (e) => is("invalid_request")(e) && pattern.test(e.message), String(pattern));
  }
});

test("a plan that does not fit the request is invalid_request", async () => {
  const messages = conversation(3);
  const compactor = new Compactor({ keepRecentTokens: 0, summarizer: ok });
  const plan = compactor.plan({ messages, inputTokenBudget: 0 });
  await assert.rejects(compactor.apply({ messages: messages.slice(0, 2) }, plan), is("invalid_request"));
  await assert.rejects(compactor.apply({ messages }, { ...plan, firstKeptIndex: 1 }), is("invalid_request"));
  await assert.rejects(compactor.apply({ messages }, "plan"), is("invalid_request"));
});

test("summarization keeps the host's error as cause", async () => {
  const thrown = Object.assign(new Error("bad key"), { status: 401 });
  const compactor = new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => { throw thrown; }) });
  await assert.rejects(compactor.compact({ messages: conversation(1), inputTokenBudget: 0 }), (e) => is("summarization")(e) && e.cause === thrown);
});

test("empty_summary after trimming and file-list removal", async () => {
  const compactor = new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => "  <read-files>\na\n</read-files> ") });
  await assert.rejects(compactor.compact({ messages: conversation(1), inputTokenBudget: 0 }), is("empty_summary"));
  const app = new Compactor({ keepRecentTokens: 0, summarizer: { summarize: () => "\n\n" } });
  await assert.rejects(app.compact({ messages: conversation(1), inputTokenBudget: 0 }), is("empty_summary"));
});

test("no_reduction from plan and from apply", async () => {
  const compactor = new Compactor({ keepRecentTokens: 1_000_000, summarizer: ok });
  assert.throws(() => compactor.plan({ messages: conversation(1), requireReduction: true }), is("no_reduction"));
  const verbose = new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => "word ".repeat(5000)) });
  await assert.rejects(verbose.compact({ messages: [user("hi"), say("yo")], requireReduction: true }), is("no_reduction"));
});

test("aborted when the host call fails because of the caller's signal", async () => {
  const controller = new AbortController();
  const compactor = new Compactor({
    keepRecentTokens: 0,
    summarizer: generator((req, { signal }) => new Promise((_, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason));
      controller.abort();
    })),
  });
  await assert.rejects(
    compactor.compact({ messages: conversation(1), inputTokenBudget: 0 }, { signal: controller.signal }),
    (e) => is("aborted")(e) && e.cause === controller.signal.reason,
  );
});

test("hostile input never traps: the module keeps working afterwards", async () => {
  const compactor = new Compactor({ keepRecentTokens: 0, summarizer: ok });
  let deep = { role: "user", content: "x" };
  let nest = deep;
  for (let i = 0; i < 10_000; i++) { nest.extra = { next: {} }; nest = nest.extra.next; }
  const cyclic = user("loop");
  cyclic.self = cyclic;
  const throwing = { role: "user", get content() { throw new Error("getter"); } };
  const inputs = [
    { messages: [deep] },
    { messages: [cyclic] },
    { messages: [throwing] },
    { messages: [{ role: "user", content: [{ type: "text", text: 12 }] }] },
    { messages: [{ role: "assistant", content: [{ type: "toolCall", id: 5, name: "x" }] }] },
    { messages: [user("x")], inputTokenBudget: 2 ** 80 },
    { messages: [user("x")], inputTokenBudget: Infinity },
    { messages: [{ role: "user", content: [{ type: "text", text: 10n }] }] },
    { messages: [user("x")], estimator: { countTokens: () => NaN } },
    { messages: [user("x")], estimator: { countTokens: () => { throw new Error("tok"); } } },
    { messages: new Array(3) },
    { get messages() { throw new Error("no"); } },
  ];
  for (const request of inputs) {
    try {
      compactor.plan(request);
    } catch (e) {
      assert.ok(e instanceof CompactionError, `${e}`);
      assert.equal(e.code, "invalid_request");
    }
  }
  const lone = [user("broken \ud800 surrogate"), say("and \udc00 another"), user("end")];
  const plan = compactor.plan({ messages: lone, inputTokenBudget: 0 });
  assert.equal(plan.firstKeptIndex, 3);
  const out = await compactor.apply({ messages: lone }, plan);
  assert.ok(out.summary.startsWith("S"));
  assert.equal(estimate({ messages: [user("ok")] }).messages.length, 1);
});

test("an estimator's failure is worded in the error's message", () => {
  // The module writes its messages without `core::fmt`: what the estimator threw, and what it
  // returned instead of a count, are found by their type (src/wasm/error.rs).
  const compactor = new Compactor({ summarizer: ok });
  const plan = (countTokens) => () => compactor.plan({ messages: [user("x")], inputTokenBudget: 0, estimator: { countTokens } });
  assert.throws(
    plan(() => { throw new Error("tokenizer offline"); }),
    (e) => is("invalid_request")(e) && /messages\[0\]: the estimator failed: tokenizer offline$/.test(e.message),
  );
  assert.throws(
    plan(() => "12"),
    (e) => is("invalid_request")(e) && /messages\[0\]: the estimator failed: countTokens returned 12, not a non-negative number$/.test(e.message),
  );
});

test("a throwing estimator keeps its error as cause", () => {
  const thrown = new Error("tokenizer offline");
  const compactor = new Compactor({ summarizer: ok });
  assert.throws(
    () => compactor.plan({ messages: [user("x")], inputTokenBudget: 0, estimator: { countTokens() { throw thrown; } } }),
    (e) => is("invalid_request")(e) && e.cause === thrown && /messages\[0\]/.test(e.message),
  );
});
