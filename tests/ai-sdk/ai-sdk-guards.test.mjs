// Hostile and invalid input at the AI SDK entry: every case is a CompactionError naming the
// place (never a raw TypeError), and the entry keeps working afterwards. Clearing in a chat
// never touches provider-executed results, and a stored `cleared` list cannot clear what the
// route protects. Run by scripts/test-js against the packed tarball (CC_AI_SDK: the AI SDK majors).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { CompactionError, Compactor } from "context-compaction";
import { ChatCompaction, ChatPreview, aiSdkSummarizer } from "context-compaction/ai-sdk";

const root = process.env.CC_AI_SDK ?? new URL(".", import.meta.url).pathname;
const require = createRequire(`${root}/package.json`);
const ai = await import(pathToFileURL(require.resolve("ai7")).href);

const ui = [
  { id: "u1", role: "user", parts: [{ type: "text", text: "hello there" }] },
  { id: "a1", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: "hi" }] },
];
const base = { contextWindowTokens: 12_000, summarizer: { summarize: async () => "S" }, convertToModelMessages: ai.convertToModelMessages };
const throwing = (message = "trap") =>
  new Proxy(
    [],
    {
      get() {
        throw new Error(message);
      },
      ownKeys() {
        throw new Error(message);
      },
      getPrototypeOf() {
        throw new Error(message);
      },
    },
  );
const boom = () => {
  throw new Error("element trap");
};
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  return proxy;
};
const named = (code, pattern) => (e) => {
  assert.ok(e instanceof CompactionError, `a CompactionError, not ${e?.name}: ${e?.message}`);
  assert.equal(e.code, code);
  assert.match(e.message, pattern);
  return true;
};
const state = { summary: "", firstKeptId: "u1", firstKeptPart: 0, record: null };

/** The route still answers a plain request after a refusal. */
async function stillWorks(route) {
  const chat = await route.prepare(ui, null);
  assert.equal(chat.messages.length, 2);
}

test("prepare: messages, state, state.cleared and options that throw or are revoked Proxies", async () => {
  const route = new ChatCompaction(base);
  const cases = [
    [[throwing(), null], /messages(\.length)?: reading it threw: trap/],
    [[revoked(), null], /messages: reading it threw/],
    [[ui, throwing()], /state: reading it threw: trap/],
    [[ui, revoked()], /state: reading it threw/],
    [[ui, { ...state, cleared: throwing() }], /state\.cleared(\.length)?: reading it threw: trap/],
    [[ui, { ...state, cleared: revoked() }], /state\.cleared: reading it threw/],
    [[ui, { ...state, cleared: [throwing()] }], /state\.cleared\[0\]: reading it threw: trap/],
    [[ui, null, throwing()], /options: reading it threw: trap/],
    [[ui, null, revoked()], /options: reading it threw/],
  ];
  for (const [args, pattern] of cases) {
    await assert.rejects(route.prepare(...args), named("invalid_request", pattern));
    await stillWorks(route);
  }
  route.free();
});

test("prepare: a custom convertToModelMessages returning [null], a hostile object or a hostile array", async () => {
  const returns = [
    [() => [null], /convertToModelMessages\(message u1\)\[0\] must be a model message/],
    [() => [throwing("convert trap")], /convertToModelMessages\(message u1\)\[0\]: reading it threw: convert trap/],
    // Awaited, a Proxy is asked for its `then`: the trap throws there.
    [() => throwing("array trap"), /convertToModelMessages rejected message u1: array trap/],
    [() => new Proxy([{ role: "user", content: "x" }], { get: (target, key) => (key === "0" ? boom() : target[key]) }), /convertToModelMessages\(message u1\)\[0\]: reading it threw: element trap/],
    [() => 42, /convertToModelMessages\(message u1\) must return an array/],
    [() => [{ content: "no role" }], /must be a model message/],
  ];
  for (const [convert, pattern] of returns) {
    const route = new ChatCompaction({ ...base, convertToModelMessages: convert });
    await assert.rejects(route.prepare(ui, null), named("invalid_request", pattern));
    route.free();
  }
});

test("prepareStep: null, a hostile options object or a hostile messages list is a rejection naming it", async () => {
  const route = new ChatCompaction(base);
  const chat = await route.prepare(ui, null);
  for (const step of [chat.prepareStep, route.prepareStep()]) {
    await assert.rejects(step(null), named("invalid_request", /prepareStep options must be/));
    await assert.rejects(step(throwing()), named("invalid_request", /prepareStep options: reading it threw: trap/));
    await assert.rejects(step({ messages: throwing() }), named("invalid_request", /prepareStep options\.messages(\.length)?: reading it threw: trap/));
    await assert.rejects(step({ messages: revoked() }), named("invalid_request", /prepareStep options\.messages: reading it threw/));
    await assert.rejects(step({ messages: [], steps: throwing() }), named("invalid_request", /prepareStep options\.steps(\.length)?: reading it threw/));
    // A hostile message is named by the core when it reads it.
    await assert.rejects(step({ messages: [throwing()] }), named("invalid_request", /messages\[0\]/));
    await assert.rejects(step({ messages: [null] }), named("invalid_request", /messages\[0\]/));
    // And it still works.
    await step({ messages: chat.messages, steps: [] });
  }
  route.free();
});

