// `ChatCompaction`'s `clearing` option against the real AI SDK (majors 5, 6 and 7): useChat posts
// the history uncleared every turn, and the stored state makes every request clear the same
// results again, so the model is sent the same messages turn after turn (the prompt cache
// holds) and no summary is paid for while clearing is enough. Run by scripts/test-js against the
// packed tarball, with CC_AI_SDK naming the folder where the SDK majors are installed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { CompactionError, estimate } from "context-compaction";
import { ChatCompaction, ChatPreview } from "context-compaction/ai-sdk";
import { ArrayState } from "./ai-sdk-chat-state.mjs";

const root = process.env.CC_AI_SDK ?? new URL(".", import.meta.url).pathname;
const require = createRequire(`${root}/package.json`);
const sdk = {};
for (const major of [5, 6, 7]) sdk[major] = await import(pathToFileURL(require.resolve(`ai${major}`)).href);

const PLACEHOLDER = /^\[Tool result cleared to save context: read of src\/f\d+\.ts, about [\d,]+ tokens\. Read the file again if it is needed\.\]$/;

/** `turns` exchanges, each reading one large file with a tool; one failed read among them. */
function chat(turns) {
  const ui = [{ id: "s", role: "system", parts: [{ type: "text", text: "You read files." }] }];
  for (let i = 0; i < turns; i++) {
    const body = `export const value${i} = ${i}; // line of file ${i}\n`.repeat(60);
    const read = i === 3 ? { state: "output-error", errorText: `EACCES ${body}` } : { state: "output-available", output: body };
    ui.push({ id: `u${i}`, role: "user", parts: [{ type: "text", text: `What does src/f${i}.ts do?` }] });
    ui.push({
      id: `a${i}`,
      role: "assistant",
      parts: [{ type: "step-start" }, { type: "tool-read", toolCallId: `c${i}`, input: { path: `src/f${i}.ts` }, ...read }, { type: "step-start" }, { type: "text", text: `It exports value${i}.` }],
    });
  }
  return ui;
}

/** A ChatCompaction over `major`'s convertToModelMessages, counting summarizer calls. */
function route(major, options = {}) {
  const calls = { summaries: 0, events: [] };
  const compaction = new ChatCompaction({
    contextWindowTokens: 12_000,
    reserveTokens: 2_000,
    keepRecentTokens: 1_000,
    summarizer: { summarize: async () => (calls.summaries++, "the earlier files were read") },
    convertToModelMessages: (ui) => sdk[major].convertToModelMessages(structuredClone(ui)),
    onEvent: (event) => calls.events.push(event),
    ...options,
  });
  return { compaction, calls };
}

const stored = (state) => JSON.parse(JSON.stringify(state));
const results = (messages) => messages.filter((m) => m.role === "tool").flatMap((m) => m.content.filter((p) => p.type === "tool-result"));
const cleared = (messages) => results(messages).filter((p) => typeof p.output.value === "string" && PLACEHOLDER.test(p.output.value));

