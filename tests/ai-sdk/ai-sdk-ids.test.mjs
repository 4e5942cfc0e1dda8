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

/** The state a `useChat` client keeps (what AbstractChat needs). */
class ArrayState {
  status = "ready";
  error = undefined;
  messages = [];
  pushMessage = (message) => (this.messages = [...this.messages, message]);
  popMessage = () => (this.messages = this.messages.slice(0, -1));
  replaceMessage = (index, message) => (this.messages = this.messages.map((m, i) => (i === index ? message : m)));
  snapshot = (value) => structuredClone(value);
}

/**
 * A provider whose model numbers its calls per response: every step's calls are `call_0`,
 * `call_1`, …; it records every prompt. Its tool reads a file of about 700 tokens.
 */
function provider(major) {
  const { ai, mocks } = sdk[major];
  const v2 = major === 5;
  const Mock = v2 ? mocks.MockLanguageModelV2 : mocks.MockLanguageModelV3;
  const log = { turn: 0, step: 0, prompts: [] };
  const finish = (reason, input) =>
    v2
      ? { type: "finish", finishReason: reason, usage: { inputTokens: input, outputTokens: 20, totalTokens: input + 20 } }
      : { type: "finish", finishReason: { unified: reason, raw: reason }, usage: { inputTokens: { total: input, noCache: input }, outputTokens: { total: 20, text: 20 } } };
  const stream = (chunks) => ({ stream: ai.simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...chunks] }) });
  const model = new Mock({
    doStream: async ({ prompt }) => {
      const count = estimate({ format: "ai-sdk", messages: prompt }).total;
      log.prompts.push({ turn: log.turn, step: log.step, prompt: JSON.parse(JSON.stringify(prompt)), count });
      const step = log.step++;
      if (step < stepsOf(log.turn)) {
        const calls = Array.from({ length: callsIn(log.turn, step) }, (_, k) => ({ type: "tool-call", toolCallId: `call_${k}`, toolName: "read", input: JSON.stringify({ path: `src/t${log.turn}s${step}c${k}.ts` }) }));
        return stream([...calls, finish("tool-calls", count)]);
      }
      const text = [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: `Done with turn ${log.turn}.` }, { type: "text-end", id: "t" }];
      return stream([...text, finish("stop", count)]);
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

export { converse, sdkAlone, ourRoute, OPTIONS };

if (process.env.IDS_EXPLORE) {
  for (const major of [5, 6, 7]) {
    const alone = await converse(major, (p, errors) => sdkAlone(p, major, errors));
    console.log(`ai ${major} alone`, JSON.stringify({ failures: alone.failures.slice(0, 3), nfail: alone.failures.length, broken: alone.broken.slice(0, 3), prompts: alone.log.prompts.length }));
    const ours = await converse(major, (p, errors) => ourRoute(p, major, errors, { ...OPTIONS, clearing: { protectRecentTokens: 1_500, clearArguments: true } }, 5));
    console.log(`ai ${major} route`, JSON.stringify({ failures: ours.failures.slice(0, 3), nfail: ours.failures.length, broken: ours.broken.slice(0, 3), over: ours.over.slice(0, 5), nover: ours.over.length, prompts: ours.log.prompts.length }));
  }
}
