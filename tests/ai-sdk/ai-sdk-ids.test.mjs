// Tool-call ids that repeat: a model that numbers its calls per response (`call_0`, `call_1` in
// every step, as some OpenAI-compatible servers do), so that ids repeat between the steps of
// one UIMessage, between turns and after a restart of the route. The same chat runs through the
// SDK alone (its chat client, `convertToModelMessages` of the whole history each turn) and
// through the README's route (ChatCompaction with clearing, a small window: compactions between
// turns and between the steps of long tool loops); every prompt the model is sent is checked.
// Run by scripts/test-js against the packed tarball, with CC_AI_SDK naming the AI SDK majors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { estimate } from "context-compaction";
import { ChatCompaction, messageMetadata } from "context-compaction/ai-sdk";
import { ArrayState } from "./ai-sdk-chat-state.mjs";

const root = process.env.CC_AI_SDK ?? new URL(".", import.meta.url).pathname;
const require = createRequire(`${root}/package.json`);
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const sdk = {};
for (const major of [5, 6, 7]) sdk[major] = { ai: await load(`ai${major}`), mocks: await load(`ai${major}/test`) };

const SYSTEM = "You are a coding agent.";
const TURNS = 36;
const OPTIONS = { contextWindowTokens: 14_000, reserveTokens: 3_000, keepRecentTokens: 2_500, system: SYSTEM };
const BUDGET = OPTIONS.contextWindowTokens - OPTIONS.reserveTokens;

/** How many tool steps turn `turn` runs, and how many calls each step makes. */
const stepsOf = (turn) => (turn % 4 === 3 ? 9 : turn % 4 === 1 ? 2 : 0);
const callsIn = (turn, step) => (step % 3 === 1 ? 2 : 1);

/**
 * A provider whose model numbers its calls per response: every step's calls are `call_0`,
 * `call_1`, …; it records every prompt. Its tool reads a file of about 700 tokens.
 */
function provider(major) {
  const { ai, mocks } = sdk[major];
  const v2 = major === 5;
  const Mock = v2 ? mocks.MockLanguageModelV2 : mocks.MockLanguageModelV3;
  const log = { turn: 0, step: 0, prompts: [] };
  // The usage of a step: its request, and our estimate of the answer it produced.
  const finish = (reason, input, content) => {
    const output = estimate({ format: "ai-sdk", messages: [{ role: "assistant", content }] }).total;
    return v2
      ? { type: "finish", finishReason: reason, usage: { inputTokens: input, outputTokens: output, totalTokens: input + output } }
      : { type: "finish", finishReason: { unified: reason, raw: reason }, usage: { inputTokens: { total: input, noCache: input }, outputTokens: { total: output, text: output } } };
  };
  const stream = (chunks) => ({ stream: ai.simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...chunks] }) });
  const model = new Mock({
    doStream: async ({ prompt }) => {
      // What the provider counts: our estimate of the request (the system prompt as the route gives it).
      const count = estimate({ format: "ai-sdk", systemPrompt: SYSTEM, messages: prompt.filter((m) => m.role !== "system") }).total;
      log.prompts.push({ turn: log.turn, step: log.step, prompt: JSON.parse(JSON.stringify(prompt)), count });
      const step = log.step++;
      if (step < stepsOf(log.turn)) {
        const calls = Array.from({ length: callsIn(log.turn, step) }, (_, k) => ({ type: "tool-call", toolCallId: `call_${k}`, toolName: "read", input: JSON.stringify({ path: `src/t${log.turn}s${step}c${k}.ts` }) }));
        const content = calls.map(({ toolCallId, toolName, input }) => ({ type: "tool-call", toolCallId, toolName, input: JSON.parse(input) }));
        return stream([...calls, finish("tool-calls", count, content)]);
      }
      const answer = `Done with turn ${log.turn}.`;
      const text = [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: answer }, { type: "text-end", id: "t" }];
      return stream([...text, finish("stop", count, [{ type: "text", text: answer }])]);
    },
  });
  const file = (path) => Array.from({ length: 60 }, (_, i) => `${path}:${i} export const v${i} = f(${i});`).join("\n");
  const tools = { read: ai.tool({ description: "Read a file", inputSchema: ai.jsonSchema({ type: "object", properties: { path: { type: "string" } } }), execute: async ({ path }) => file(path) }) };
  return { ai, model, tools, log };
}

/** The POST of a route that sends the SDK its whole history every turn (no compaction). */
function sdkAlone({ ai, model, tools }, major, errors) {
  return async (request) => {
    const { messages } = await request.json();
    const result = ai.streamText({ model, ...(major === 7 ? { instructions: SYSTEM } : { system: SYSTEM }), tools, messages: await ai.convertToModelMessages(messages), stopWhen: ai.stepCountIs(30) });
    const onError = (error) => (errors.push(error), String(error?.message ?? error));
    return result.toUIMessageStreamResponse({ originalMessages: messages, generateMessageId: ai.generateId, onError });
  };
}