for (const major of [5, 6, 7]) {
  const valid = (messages) => {
    for (const [index, message] of messages.entries()) {
      const parsed = sdk[major].modelMessageSchema.safeParse(message);
      assert.ok(parsed.success, `ai ${major}: messages[${index}] is not a ModelMessage: ${JSON.stringify(message).slice(0, 300)}`);
    }
  };

  test(`ai ${major}: clearing is enough: no summary, and the results stay cleared on the next turns`, async () => {
    const { compaction, calls } = route(major, { clearing: { protectRecentTokens: 1_500 } });
    const first = await compaction.prepare(chat(14), null);
    assert.equal(first.reason, "cleared");
    assert.equal(first.compacted, true);
    assert.equal(calls.summaries, 0, "clearing costs no model call");
    assert.equal(first.record.kind, "clear");
    assert.ok(first.record.tokensFreed > 3_000, `${first.record.tokensFreed} tokens freed`);
    assert.equal(first.record.clearedResults, first.state.cleared.length);
    assert.deepEqual(calls.events.map((e) => [e.type, e.reason]), [["compactionStart", "threshold"], ["compactionEnd", "threshold"]]);
    assert.equal(calls.events[0].plan.kind, "clear");
    // The sent messages are the SDK's own ModelMessages; the cleared ones carry the placeholder
    // (an `error-text` output for the failed read), call and result still paired.
    valid(first.messages);
    const gone = cleared(first.messages);
    assert.equal(gone.length, first.state.cleared.length);
    const failed = results(first.messages).find((p) => p.toolCallId === "c3");
    assert.equal(failed.output.type, "error-text");
    assert.match(failed.output.value, PLACEHOLDER);
    for (const part of gone) assert.ok(first.messages.some((m) => m.role === "assistant" && m.content.some((c) => c.type === "tool-call" && c.toolCallId === part.toolCallId)));
    assert.deepEqual(
      first.state.cleared.map((e) => [e.messageId, e.toolCallId]),
      gone.map((p) => [`a${p.toolCallId.slice(1)}`, p.toolCallId]),
    );
    assert.equal(first.state.summary, "");
    // Kept from the first message (the system message before it is never cut).
    assert.equal(first.state.firstKeptId, "u0");
    assert.equal(first.state.firstKeptPart, 0);

    // Next turn: useChat posts everything again, uncleared; the stored state (through JSON)
    // clears the same results, so what was sent before is sent again byte for byte.
    const state = stored(first.stateAfter(undefined));
    assert.deepEqual(state, first.state);
    const second = await compaction.prepare(chat(15), state);
    assert.equal(second.reason, "belowThreshold");
    assert.equal(calls.summaries, 0);
    assert.equal(JSON.stringify(second.messages.slice(0, first.messages.length)), JSON.stringify(first.messages), "the prompt's prefix is unchanged");
    assert.deepEqual(second.state, state);
    const sent = (messages) => estimate({ format: "ai-sdk", messages }).total;
    const uncleared = await sdk[major].convertToModelMessages(chat(15));
    assert.ok(sent(second.messages) < sent(uncleared) - 3_000, "the estimate stays down");

    // Later turns clear more (a second clearing appends to the list) and the earlier ones stay.
    let last = second;
    let now = state;
    for (let turns = 16; turns <= 22 && last.reason !== "compacted"; turns++) {
      last = await compaction.prepare(chat(turns), now);
      valid(last.messages);
      for (const entry of now.cleared ?? []) {
        const part = results(last.messages).find((p) => p.toolCallId === entry.toolCallId);
        if (part) assert.equal(part.output.value, entry.text, `${entry.toolCallId} stays cleared`);
      }
      now = stored(last.stateAfter(undefined));
    }
    assert.ok(now.cleared.length > state.cleared.length, `${now.cleared.length} cleared by the end`);
    compaction.free();
  });

  test(`ai ${major}: off by default: the same chat is summarized and the state has no cleared list`, async () => {
    for (const clearing of [undefined, false, null]) {
      const { compaction, calls } = route(major, clearing === undefined ? {} : { clearing });
      const prepared = await compaction.prepare(chat(14), null);
      assert.equal(prepared.reason, "compacted");
      assert.equal(calls.summaries, 1);
      assert.equal(prepared.record.kind, undefined);
      assert.deepEqual(Object.keys(prepared.state).sort(), ["firstKeptId", "firstKeptPart", "record", "summary"]);
      assert.equal(cleared(prepared.messages).length, 0);
      compaction.free();
    }
  });

  test(`ai ${major}: results in flight and the newest tool output are never cleared`, async () => {
    const { compaction } = route(major, { clearing: { protectRecentTokens: 1_500 } });
    const ui = chat(14);
    // The last assistant message waits for its tool result (a client-side tool).
    ui.push({ id: "u14", role: "user", parts: [{ type: "text", text: "And src/f14.ts?" }] });
    ui.push({ id: "a14", role: "assistant", parts: [{ type: "step-start" }, { type: "tool-read", toolCallId: "c14", state: "input-available", input: { path: "src/f14.ts" } }] });
    const prepared = await compaction.prepare(ui, null);
    assert.equal(prepared.reason, "cleared");
    const ids = prepared.state.cleared.map((e) => e.toolCallId);
    assert.ok(!ids.includes("c14"));
    // The newest results (1,500 tokens of output, about two reads) and the kept suffix stay.
    for (const id of ["c13", "c12"]) assert.ok(!ids.includes(id), `${id} is recent`);
    const kept = results(prepared.messages).filter((p) => !ids.includes(p.toolCallId));
    assert.ok(kept.every((p) => !PLACEHOLDER.test(p.output.value ?? "")));
    compaction.free();
  });

  test(`ai ${major}: between the steps of a tool loop, rebuilt or kept by the SDK, cleared results stay cleared`, async () => {
    const { compaction, calls } = route(major, { clearing: { protectRecentTokens: 1_500 } });
    const posted = chat(8);
    const prepared = await compaction.prepare(posted, null);
    assert.equal(prepared.reason, "belowThreshold");
    // The loop's steps read more files: each step's response is an assistant call and its result.
    const responses = [];
    const stepResponse = (i) => [
      { role: "assistant", content: [{ type: "tool-call", toolCallId: `s${i}`, toolName: "read", input: { path: `src/f${20 + i}.ts` } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: `s${i}`, toolName: "read", output: { type: "text", value: `const step${i} = ${i};\n`.repeat(120) } }] },
    ];
    let result;
    let i = 0;
    for (; i < 12 && !result; i++) {
      responses.push(...stepResponse(i));
      // ai 5 and 6: the request's messages plus every response, as the SDK first had them.
      const out = await prepared.prepareStep({ messages: [...prepared.messages, ...responses], steps: [] });
      if (out && cleared(out.messages).length > 0) result = out;
    }
    assert.ok(result, "a step cleared");
    assert.equal(calls.summaries, 0);
    valid(result.messages);
    const texts = new Map(cleared(result.messages).map((p) => [p.toolCallId, p.output.value]));
    // The next step rebuilt from the uncleared list (ai 5, 6) or from what was returned (ai 7).
    responses.push(...stepResponse(i));
    const rebuilt = await prepared.prepareStep({ messages: [...prepared.messages, ...responses], steps: [] });
    assert.ok(rebuilt, "the rebuilt list is replaced");
    const kept = [...result.messages, ...stepResponse(i)];
    // What was returned already holds the placeholders: nothing to replace.
    assert.equal(await prepared.prepareStep({ messages: kept, steps: [] }), undefined);
    for (const messages of [rebuilt.messages, kept]) {
      for (const [id, text] of texts) assert.equal(results(messages).find((p) => p.toolCallId === id).output.value, text);
    }
    assert.equal(JSON.stringify(rebuilt.messages), JSON.stringify(kept), "both ways send the same messages");
    // The state to store names the results by UIMessage: the posted ones by theirs, the
    // steps' by the response message's id.
    const state = stored(prepared.stateAfter({ id: "r1", role: "assistant", parts: [] }));
    assert.equal(state.record.kind, "clear");
    assert.deepEqual(
      state.cleared.map((e) => e.messageId),
      [...texts.keys()].map((id) => (id.startsWith("s") ? "r1" : `a${id.slice(1)}`)),
    );
    compaction.free();
  });
}

