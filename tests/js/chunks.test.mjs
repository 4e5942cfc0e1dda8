// A history beyond the summary model's window (`summarizer.contextWindowTokens`): summarized in
// chunks, oldest first, each generate call within the window and told which chunk it is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError, HeuristicEstimator } from "context-compaction";
import { aiSdkSummarizer } from "context-compaction/ai-sdk";
import { generator, say, user } from "./helpers.mjs";

const estimator = new HeuristicEstimator();
/** Twenty turns of about 500 tokens each. */
const history = Array.from({ length: 20 }, (_, i) => [user(`question ${i}: ${"why does this fail? ".repeat(60)}`), say(`answer ${i}: ${"because of that. ".repeat(60)}`)]).flat();

/** Compacts the whole history through `summarizer` extras; the generate requests and the result. */
async function compact(extra, summary = "") {
  const requests = [];
  const compactor = new Compactor({
    keepRecentTokens: 1,
    summarizer: generator(async (req) => (requests.push(req), `S${requests.length - 1}`), extra),
  });
  const request = { messages: history, summary, inputTokenBudget: 0, requireReduction: false };
  const plan = compactor.plan(request);
  const previewed = compactor.summarizerInput(request, plan);
  const result = await compactor.apply(request, plan);
  return { requests, previewed, result };
}

const used = (req) => estimator.countTokens(req.systemPrompt) + estimator.countTokens(req.messages[0].content) + (req.maxOutputTokens ?? 0);

test("records beyond contextWindowTokens go in chunks, oldest first, each call within the window and told its chunk", async () => {
  const window = 6_000;
  const { requests, result } = await compact({ contextWindowTokens: window, maxOutputTokens: 1_000 });
  const count = requests.length;
  assert.ok(count > 1, `${count} calls`);
  requests.forEach((req, index) => {
    assert.deepEqual(req.chunk, { index, count });
    assert.ok(used(req) <= window, `call ${index}: ${used(req)} tokens`);
    if (index > 0) assert.match(req.messages[0].content, new RegExp(`<previous-summary>\\nS${index - 1}\\n</previous-summary>`));
  });
  for (let i = 0; i < 19; i++) {
    const carrying = requests.filter((req) => req.messages[0].content.includes(`question ${i}:`));
    assert.equal(carrying.length, 1, `question ${i} is in exactly one call`);
  }
  assert.ok(result.summary.startsWith(`S${count - 1}`));
});

test("without contextWindowTokens the same history is one call with no chunk", async () => {
  const { requests } = await compact({ maxOutputTokens: 1_000 });
  assert.equal(requests.length, 1);
  assert.equal(requests[0].chunk, undefined);
});

test("summarizerInput previews every chunk, a placeholder where the summary so far goes", async () => {
  const { requests, previewed } = await compact({ contextWindowTokens: 6_000, maxOutputTokens: 1_000 });
  assert.equal(previewed.length, requests.length);
  assert.deepEqual(previewed.map((p) => p.chunk), requests.map((r) => r.chunk));
  assert.equal(previewed[0].prompt, requests[0].messages[0].content);
  assert.equal(previewed[1].prompt.replace("[the summary of the chunks before this one]", "S0"), requests[1].messages[0].content);
});

test("a window too small for a summary and its update, or not a whole number, is an invalid_config naming it", () => {
  for (const contextWindowTokens of [2_000, -1, 1.5, "32k", NaN]) {
    assert.throws(
      () => new Compactor({ summarizer: generator(async () => "S", { contextWindowTokens, maxOutputTokens: 1_000 }) }),
      (error) => error instanceof CompactionError && error.code === "invalid_config" && /contextWindowTokens/.test(error.message),
      String(contextWindowTokens),
    );
  }
});

test("aiSdkSummarizer takes contextWindowTokens and does not pass it to generateText", async () => {
  const calls = [];
  const generateText = async (call) => (calls.push(call), { text: `S${calls.length - 1}` });
  const summarizer = aiSdkSummarizer({ model: "m", generateText, maxOutputTokens: 1_000, contextWindowTokens: 6_000, retry: { delaysMs: [] } });
  const compactor = new Compactor({ keepRecentTokens: 1, summarizer });
  await compactor.compact({ messages: history, inputTokenBudget: 0, requireReduction: false });
  assert.ok(calls.length > 1);
  assert.ok(calls.every((call) => !("contextWindowTokens" in call)));
});