/** The README's route, its ChatCompaction made anew every `restartEvery` turns (a restart). */
function ourRoute({ ai, model, tools, log }, major, errors, options, restartEvery) {
  const store = new Map();
  let compaction = null;
  let made = -1;
  return async (request) => {
    if (compaction === null || log.turn - made >= restartEvery) {
      compaction?.free();
      compaction = new ChatCompaction({ ...options, summarizer: { summarize: async () => `Summary of the chat before turn ${log.turn}.` }, convertToModelMessages: ai.convertToModelMessages });
      made = log.turn;
    }
    const { id, messages } = await request.json();
    const chat = await compaction.prepare(messages, JSON.parse(store.get(id) ?? "null"));
    const result = ai.streamText({ model, ...(major === 7 ? { instructions: SYSTEM } : { system: SYSTEM }), tools, messages: chat.messages, prepareStep: chat.prepareStep, stopWhen: ai.stepCountIs(30) });
    const onError = (error) => (errors.push(error), String(error?.message ?? error));
    const save = ({ responseMessage }) => store.set(id, JSON.stringify(chat.stateAfter(responseMessage)));
    const stream =
      major === 7
        ? ai.toUIMessageStream({ stream: result.stream, tools, originalMessages: messages, generateMessageId: ai.generateId, messageMetadata, onError, onEnd: save })
        : result.toUIMessageStream({ originalMessages: messages, generateMessageId: ai.generateId, messageMetadata, onError, onFinish: save });
    return ai.createUIMessageStreamResponse({ stream });
  };
}

/** Where a prompt breaks the SDK's rule: a call without its result before the next message of another kind. */
function unanswered(prompt) {
  const open = new Set();
  for (const message of prompt) {
    if (message.role === "assistant") for (const part of message.content) if (part.type === "tool-call") open.add(part.toolCallId);
    if (message.role === "tool") for (const part of message.content) if (part.type === "tool-result") open.delete(part.toolCallId);
    if ((message.role === "user" || message.role === "system") && open.size > 0) return [...open];
  }
  return [...open];
}

/** The chat, turn by turn, through `route` with the SDK's own chat client; what went wrong where. */
async function converse(major, route) {
  const p = provider(major);
  const errors = [];
  const POST = route(p, errors);
  const { ai } = p;
  const chat = new (class extends ai.AbstractChat {})({
    id: "chat-1",
    state: new ArrayState(),
    transport: new ai.DefaultChatTransport({ api: "http://127.0.0.1/api/chat", fetch: async (url, init) => POST(new Request(url, init)) }),
  });
  const failures = [];
  for (let turn = 0; turn < TURNS; turn++) {
    Object.assign(p.log, { turn, step: 0 });
    const seen = errors.length;
    await chat.sendMessage({ text: `Turn ${turn}: read the files of step ${turn} and fix them. ${"Context. ".repeat(40)}` });
    while (chat.status === "submitted" || chat.status === "streaming") await new Promise((r) => setTimeout(r, 1));
    for (const error of errors.slice(seen)) failures.push({ turn, error: `${error?.name}: ${error?.message}` });
    if (chat.error && errors.length === seen) failures.push({ turn, error: `client: ${chat.error.message}` });
  }
  const broken = p.log.prompts.flatMap(({ turn, step, prompt }) => (unanswered(prompt).length ? [{ turn, step, ids: unanswered(prompt) }] : []));
  const over = p.log.prompts.filter(({ count }) => count > BUDGET).map(({ turn, step, count }) => ({ turn, step, count }));
  return { failures, broken, over, chat, log: p.log };
}

/** The placeholders of a prompt's tool results, each with the path its own call read (`null` when its input was cleared). */
function placeholders(prompt) {
  const out = [];
  let calls = new Map();
  for (const message of prompt) {
    if (typeof message.content === "string") continue;
    if (message.role === "assistant") calls = new Map(message.content.filter((p) => p.type === "tool-call").map((p) => [p.toolCallId, p.input?.path ?? null]));
    for (const part of message.content) {
      const text = part.type === "tool-result" ? part.output?.value : undefined;
      if (typeof text === "string" && text.startsWith("[Tool result cleared")) out.push({ text, path: calls.get(part.toolCallId) });
    }
  }
  return out;
}

const CLEARING = { ...OPTIONS, clearing: { protectRecentTokens: 1_500 } };