test("a summary after clearings keeps the cleared results it keeps, and drops the others from the state", async () => {
  const { compaction, calls } = route(7, { clearing: { protectRecentTokens: 1_500 } });
  let state = null;
  let prepared;
  for (let turns = 14; calls.summaries === 0 && turns < 400; turns += 10) {
    prepared = await compaction.prepare(chat(turns), state);
    state = stored(prepared.stateAfter(undefined));
  }
  assert.equal(prepared.reason, "compacted");
  assert.ok(state.summary.length > 0);
  const live = new Set(results(prepared.messages).map((p) => p.toolCallId));
  for (const entry of state.cleared ?? []) assert.ok(live.has(entry.toolCallId), `${entry.toolCallId} is still sent`);
  for (const part of cleared(prepared.messages)) assert.ok(state.cleared.some((e) => e.toolCallId === part.toolCallId));
  compaction.free();
});

test("ChatPreview shows a clear plan, and the route's stored clearing in its estimates", async () => {
  const options = { contextWindowTokens: 12_000, reserveTokens: 2_000, keepRecentTokens: 1_000, clearing: { protectRecentTokens: 1_500 } };
  const preview = new ChatPreview(options);
  const ui = chat(14);
  preview.update(ui);
  const plan = preview.plan();
  assert.equal(plan.kind, "clear");
  const { compaction } = route(7, { clearing: options.clearing });
  const prepared = await compaction.prepare(ui, null);
  assert.deepEqual(
    plan.cleared.map((c) => [c.id, c.toolCallId, c.text]),
    prepared.state.cleared.map((e) => [e.messageId, e.toolCallId, e.text]),
  );
  assert.equal(plan.tokensFreed, prepared.record.tokensFreed);
  assert.ok(plan.messages.filter((m) => m.fate === "cleared").every((m) => plan.cleared.some((c) => c.id === m.id)));
  // With the state the route stored, the preview sees what the route sends: nothing to do.
  preview.update(ui, stored(prepared.state));
  assert.equal(preview.plan(), null);
  const off = new ChatPreview({ ...options, clearing: undefined });
  off.update(ui);
  assert.equal(off.plan().kind, "summary");
  for (const made of [preview, off]) made.free();
  compaction.free();
});