test("ChatPreview.update: Proxies as messages, state or state.cleared; the preview keeps its last good input", () => {
  const preview = new ChatPreview({ contextWindowTokens: 12_000, reserveTokens: 11_990, keepRecentTokens: 1 });
  preview.update(ui);
  const before = preview.plan();
  for (const [args, pattern] of [
    [[throwing()], /messages(\.length)?: reading it threw: trap/],
    [[revoked()], /messages: reading it threw/],
    [[ui, throwing()], /state: reading it threw: trap/],
    [[ui, { ...state, cleared: revoked() }], /state\.cleared: reading it threw/],
    [[[ui[0], throwing()]], /messages\[1\]: reading it threw: trap/],
  ]) {
    assert.throws(() => preview.update(...args), named("invalid_request", pattern));
    assert.deepEqual(preview.plan(), before);
  }
  preview.free();
});

test("aiSdkSummarizer: options or a model whose getters throw or are revoked", async () => {
  const generateText = async () => ({ text: "S" });
  const config = (pattern) => named("invalid_config", pattern);
  assert.throws(() => aiSdkSummarizer(throwing()), config(/aiSdkSummarizer options: reading it threw: trap/));
  assert.throws(() => aiSdkSummarizer(revoked()), config(/aiSdkSummarizer/));
  const getter = Object.defineProperty({ generateText }, "model", {
    enumerable: true,
    get() {
      throw new Error("no model");
    },
  });
  assert.throws(() => aiSdkSummarizer(getter), config(/aiSdkSummarizer options\.model: reading it threw: no model/));
  assert.throws(() => aiSdkSummarizer({ generateText, model: throwing("modelId trap") }), config(/options\.model\.modelId: reading it threw: modelId trap/));
  const { proxy, revoke } = Proxy.revocable({ modelId: "m" }, {});
  revoke();
  assert.throws(() => aiSdkSummarizer({ generateText, model: proxy }), config(/options\.model\.modelId: reading it threw/));
  // And it still works.
  assert.equal(aiSdkSummarizer({ generateText, model: { modelId: "m" } }).model, "m");
});

test("aiSdkSummarizer: generateText resolving to null or a hostile result is tried once, not retried as a transport failure", async () => {
  const messages = Array.from({ length: 6 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(50) }));
  for (const [answer, pattern] of [
    [null, /generateText resolved to null/],
    [7, /generateText resolved to number/],
    // Awaited, a Proxy is asked for its `then`: the trap throws there.
    [throwing("result trap"), /result trap/],
    [{ get text() { throw new Error("text trap"); } }, /result\.text: reading it threw: text trap/],
  ]) {
    let calls = 0;
    const summarizer = aiSdkSummarizer({ model: "m", generateText: async () => (calls++, answer), retry: { delaysMs: [60_000, 60_000] } });
    const compactor = new Compactor({ keepRecentTokens: 50, summarizer });
    const started = Date.now();
    await assert.rejects(compactor.compact({ messages, inputTokenBudget: 0 }), (e) => e instanceof CompactionError && pattern.test(`${e.message} ${e.cause?.message}`));
    assert.equal(calls, 1, "tried once");
    assert.ok(Date.now() - started < 10_000, "no retry delay");
    compactor.free();
  }
});

test("ChatPreview and ChatCompaction check their options alike, naming the field passed", () => {
  const cases = [
    [{ reserveTokens: Number.NaN }, /options\.reserveTokens must be a whole number ≥ 0, got NaN/],
    [{ maxOutputTokens: {} }, /options\.maxOutputTokens must be a whole number ≥ 0, got object/],
    [{ contextWindowTokens: Number.POSITIVE_INFINITY }, /options\.contextWindowTokens must be a whole number > 0, got Infinity/],
    [{ contextWindowTokens: 0 }, /options\.contextWindowTokens must be a whole number > 0/],
    [{ keepRecentTokens: -1 }, /options\.keepRecentTokens must be a whole number ≥ 0, got -1/],
    [{ reserveTokens: 1.5 }, /options\.reserveTokens must be a whole number/],
  ];
  for (const [options, pattern] of cases) {
    assert.throws(() => new ChatCompaction({ ...base, ...options }), named("invalid_config", new RegExp(`ChatCompaction: ${pattern.source}`)));
    assert.throws(() => new ChatPreview({ contextWindowTokens: 12_000, ...options }), named("invalid_config", new RegExp(`ChatPreview: ${pattern.source}`)));
  }
  assert.throws(() => new ChatCompaction(throwing()), named("invalid_config", /ChatCompaction options\.\w+: reading it threw: trap/));
  assert.throws(() => new ChatPreview(throwing()), named("invalid_config", /ChatPreview options\.\w+: reading it threw: trap/));
  new ChatCompaction({ ...base, reserveTokens: 0, maxOutputTokens: 100 }).free();
  new ChatPreview({ contextWindowTokens: 12_000, reserveTokens: 0, maxOutputTokens: 100 }).free();
});

