// The ready-made fetch generators against a local stub of both wire formats.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, anthropicGenerator, isContextOverflowError, openAICompatibleGenerator } from "context-compaction";
import { conversation } from "./helpers.mjs";
import { anthropicOverflow, anthropicText, openAIOverflow, openAIText, startStub } from "./stub.mjs";

const request = { model: "m", systemPrompt: "SYS", messages: [{ role: "user", content: "records" }], maxOutputTokens: 500, tools: [], toolChoice: "none", purpose: "history" };

test("openAICompatibleGenerator sends Chat Completions and maps usage", async () => {
  const stub = await startStub([openAIText("SUMMARY", { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, prompt_tokens_details: { cached_tokens: 40 } })]);
  try {
    const generate = openAICompatibleGenerator({ baseURL: `${stub.url}/v1/`, apiKey: "sk-test" });
    const out = await generate(request, {});
    assert.deepEqual(out, { text: "SUMMARY", usage: { input: 100, output: 10, cacheRead: 40, cacheWrite: 0, totalTokens: 110 } });
    const [sent] = stub.requests;
    assert.equal(sent.path, "/v1/chat/completions");
    assert.equal(sent.headers.authorization, "Bearer sk-test");
    assert.deepEqual(sent.body, { model: "m", messages: [{ role: "system", content: "SYS" }, { role: "user", content: "records" }], max_tokens: 500 });
  } finally {
    await stub.close();
  }
});

test("anthropicGenerator sends the Messages API and maps usage", async () => {
  const stub = await startStub([anthropicText("SUMMARY")]);
  try {
    const generate = anthropicGenerator({ baseURL: stub.url, apiKey: "ak-test" });
    const out = await generate(request, {});
    assert.deepEqual(out, { text: "SUMMARY", usage: { input: 80, output: 8, cacheRead: 5, cacheWrite: 2, totalTokens: 95 } });
    const [sent] = stub.requests;
    assert.equal(sent.path, "/v1/messages");
    assert.equal(sent.headers["x-api-key"], "ak-test");
    assert.equal(sent.headers["anthropic-version"], "2023-06-01");
    assert.deepEqual(sent.body, { model: "m", max_tokens: 500, system: "SYS", messages: [{ role: "user", content: "records" }] });
  } finally {
    await stub.close();
  }
});

test("non-2xx answers carry status and the provider's message, so retries apply", async () => {
  const stub = await startStub([[429, { error: { message: "slow down" } }], [500, "upstream broke"], openAIText("FINALLY")]);
  try {
    const compactor = new Compactor({
      keepRecentTokens: 0,
      summarizer: { model: "m", generate: openAICompatibleGenerator({ baseURL: stub.url }), retry: { delaysMs: [5, 5] } },
    });
    const out = await compactor.compact({ messages: conversation(1), inputTokenBudget: 0 });
    assert.equal(stub.requests.length, 3);
    assert.ok(out.summary.startsWith("FINALLY"));
    assert.equal(out.record.usage.input, 100);
  } finally {
    await stub.close();
  }
});

test("413 and the providers' overflow bodies are overflow, not retried; 429 is never overflow", async () => {
  const stub = await startStub([[413, "Request Entity Too Large"], openAIOverflow, anthropicOverflow, [429, { error: { message: "Rate limit reached for tokens per min (TPM)" } }]]);
  try {
    const openai = openAICompatibleGenerator({ baseURL: stub.url });
    const anthropic = anthropicGenerator({ baseURL: stub.url });
    const errors = [];
    for (const generate of [openai, openai, anthropic, openai]) errors.push(await generate(request, {}).catch((e) => e));
    assert.deepEqual(errors.map((e) => e.status), [413, 400, 400, 429]);
    assert.deepEqual(errors.map(isContextOverflowError), [true, true, true, false]);
    assert.equal(errors[1].code, "context_length_exceeded");
    assert.match(errors[2].message, /prompt is too long/);
    // An overflow is not retried by the summarizer.
    const compactor = new Compactor({ keepRecentTokens: 0, summarizer: { model: "m", generate: async () => { throw errors[1]; }, retry: { delaysMs: [5, 5] } } });
    let attempts = 0;
    const counting = new Compactor({ keepRecentTokens: 0, summarizer: { model: "m", generate: async () => { attempts++; throw errors[0]; }, retry: { delaysMs: [5, 5] } } });
    await assert.rejects(compactor.compact({ messages: conversation(1), inputTokenBudget: 0 }), (e) => e.cause === errors[1]);
    await assert.rejects(counting.compact({ messages: conversation(1), inputTokenBudget: 0 }));
    assert.equal(attempts, 1);
  } finally {
    await stub.close();
  }
});

test("isContextOverflowError knows every documented provider text", () => {
  const texts = [
    "prompt is too long: 213462 tokens > 200000 maximum",
    "Your input exceeds the context window of this model",
    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    "This model's maximum prompt length is 131072 but the request contains 140000 tokens.",
    "Please reduce the length of the messages or completion.",
    "This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens",
    "Prompt contains 40000 tokens, too large for model with 32768 maximum context length",
    "Input is too long for requested model.",
    "the request exceeds the available context size, try increasing it",
    "The number of tokens to keep is greater than the context length.",
  ];
  for (const text of texts) assert.equal(isContextOverflowError(new Error(text)), true, text);
  assert.equal(isContextOverflowError({ code: "context_length_exceeded" }), true);
  assert.equal(isContextOverflowError({ response: { status: 413 } }), true);
  assert.equal(isContextOverflowError(Object.assign(new Error("prompt is too long"), { status: 429 })), false);
  assert.equal(isContextOverflowError(new Error("invalid api key")), false);
  assert.equal(isContextOverflowError("prompt is too long"), true);
  assert.equal(isContextOverflowError(undefined), false);
});