test("a hostile or invalid clearing option, or a bad stored list, is a CompactionError naming it", async () => {
  const base = { contextWindowTokens: 12_000, summarizer: { summarize: async () => "S" }, convertToModelMessages: sdk[7].convertToModelMessages };
  const config = (pattern) => (e) => e instanceof CompactionError && e.code === "invalid_config" && pattern.test(e.message);
  const throwing = Object.defineProperty({ ...base }, "clearing", {
    get() {
      throw new Error("no clearing today");
    },
  });
  assert.throws(() => new ChatCompaction(throwing), config(/ChatCompaction options\.clearing: reading it threw: no clearing today/));
  const page = Object.defineProperty({ contextWindowTokens: 12_000 }, "clearing", Object.getOwnPropertyDescriptor(throwing, "clearing"));
  assert.throws(() => new ChatPreview(page), config(/ChatPreview options\.clearing: reading it threw: no clearing today/));
  assert.throws(() => new ChatPreview({ contextWindowTokens: 12_000, clearing: { protectRecentTokens: "lots" } }), config(/protectRecentTokens/));
  const trap = new Proxy(
    {},
    {
      get(_, key) {
        if (key === "protectRecentTokens") throw new Error("trap");
        return undefined;
      },
    },
  );
  assert.throws(() => new ChatCompaction({ ...base, clearing: trap }), config(/clearing\.protectRecentTokens/));
  assert.throws(() => new ChatCompaction({ ...base, clearing: { protectRecentTokens: -1 } }), config(/protectRecentTokens/));
  assert.throws(() => new ChatCompaction({ ...base, clearing: "yes" }), config(/clearing must be a boolean or an object/));
  assert.throws(() => new ChatCompaction({ ...base, clearing: { neverClear: "read" } }), config(/neverClear must be an array/));
  const compaction = new ChatCompaction({ ...base, clearing: true });
  const request = (e) => e instanceof CompactionError && e.code === "invalid_request" && /state\.cleared/.test(e.message);
  const state = { summary: "", firstKeptId: "s", firstKeptPart: 0, record: null };
  await assert.rejects(compaction.prepare(chat(2), { ...state, cleared: "c1" }), request);
  await assert.rejects(compaction.prepare(chat(2), { ...state, cleared: [{ messageId: "a1", toolCallId: 1, text: "x" }] }), request);
  compaction.free();
});

test("clearing: true: the stored results stay cleared on the next turn (the default protection is a share of the route's budget)", async () => {
  // A 10,000-token budget protects the newest 1,000 tokens of output by default, not 40,000:
  // the results cleared on one turn are still clearable on the next, so the state keeps them.
  const { compaction, calls } = route(7, { clearing: true });
  const first = await compaction.prepare(chat(20), null);
  assert.equal(first.reason, "cleared");
  const state = stored(first.stateAfter());
  assert.ok(state.cleared.length > 10, `${state.cleared.length} cleared`);
  const next = await compaction.prepare(chat(20), state);
  assert.equal(next.reason, "belowThreshold");
  assert.deepEqual(stored(next.stateAfter()).cleared, state.cleared);
  assert.equal(calls.summaries, 0);
  compaction.free();
});