/** `turns` exchanges, each with a web search the provider ran and a file read by the application. */
function searches(turns) {
  const ui = [];
  for (let i = 0; i < turns; i++) {
    const body = `export const value${i} = ${i}; // line of file ${i}\n`.repeat(60);
    ui.push({ id: `u${i}`, role: "user", parts: [{ type: "text", text: `Search, then read src/f${i}.ts.` }] });
    ui.push({
      id: `a${i}`,
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-web_search", toolCallId: `p${i}`, state: "output-available", input: { q: `f${i}` }, output: { hits: body }, providerExecuted: true },
        { type: "tool-read", toolCallId: `c${i}`, state: "output-available", input: { path: `src/f${i}.ts` }, output: body },
        { type: "step-start" },
        { type: "text", text: `It exports value${i}.` },
      ],
    });
  }
  return ui;
}

const clearingOptions = { contextWindowTokens: 14_000, reserveTokens: 2_000, keepRecentTokens: 1_000, clearing: { protectRecentTokens: 1_500 } };
const sentResults = (messages) => messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p) => p.type === "tool-result") : []));

test("clearing in a chat never rewrites provider-executed results; the preview shows what the route clears", async () => {
  const ui = searches(10);
  const route = new ChatCompaction({ ...base, ...clearingOptions });
  const chat = await route.prepare(ui, null);
  assert.equal(chat.reason, "cleared");
  const ids = chat.state.cleared.map((e) => e.toolCallId);
  assert.ok(ids.length > 0 && ids.every((id) => id.startsWith("c")), `${ids}`);
  for (const part of sentResults(chat.messages).filter((p) => p.toolCallId.startsWith("p"))) assert.deepEqual(part.output.value, { hits: ui.find((m) => m.id === `a${part.toolCallId.slice(1)}`).parts[1].output.hits });
  const preview = new ChatPreview(clearingOptions);
  preview.update(ui);
  const plan = preview.plan();
  assert.equal(plan.kind, "clear");
  assert.deepEqual(plan.cleared.map((c) => [c.id, c.toolCallId, c.text]), chat.state.cleared.map((e) => [e.messageId, e.toolCallId, e.text]));
  // The next turn, with the stored state, sends the same results cleared.
  const next = await route.prepare(ui, JSON.parse(JSON.stringify(chat.state)));
  assert.deepEqual(sentResults(next.messages), sentResults(chat.messages));
  route.free();
  preview.free();
});

test("a stored cleared list cannot clear a protected result (the newest output, a provider's, a neverClear tool's)", async () => {
  const ui = searches(10);
  const route = new ChatCompaction({ ...base, ...clearingOptions, clearing: { ...clearingOptions.clearing, neverClear: ["todo"] } });
  const good = (await route.prepare(ui, null)).state;
  const placeholder = good.cleared[0].text;
  const foreign = [
    { messageId: "a9", toolCallId: "c9", text: placeholder },
    { messageId: "a2", toolCallId: "p2", text: placeholder },
    { messageId: "a9", toolCallId: "nowhere", text: placeholder },
  ];
  const state = { ...good, cleared: [...good.cleared, ...foreign] };
  const chat = await route.prepare(ui, state);
  const newest = sentResults(chat.messages).find((p) => p.toolCallId === "c9");
  assert.equal(newest.output.value, ui.at(-1).parts[2].output, "the newest result is sent as it is");
  assert.ok(sentResults(chat.messages).filter((p) => p.toolCallId.startsWith("p")).every((p) => typeof p.output.value === "object"));
  assert.deepEqual(chat.state.cleared, good.cleared, "only the entries a clearing could have made are kept");
  // The preview reads the stored list the same way.
  const preview = new ChatPreview({ ...clearingOptions, reserveTokens: 13_000 });
  preview.update(ui, good);
  const expected = preview.plan();
  preview.update(ui, state);
  assert.deepEqual(preview.plan(), expected);
  route.free();
  preview.free();
});
