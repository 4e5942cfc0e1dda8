// Retries on JS timers: the schedule, abort during a call or a wait, no timer left behind,
// and a real local HTTP model stub that answers 429 then 200.
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Compactor } from "context-compaction";
import { conversation, generator, httpError, liveTimers } from "./helpers.mjs";

const request = () => ({ messages: conversation(1), inputTokenBudget: 0 });

test("retryable failures are retried with the configured delays", async () => {
  const times = [];
  const failures = [httpError(429), Object.assign(new Error("reset"), { name: "StreamError" })];
  const compactor = new Compactor({
    keepRecentTokens: 0,
    summarizer: generator(async () => {
      times.push(performance.now());
      const next = failures.shift();
      if (next) throw next;
      return "S";
    }, { retry: { delaysMs: [30, 60] } }),
  });
  const out = await compactor.compact(request());
  assert.ok(out.summary.startsWith("S"));
  assert.equal(times.length, 3);
  assert.ok(times[1] - times[0] >= 25, `first wait ${times[1] - times[0]}`);
  assert.ok(times[2] - times[1] >= 55, `second wait ${times[2] - times[1]}`);
});

test("the classification follows status, markers and fetch's TypeError", async () => {
  const attempts = async (error) => {
    let n = 0;
    const compactor = new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => { n++; throw error; }, { retry: { delaysMs: [1, 1] } }) });
    await assert.rejects(compactor.compact(request()), (e) => e.code === "summarization" && e.cause === error);
    return n;
  };
  for (const status of [408, 409, 429, 500, 503]) assert.equal(await attempts(httpError(status)), 3, `status ${status}`);
  assert.equal(await attempts(Object.assign(new Error("x"), { statusCode: 502 })), 3);
  assert.equal(await attempts(Object.assign(new Error("x"), { response: { status: 504 } })), 3);
  assert.equal(await attempts(new TypeError("fetch failed")), 3);
  assert.equal(await attempts(Object.assign(new Error("x"), { retryable: true })), 3);
  for (const status of [400, 401, 404, 413]) assert.equal(await attempts(httpError(status)), 1, `status ${status}`);
  assert.equal(await attempts(new Error("prompt is too long")), 1);
  assert.equal(await attempts(Object.assign(new Error("x"), { status: 429, retryable: false })), 1);
  // The AI SDK's APICallError: `isRetryable` (true for a request that got no answer, no status).
  assert.equal(await attempts(Object.assign(new Error("Cannot connect to API"), { name: "AI_APICallError", isRetryable: true })), 3);
  assert.equal(await attempts(Object.assign(new Error("x"), { name: "AI_APICallError", statusCode: 503, isRetryable: false })), 1);
  assert.equal(await attempts("a bare string"), 1);
});

test("the default schedule waits 2 s then 4 s on the global setTimeout", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    let attempts = 0;
    const compactor = new Compactor({
      keepRecentTokens: 0,
      summarizer: { model: "m", generate: async () => { attempts++; throw httpError(503); } },
    });
    const done = compactor.compact(request()).then(() => null, (e) => e);
    const settle = () => new Promise((r) => setImmediate(r));
    await settle();
    assert.equal(attempts, 1);
    mock.timers.tick(1999);
    await settle();
    assert.equal(attempts, 1);
    mock.timers.tick(1);
    await settle();
    assert.equal(attempts, 2);
    mock.timers.tick(3999);
    await settle();
    assert.equal(attempts, 2);
    mock.timers.tick(1);
    await settle();
    assert.equal(attempts, 3);
    const error = await done;
    assert.equal(error.code, "summarization");
  } finally {
    mock.timers.reset();
  }
});

test("abort during a retry wait ends at once and leaves no timer or listener", async () => {
  const controller = new AbortController();
  let attempts = 0;
  const before = liveTimers();
  const compactor = new Compactor({
    keepRecentTokens: 0,
    summarizer: generator(async () => { attempts++; throw httpError(429); }, { retry: { delaysMs: [60_000] } }),
  });
  const started = performance.now();
  const pending = compactor.compact(request(), { signal: controller.signal });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(liveTimers(), before + 1, "the retry wait is a timer");
  controller.abort(new Error("user left"));
  await assert.rejects(pending, (e) => e.code === "aborted" && e.cause === controller.signal.reason);
  assert.ok(performance.now() - started < 5_000);
  assert.equal(attempts, 1);
  assert.equal(liveTimers(), before, "the timer was cleared");
  // A listener left on the signal would be visible to Node's event-target bookkeeping.
  const { getEventListeners } = await import("node:events");
  assert.equal(getEventListeners(controller.signal, "abort").length, 0);
});

test("a finished wait removes its abort listener", async () => {
  const controller = new AbortController();
  const failures = [httpError(500)];
  const compactor = new Compactor({
    keepRecentTokens: 0,
    summarizer: generator(async () => { if (failures.shift()) throw httpError(500); return "S"; }, { retry: { delaysMs: [5] } }),
  });
  await compactor.compact(request(), { signal: controller.signal });
  const { getEventListeners } = await import("node:events");
  assert.equal(getEventListeners(controller.signal, "abort").length, 0);
});

test("an already aborted signal stops before the first retry", async () => {
  const controller = new AbortController();
  controller.abort();
  let attempts = 0;
  const compactor = new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => { attempts++; throw httpError(429); }) });
  await assert.rejects(compactor.compact(request(), { signal: controller.signal }), (e) => e.code === "aborted");
  assert.equal(attempts, 1, "apply itself does not check the signal before calling the host");
});

test("a retry through a real local HTTP model stub: 429, then 200", async () => {
  const hits = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      hits.push(JSON.parse(body));
      if (hits.length === 1) {
        res.writeHead(429, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "rate limited" } }));
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ choices: [{ message: { content: "STUB SUMMARY" } }], usage: { prompt_tokens: 50, completion_tokens: 5 } }));
      }
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}/v1/chat/completions`;
  try {
    const compactor = new Compactor({
      keepRecentTokens: 0,
      summarizer: generator(async (req, { signal }) => {
        const response = await fetch(url, {
          method: "POST",
          signal,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: req.model, messages: [{ role: "system", content: req.systemPrompt }, ...req.messages] }),
        });
        const json = await response.json();
        if (!response.ok) throw Object.assign(new Error(json.error.message), { status: response.status });
        return { text: json.choices[0].message.content, usage: { input: json.usage.prompt_tokens, output: json.usage.completion_tokens } };
      }),
    });
    const out = await compactor.compact(request());
    assert.equal(hits.length, 2);
    assert.equal(hits[1].model, "summary-model");
    assert.ok(out.summary.startsWith("STUB SUMMARY"));
    assert.deepEqual(out.record.usage, { input: 50, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 55 });
  } finally {
    server.close();
  }
});