/** The SDK's mock chat model (`ai/test`) playing an agent that reads `reads` files in one loop, recording every prompt. */
async function agent(major, reads) {
  const mocks = await import(pathToFileURL(require.resolve(`ai${major}/test`)).href);
  const Mock = mocks.MockLanguageModelV3 ?? mocks.MockLanguageModelV2;
  const spec3 = Boolean(mocks.MockLanguageModelV3);
  const usage = spec3 ? { inputTokens: { total: 10, noCache: 10 }, outputTokens: { total: 5, text: 5 } } : { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
  const finish = (reason) => (spec3 ? { unified: reason, raw: reason } : reason);
  const prompts = [];
  const model = new Mock({
    doGenerate: async ({ prompt }) => {
      prompts.push(JSON.parse(JSON.stringify(prompt)));
      const n = prompts.length;
      const content = n <= reads ? [{ type: "tool-call", toolCallId: `call-${n}`, toolName: "read", input: JSON.stringify({ path: `src/f${n}.ts` }) }] : [{ type: "text", text: "All read." }];
      return { content, finishReason: finish(n <= reads ? "tool-calls" : "stop"), usage, warnings: [] };
    },
  });
  const schema = sdk[major].jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] });
  const tools = { read: { description: "Read a file", inputSchema: schema, execute: async ({ path }) => `export const x = 1; // ${path}\n`.repeat(100) } };
  return { model, tools, prompts };
}

for (const major of [5, 6, 7]) {
  test(`ai ${major}: generateText's own tool loop with prepareStep: cleared results stay cleared in every later prompt`, async () => {
    const { compaction, calls } = route(major, { clearing: { protectRecentTokens: 1_500 } });
    const { model, tools, prompts } = await agent(major, 14);
    const chat = await compaction.prepare([{ id: "u0", role: "user", parts: [{ type: "text", text: "Read the fourteen files." }] }], null);
    const result = await sdk[major].generateText({ model, tools, messages: chat.messages, prepareStep: chat.prepareStep, stopWhen: sdk[major].stepCountIs(20) });
    assert.equal(result.text, "All read.");
    assert.equal(calls.summaries, 0, "clearing was enough");
    const placeholders = (prompt) => prompt.filter((m) => m.role === "tool").flatMap((m) => m.content.filter((p) => PLACEHOLDER.test(p.output?.value ?? "")).map((p) => p.toolCallId));
    const first = prompts.findIndex((prompt) => placeholders(prompt).length > 0);
    assert.ok(first > 0, "a step cleared");
    let continued = 0;
    for (let k = first + 1; k < prompts.length; k++) {
      // Every result cleared before stays cleared...
      for (const id of placeholders(prompts[k - 1])) assert.ok(placeholders(prompts[k]).includes(id), `${id} stays cleared in prompt ${k}`);
      // ...and unless this step cleared more, the prompt starts with the one before it (the
      // provider's cache holds).
      if (placeholders(prompts[k]).length > placeholders(prompts[k - 1]).length) continue;
      const before = JSON.stringify(prompts[k - 1]);
      assert.ok(JSON.stringify(prompts[k]).startsWith(before.slice(0, -1)), `prompt ${k} continues prompt ${k - 1}`);
      continued++;
    }
    assert.ok(continued >= 2, `${continued} steps continued the prompt before them`);
    const state = stored(chat.stateAfter({ id: "r1", role: "assistant", parts: [] }));
    assert.deepEqual(state.cleared.map((e) => e.toolCallId), placeholders(prompts.at(-1)));
    assert.ok(state.cleared.every((e) => e.messageId === "r1"));
    compaction.free();
  });
}