for (const major of [5, 6, 7]) {
  test(`ai ${major}: ids numbered per response (call_0 in every step and turn) pass the SDK alone: every prompt pairs each call with its result`, async () => {
    const alone = await converse(major, (p, errors) => sdkAlone(p, major, errors));
    assert.deepEqual(alone.failures, []);
    assert.deepEqual(alone.broken, []);
    // Ids did repeat: in one prompt, between the steps of one answer and between turns.
    const last = alone.log.prompts.at(-1).prompt;
    assert.ok(last.filter((m) => m.role === "assistant" && m.content.some?.((p) => p.toolCallId === "call_0")).length > 20);
  });

  test(`ai ${major}: the same chat through the route (clearing, compactions between turns and between steps, restarts): no SDK error, every prompt paired and within the budget, each placeholder names its own call, and the newest result is never cleared`, async () => {
    const ours = await converse(major, (p, errors) => ourRoute(p, major, errors, CLEARING, 5));
    assert.deepEqual(ours.failures, []);
    assert.deepEqual(ours.broken, []);
    assert.deepEqual(ours.over, []);
    let cleared = 0;
    for (const { turn, step, prompt } of ours.log.prompts) {
      for (const { text, path } of placeholders(prompt)) {
        cleared++;
        assert.ok(text.includes(`read of ${path},`), `turn ${turn}, step ${step}: ${text} stands for the result of ${path}`);
      }
      // Between steps the model is sent the results it just asked for.
      const newest = prompt.at(-1);
      if (step > 0) assert.ok(newest.role === "tool" && placeholders([newest]).length === 0, `turn ${turn}, step ${step}: the newest results were cleared`);
    }
    assert.ok(cleared > 0, "something was cleared");
    const summaries = new Set(ours.log.prompts.map((p) => JSON.stringify(p.prompt).match(/Summary of the chat before turn \d+/)?.[0]).filter(Boolean));
    assert.ok(summaries.size >= 1, "a summary was made");
  });
}

test("ai 7: a stored clearing of UIMessages whose steps all call call_0 names each result by its step: its own placeholder, the newest loop untouched", async () => {
  const { ai } = sdk[7];
  const file = (path) => Array.from({ length: 60 }, (_, i) => `${path}:${i} export const v${i} = f(${i});`).join("\n");
  const read = (path) => ({ type: "tool-read", toolCallId: "call_0", state: "output-available", input: { path }, output: file(path) });
  const answer = (turn, steps) => ({ id: `a${turn}`, role: "assistant", parts: [...Array.from({ length: steps }, (_, s) => [{ type: "step-start" }, read(`t${turn}s${s}.ts`)]).flat(), { type: "step-start" }, { type: "text", text: "Done." }] });
  const messages = [];
  for (let turn = 0; turn < 6; turn++) messages.push({ id: `u${turn}`, role: "user", parts: [{ type: "text", text: `Turn ${turn}` }] }, answer(turn, turn === 3 || turn === 5 ? 4 : 1));
  messages.push({ id: "u9", role: "user", parts: [{ type: "text", text: "next" }] });
  const options = { ...OPTIONS, contextWindowTokens: 12_000, reserveTokens: 2_000, clearing: { protectRecentTokens: 1_500, clearArguments: true }, summarizer: { summarize: async () => "S" }, convertToModelMessages: ai.convertToModelMessages };
  const route = new ChatCompaction(options);
  const first = await route.prepare(messages, null);
  assert.equal(first.reason, "cleared");
  // Each entry a placeholder of its own read; the 4-step loops' reads (call_0 in every step)
  // are left to a summary (the rewrite names results by id), the newest untouched.
  for (const entry of first.state.cleared) {
    assert.match(entry.text, new RegExp(`^\\[Tool result cleared to save context: read of t${entry.messageId.slice(1)}s0\\.ts`));
    assert.equal(entry.arguments, true);
  }
  const loop = (prompt) => prompt.filter((m) => m.role !== "user" && m.role !== "system").slice(-9);
  const kept = JSON.stringify(loop(first.messages));
  assert.ok(!kept.includes("Tool result cleared") && (kept.match(/"path":"t5s\d\.ts"/g) ?? []).length === 4, kept.slice(0, 300));
  // A step entry names one step: a stored clearing of step 2 of a3 (as a clearing between the
  // steps of its request stored it) leaves steps 1, 3 and 4.
  const text = "[Tool result cleared to save context: read of t3s1.ts]";
  const stored = { ...first.state, cleared: [...first.state.cleared, { messageId: "a3", toolCallId: "call_0", part: 2, text, arguments: true }] };
  const again = await route.prepare(messages, stored);
  const of = (prompt, role) => prompt.filter((m) => m.role === role && m.content.some?.((p) => p.toolCallId === "call_0")).slice(-9, -5);
  const results = of(again.messages, "tool").map((m) => m.content[0].output.value);
  assert.deepEqual(results.map((value) => value === text), [false, true, false, false]);
  const calls = of(again.messages, "assistant").map((m) => m.content[0].input);
  assert.deepEqual(calls, [{ path: "t3s0.ts" }, {}, { path: "t3s2.ts" }, { path: "t3s3.ts" }]);
  route.free();
});