test("the AI SDK clearing recipe of docs/clearing.md is examples/ai-sdk-clearing.mjs, and it runs (ai 7)", async () => {
  const { readFileSync, writeFileSync, rmSync } = await import("node:fs");
  const source = new URL("./examples/ai-sdk-clearing.mjs", import.meta.url);
  const example = readFileSync(source, "utf8");
  const doc = readFileSync(new URL("./docs/clearing.md", import.meta.url), "utf8");
  assert.ok(doc.includes("```js\n" + example + "```"), "docs/clearing.md must quote examples/ai-sdk-clearing.mjs exactly");
  // Run next to the example (so that "context-compaction" resolves), with ai 7 as "ai".
  const run = new URL("./examples/ai-sdk-clearing.run.mjs", import.meta.url);
  writeFileSync(run, example.replace('from "ai"', `from ${JSON.stringify(pathToFileURL(require.resolve("ai7")).href)}`));
  const logs = [];
  const log = console.log;
  console.log = (...args) => logs.push(args.join(" "));
  try {
    await import(run.href);
  } finally {
    console.log = log;
    rmSync(run);
  }
  assert.match(logs[0], /^40 turns: cleared, (\d+) results cleared, \d+ tokens freed$/);
  assert.equal(logs[1], `41 turns: belowThreshold, ${logs[0].match(/(\d+) results/)[1]} results cleared`);
  assert.match(JSON.parse(logs[3]).text, /^\[Tool result cleared to save context: read of src\/file0\.ts/);
  assert.ok(doc.includes("```text\n" + logs.join("\n") + "\n```"), "docs/clearing.md must show the example's output");
});

async function idle(chat) {
  while (chat.status === "submitted" || chat.status === "streaming") await new Promise((r) => setTimeout(r, 1));
  if (chat.error) throw chat.error;
}

/**
 * `turns` turns of the SDK's own chat client (what useChat runs on) against a route as the
 * README has it, in process: each turn reads a file (turn `longTurn` reads 12 in one tool
 * loop); the state is stored as JSON. Every prompt the mock model was sent is recorded.
 */
async function roundTrips(major, { clearing, turns = 60, longTurn = 25 }) {
  const ai = sdk[major];
  const mocks = await import(pathToFileURL(require.resolve(`ai${major}/test`)).href);
  const Mock = mocks.MockLanguageModelV3 ?? mocks.MockLanguageModelV2;
  const spec3 = Boolean(mocks.MockLanguageModelV3);
  const usage = spec3 ? { inputTokens: { total: 10, noCache: 10 }, outputTokens: { total: 5, text: 5 } } : { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
  const finish = (reason) => (spec3 ? { unified: reason, raw: reason } : reason);
  const log = { prompts: [], summaries: 0, turn: 0, calls: 0 };
  const stream = (chunks) =>
    new ReadableStream({
      start(controller) {
        for (const chunk of [{ type: "stream-start", warnings: [] }, ...chunks]) controller.enqueue(chunk);
        controller.close();
      },
    });
  const model = new Mock({
    doStream: async ({ prompt }) => {
      log.prompts.push({ turn: log.turn, prompt: JSON.parse(JSON.stringify(prompt)) });
      const n = ++log.calls;
      if (n <= (log.turn === longTurn ? 12 : 1)) {
        const call = { type: "tool-call", toolCallId: `call-${log.turn}-${n}`, toolName: "read", input: JSON.stringify({ path: `src/m${log.turn}-${n}.ts` }) };
        return { stream: stream([call, { type: "finish", finishReason: finish("tool-calls"), usage }]) };
      }
      const text = [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `Done with turn ${log.turn}.` }, { type: "text-end", id: "t" }];
      return { stream: stream([...text, { type: "finish", finishReason: finish("stop"), usage }]) };
    },
  });
  const schema = ai.jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] });
  const tools = { read: { description: "Read a file", inputSchema: schema, execute: async ({ path }) => `export const value = compute(); // ${path}\n`.repeat(70) } };
  const compaction = new ChatCompaction({
    contextWindowTokens: 9_000,
    reserveTokens: 2_000,
    keepRecentTokens: 1_500,
    summarizer: { summarize: async () => `Summary #${++log.summaries}` },
    convertToModelMessages: ai.convertToModelMessages,
    ...(clearing ? { clearing } : {}),
  });
  const store = new Map();
  const POST = async (request) => {
    const { id, messages } = await request.json();
    const chat = await compaction.prepare(messages, store.has(id) ? JSON.parse(store.get(id)) : null);
    const result = ai.streamText({ model, tools, messages: chat.messages, prepareStep: chat.prepareStep, stopWhen: ({ steps }) => steps.length >= 30 });
    return result.toUIMessageStreamResponse({
      originalMessages: messages,
      generateMessageId: ai.generateId,
      onFinish: ({ responseMessage }) => store.set(id, JSON.stringify(chat.stateAfter(responseMessage))),
    });
  };
  const client = new (class extends ai.AbstractChat {})({
    id: "chat-1",
    state: new ArrayState(),
    transport: new ai.DefaultChatTransport({ api: "http://127.0.0.1/api/chat", fetch: async (url, init) => POST(new Request(url, init)) }),
  });
  for (let turn = 0; turn < turns; turn++) {
    log.turn = turn;
    log.calls = 0;
    await client.sendMessage({ text: `Turn ${turn}: look at module ${turn}.` });
    await idle(client);
  }
  compaction.free();
  return { log, state: JSON.parse(store.get("chat-1")) };
}

const placeholdersOf = (prompt) => new Set(prompt.filter((m) => m.role === "tool").flatMap((m) => m.content.filter((p) => PLACEHOLDER_ANY.test(p.output?.value ?? "")).map((p) => p.toolCallId)));
const PLACEHOLDER_ANY = /^\[Tool result cleared to save context: /;

for (const major of [5, 6, 7]) {
  test(`ai ${major}: the SDK's chat client over 60 turns: cleared results stay cleared in every later prompt, fewer summaries`, async () => {
    const off = await roundTrips(major, {});
    // ai 6 clears the calls' arguments too (and then needs no summary in these 60 turns).
    const clearArguments = major === 6;
    const on = await roundTrips(major, { clearing: { protectRecentTokens: 2_000, clearArguments } });
    assert.ok(off.log.summaries >= 2, `${off.log.summaries} summaries without clearing`);
    assert.ok(on.log.summaries < off.log.summaries, `summaries: ${on.log.summaries} with clearing, ${off.log.summaries} without`);
    // Clearing was not always enough: a summary came too, and the state carries it.
    if (!clearArguments) assert.ok(on.log.summaries >= 1 && on.state.summary.startsWith(`Summary #${on.log.summaries}\n`), JSON.stringify(on.state).slice(0, 200));
    assert.equal(off.log.prompts.filter(({ prompt }) => placeholdersOf(prompt).size > 0).length, 0, "off: nothing cleared");
    let continued = 0;
    let clearedEver = new Set();
    for (const [k, { turn, prompt }] of on.log.prompts.entries()) {
      const where = `ai ${major}, prompt ${k} (turn ${turn})`;
      const now = placeholdersOf(prompt);
      const sent = new Set(prompt.filter((m) => m.role === "tool").flatMap((m) => m.content.map((p) => p.toolCallId)));
      // A result cleared once is never sent uncleared again (it may be summarized away).
      for (const id of clearedEver) assert.ok(!sent.has(id) || now.has(id), `${where}: ${id} was cleared before and is sent uncleared`);
      clearedEver = new Set([...clearedEver, ...now]);
      const inputs = prompt.filter((m) => m.role === "assistant" && Array.isArray(m.content)).flatMap((m) => m.content.filter((p) => p.type === "tool-call" && clearedEver.has(p.toolCallId)));
      for (const call of inputs) assert.equal(JSON.stringify(call.input) === "{}", clearArguments, `${where}: ${call.toolCallId}'s arguments`);
      if (k === 0) continue;
      const before = on.log.prompts[k - 1].prompt;
      // Unless this request cleared more or summarized, the prompt starts with the one before.
      const same = JSON.stringify(prompt).startsWith(JSON.stringify(before).slice(0, -1));
      if (same) continued++;
      else assert.ok(now.size > placeholdersOf(before).size || JSON.stringify(prompt).includes("Summary #"), `${where}: the prompt changed with no clearing or summary`);
    }
    assert.ok(clearedEver.size > 10, `${clearedEver.size} results cleared`);
    assert.ok(continued > on.log.prompts.length / 2, `${continued} of ${on.log.prompts.length} prompts continue the one before`);
    assert.ok(Array.isArray(on.state.cleared) && on.state.cleared.every((e) => typeof e.messageId === "string" && e.messageId !== ""));
    console.log(`# ai ${major}: ${on.log.prompts.length} prompts; summaries ${off.log.summaries} without clearing, ${on.log.summaries} with; ${clearedEver.size} results cleared; state ${JSON.stringify(on.state).length} bytes`);
  });
}
