// Round trips through the AI SDK chat route example (apps/ai-sdk/app/api/chat/route.ts, quoted
// in the README; apps/ai-sdk/route-ai5-ai6.ts for ai 5 and 6, and the agent recipe, agent.ts and
// agent-route.ts for ai 6 and 7, quoted in docs/recipes.md) with real `ai` 5, 6 and 7 and the
// SDK's mock models: the SDK's own chat client
// (`AbstractChat`, what `useChat` runs on, with its HTTP transport) posts 200 turns with tool
// calls, approvals and denials (ai 6 and 7) and one 28-step tool loop to the route, which stores
// its compaction state in JSON files. Every prompt the model received is then checked.
//   CC_ROOT=<repo> CC_TARBALL=<context-compaction-x.tgz> node --test tests/packaging/ai-sdk.test.mjs
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ArrayState, idle, installCached, run } from "./tools.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = process.env.CC_ROOT ?? join(here, "../..");
const tarball = process.env.CC_TARBALL;
const cache = process.env.CC_CACHE ?? join(homedir(), ".cache/context-compaction/packaging");
if (!tarball) throw new Error("set CC_TARBALL to the packed package (scripts/test-packaging does)");
const app = join(cache, "ai-sdk");
const TURNS = 200;
const LONG_TURN = 150;
const WINDOW = 128_000;
/** The route's input budget: the window less the default reserve of 16,384 tokens. */
const BUDGET = WINDOW - 16_384;

before(async () => {
  await installCached(join(here, "apps/ai-sdk"), app);
  await run("npm", ["install", "--no-save", "--prefer-offline", "--no-audit", "--no-fund", tarball], { cwd: app });
});

/**
 * The route example built against `ai` `version` (its own `node_modules/ai`), with the mock
 * provider; with `agent`, the agent recipe's route and agent in place of the route.
 */
async function routeFor(version, { agent = false } = {}) {
  const dir = join(app, agent ? `v${version}-agent` : `v${version}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(join(app, `node_modules/ai${version}`), join(dir, "node_modules/ai"));
  cpSync(join(app, "app"), join(dir, "app"), { recursive: true });
  // ai 5 and 6 have no standalone `toUIMessageStream`: their route uses the result's method.
  if (version < 7) cpSync(join(app, "route-ai5-ai6.ts"), join(dir, "app/api/chat/route.ts"));
  if (agent) {
    cpSync(join(app, "agent.ts"), join(dir, "app/agent.ts"));
    // ai 6 names the route's callback `onFinish` (docs/recipes.md says so under the recipe).
    const route = readFileSync(join(app, "agent-route.ts"), "utf8");
    writeFileSync(join(dir, "app/api/chat/route.ts"), version < 7 ? route.replace("onEnd: ", "onFinish: ") : route);
  }
  writeFileSync(
    join(dir, "app/model.js"),
    'import * as ai from "ai";\nimport * as mocks from "ai/test";\nimport { mockProvider } from "../../mock-provider.mjs";\n\nexport const { model, summaryModel, system, tools } = mockProvider(ai, mocks);\n',
  );
  // Imports made from the app's directory, resolved as its ES modules resolve them.
  writeFileSync(join(dir, "load.mjs"), "export const load = (name) => import(name);\n");
  const externals = ["ai", "ai/test", "context-compaction", "context-compaction/*"].map((name) => `--external:${name}`);
  await run(join(root, "node_modules/.bin/esbuild"), [join(dir, "app/api/chat/route.ts"), "--bundle", "--platform=node", "--format=esm", `--outfile=${join(dir, "route.mjs")}`, "--log-level=warning", ...externals]);
  return dir;
}

/** 200 turns of a coding chat through the route, as the SDK's chat client sends them. */
async function converse(version, turns = TURNS, { agent = false } = {}) {
  const dir = await routeFor(version, { agent });
  // The mock provider keeps this object from its first import (a route module loads once).
  const log = Object.assign((globalThis.__roundTrip ??= {}), { prompts: [], summaries: [], turn: 0, calls: {}, longTurn: LONG_TURN });
  process.env.CHAT_STATE_DIR = join(dir, ".chats");
  const { GET, POST } = await import(pathToFileURL(join(dir, "route.mjs")));
  const { load } = await import(pathToFileURL(join(dir, "load.mjs")));
  const ai = await load("ai");
  const chat = new (class extends ai.AbstractChat {})({
    id: "chat-1",
    state: new ArrayState(),
    transport: new ai.DefaultChatTransport({ api: "http://127.0.0.1/api/chat", fetch: async (url, init) => POST(new Request(url, init)) }),
    sendAutomaticallyWhen: ai.lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const approvals = { approved: 0, denied: 0 };
  for (let turn = 0; turn < turns; turn++) {
    log.turn = turn;
    await chat.sendMessage({ text: `Turn ${turn}: fix the failing step in module ${turn} and run the tests.` });
    await idle(chat);
    for (const part of chat.messages.at(-1).parts.filter((p) => p.state === "approval-requested")) {
      const approved = turn % 20 === 7;
      approvals[approved ? "approved" : "denied"]++;
      await chat.addToolApprovalResponse({ id: part.approval.id, approved });
      await idle(chat);
    }
  }
  const state = JSON.parse(readFileSync(join(dir, ".chats/chat-1.json"), "utf8") || "null");
  // Left for a look after a failure: every prompt and summary request.
  writeFileSync(join(dir, "log.json"), JSON.stringify(log));
  // What the page's preview reads after each response: the stored state, through the route's GET.
  const served = await (await GET(new Request("http://127.0.0.1/api/chat?id=chat-1"))).json();
  return { log, chat, approvals, state, served };
}

/** The highest "Summary #n" in a message (0 for none). */
const summaryNumber = (message) => Math.max(0, ...[...textOf(message).matchAll(/Summary #(\d+)/g)].map((m) => Number(m[1])));
const textOf = (message) => (typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join(""));

/** Tool calls and results of one prompt pair up exactly (no call without its result, no result without its call). */
function assertPaired(prompt, where) {
  const calls = new Set();
  const results = new Set();
  for (const message of prompt) {
    if (typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-call") calls.add(part.toolCallId);
      if (part.type === "tool-result") results.add(part.toolCallId);
    }
  }
  assert.deepEqual([...calls].filter((id) => !results.has(id)), [], `${where}: tool calls sent without their result`);
  assert.deepEqual([...results].filter((id) => !calls.has(id)), [], `${where}: tool results sent without their call`);
}

function checkRoundTrips({ log, state }, version) {
  assert.ok(log.summaries.length >= 3, `ai ${version}: ${log.summaries.length} summaries in ${TURNS} turns (the history is about 4× the window)`);
  let summariesSeen = 0;
  for (const [index, { turn, prompt, count }] of log.prompts.entries()) {
    const where = `ai ${version}, prompt ${index} (turn ${turn})`;
    assertPaired(prompt, where);
    // The provider counts 25% more than our estimate; the route reads what it counted (the
    // route records it with messageMetadata, prepareStep reads the steps'): never over the budget.
    assert.ok(count <= BUDGET, `${where}: the provider counted ${count} tokens, over the ${BUDGET}-token input budget`);
    // Within the window: without compaction the history grows to 1.6M characters.
    assert.ok(JSON.stringify(prompt).length < WINDOW * 3, `${where}: ${JSON.stringify(prompt).length} characters`);
    // The latest summary, projected first (after the system prompt), once there is one.
    // (A compaction that splits a turn asks for two summaries, so one may carry two numbers.)
    const first = prompt.find((message) => message.role !== "system");
    const number = summaryNumber(first);
    if (summariesSeen > 0) assert.ok(number >= summariesSeen, `${where}: the first message is not the latest summary: ${textOf(first).slice(0, 200)}`);
    summariesSeen = Math.max(summariesSeen, number);
    assert.equal(prompt.filter((message) => summaryNumber(message) > 0).length, number ? 1 : 0, `${where}: one summary, first`);
  }
  assert.equal(summariesSeen, log.summaries.length, `ai ${version}: the model saw every summary`);
  // Never re-summarized: every turn's user message and every file read (its path) reaches one summary at most.
  const seen = new Map();
  for (const [index, prompt] of log.summaries.entries()) {
    // The messages to summarize (the previous summary, quoted apart, lists files read before).
    const quoted = (message) => [...textOf(message).matchAll(/<(conversation|turn-prefix)>([\s\S]*)<\/\1>/g)].map((m) => m[2]);
    const text = prompt.filter((message) => message.role === "user").flatMap(quoted).join("\n");
    for (const marker of new Set(text.match(/Turn \d+:|module\d+-\d+\.ts/g))) {
      assert.equal(seen.get(marker), undefined, `ai ${version}: ${marker} summarized in summaries ${seen.get(marker)} and ${index}`);
      seen.set(marker, index);
    }
  }
  for (const marker of ["Turn 0:", `module${LONG_TURN}-1.ts`]) assert.ok(seen.has(marker), `ai ${version}: ${marker} was never summarized`);
  assert.equal(state.summary.includes(`Summary #${log.summaries.length}`), true, `ai ${version}: the stored state holds the latest summary`);
}

for (const version of [5, 6, 7]) {
  test(`ai ${version}: ${TURNS} turns through the route compact when due, pair every tool call, never re-summarize, send the summary first`, async () => {
    const result = await converse(version);
    checkRoundTrips(result, version);
    assert.deepEqual(result.served, result.state, `ai ${version}: the route's GET serves the stored state`);
    // The 28-step loop of one request compacted between its steps (prepareStep).
    const long = result.log.prompts.filter((p) => p.turn === LONG_TURN).map((p) => summaryNumber(p.prompt.find((m) => m.role !== "system")));
    assert.notEqual(long[0], long.at(-1), `ai ${version}: no compaction inside the long tool loop`);
    if (version >= 6) assert.ok(result.approvals.approved > 0 && result.approvals.denied > 0, JSON.stringify(result.approvals));
  });
}

// The agent recipe (docs/recipes.md): ToolLoopAgent with createAgentUIStreamResponse, the chat
// prepared by ChatCompaction passed as the agent's call options.
for (const version of [6, 7]) {
  test(`ai ${version}: the agent recipe: ${TURNS} turns compact when due, pair every tool call, never re-summarize, send the summary first`, async () => {
    const result = await converse(version, TURNS, { agent: true });
    checkRoundTrips(result, version);
    assert.deepEqual(result.served, result.state, `ai ${version}: the agent route's GET serves the stored state`);
    const long = result.log.prompts.filter((p) => p.turn === LONG_TURN).map((p) => summaryNumber(p.prompt.find((m) => m.role !== "system")));
    assert.notEqual(long[0], long.at(-1), `ai ${version}: no compaction inside the agent's long tool loop`);
    assert.ok(result.approvals.approved > 0 && result.approvals.denied > 0, JSON.stringify(result.approvals));
  });
}

test("the route example and the agent recipe type-check with ai 5, 6 and 7 (strict, no casts) and stay short", async () => {
  const route = readFileSync(join(here, "apps/ai-sdk/app/api/chat/route.ts"), "utf8");
  const code = route.split("\n").filter((line) => line.trim() && !line.trim().startsWith("//"));
  // 22 lines of code before the route answered the page's GET for its state (the preview's).
  assert.ok(code.length <= 30, `${code.length} lines of code`);
  for (const file of ["app/api/chat/route.ts", "route-ai5-ai6.ts", "agent.ts", "agent-route.ts"]) {
    assert.doesNotMatch(readFileSync(join(here, "apps/ai-sdk", file), "utf8"), /\bas\b(?! the)|\bany\b|@ts-/, `${file}: no casts`);
  }
  for (const [version, agent] of [[5, false], [6, false], [7, false], [6, true], [7, true]]) {
    const dir = await routeFor(version, { agent });
    // The provider module as an application types it.
    writeFileSync(
      join(dir, "app/model.d.ts"),
      'import type { LanguageModel, ToolSet } from "ai";\n\nexport declare const model: LanguageModel;\nexport declare const summaryModel: LanguageModel;\nexport declare const system: string;\nexport declare const tools: ToolSet;\n',
    );
    const compilerOptions = { target: "es2022", module: "esnext", moduleResolution: "bundler", strict: true, noEmit: true, skipLibCheck: true, lib: ["es2022", "dom"], types: ["node"], typeRoots: ["../node_modules/@types"] };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["app/**/*.ts"] }));
    await run(join(app, "node_modules/.bin/tsc"), ["-p", join(dir, "tsconfig.json")], { cwd: dir });
  }
});

/** `ai` `version` and context-compaction's entries, as the route example's build loads them. */
async function modules(version) {
  const { load } = await import(pathToFileURL(join(app, `v${version}/load.mjs`)));
  return { ai: await load("ai"), mocks: await load("ai/test"), cc: await load("context-compaction"), entry: await load("context-compaction/ai-sdk") };
}

for (const version of [5, 7]) {
  test(`ai ${version}: aiSdkSummarizer maps usage, retries what the SDK calls retryable, never twice, and cancels`, async () => {
    await routeFor(version);
    const { ai, mocks, cc, entry } = await modules(version);
    const Mock = mocks.MockLanguageModelV3 ?? mocks.MockLanguageModelV2;
    const v3 = Boolean(mocks.MockLanguageModelV3);
    const usage = v3
      ? { inputTokens: { total: 1000, noCache: 700, cacheRead: 200, cacheWrite: 100 }, outputTokens: { total: 40, text: 40, reasoning: 0 } }
      : { inputTokens: 1000, outputTokens: 40, totalTokens: 1040, cachedInputTokens: 200 };
    const answer = { content: [{ type: "text", text: "## Goal\nShip it." }], finishReason: v3 ? { unified: "stop", raw: "stop" } : "stop", usage, warnings: [] };
    const apiError = (statusCode, isRetryable) => new ai.APICallError({ message: `HTTP ${statusCode ?? "none"}`, url: "http://127.0.0.1/v1", requestBodyValues: {}, statusCode, isRetryable });
    const compactWith = async (failures, options = {}) => {
      let calls = 0;
      const model = new Mock({
        doGenerate: async ({ abortSignal }) => {
          calls++;
          if (options.hang) await new Promise((_, reject) => abortSignal.addEventListener("abort", () => reject(abortSignal.reason)));
          if (failures.length) throw failures.shift();
          return answer;
        },
      });
      const compactor = new cc.Compactor({ keepRecentTokens: 1, summarizer: entry.aiSdkSummarizer({ model, generateText: ai.generateText, retry: { delaysMs: [0, 0] } }) });
      const messages = [
        { role: "user", content: `Fix the build. ${"The log says the step failed. ".repeat(200)}` },
        { role: "assistant", content: `Fixed. ${"Changed the step. ".repeat(200)}` },
        { role: "user", content: "Thanks." },
      ];
      try {
        return { result: await compactor.compact({ format: "ai-sdk", messages, requireReduction: true }, { signal: options.signal }), calls };
      } catch (error) {
        return { error, calls };
      }
    };
    const ok = await compactWith([]);
    assert.equal(ok.calls, 1);
    assert.match(ok.result.summary, /Ship it/);
    const expected = v3 ? { input: 700, output: 40, cacheRead: 200, cacheWrite: 100, totalTokens: 1040 } : { input: 800, output: 40, cacheRead: 200, cacheWrite: 0, totalTokens: 1040 };
    assert.deepEqual(ok.result.record.usage, expected);
    // 503 and a connection failure (isRetryable, no status) are retried by the package, once each.
    assert.equal((await compactWith([apiError(503), apiError(undefined, true)])).calls, 3);
    // 400 is not retried; the SDK's error is the cause, same object.
    const bad = apiError(400);
    const refused = await compactWith([bad]);
    assert.equal(refused.calls, 1);
    assert.equal(refused.error.code, "summarization");
    assert.equal(refused.error.cause, bad);
    // Three failures: one attempt and two retries, no retries inside generateText (maxRetries 0).
    assert.equal((await compactWith([apiError(500), apiError(500), apiError(500)])).calls, 3);
    // Cancelled through the signal while the model call runs.
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const cancelled = await compactWith([], { hang: true, signal: controller.signal });
    assert.equal(cancelled.error.code, "aborted");
  });
}

test("ai 7: ChatPreview plans useChat's messages where the route would cut, cheaply", async () => {
  const { log, chat } = await converse(7, 60);
  const { ai, entry } = await modules(7);
  assert.ok(log.prompts.length > 0);
  const messages = chat.messages;
  const options = { contextWindowTokens: 40_000, keepRecentTokens: 8_000, system: "You are a coding agent." };
  const preview = new entry.ChatPreview(options);
  preview.update(messages);
  const plan = preview.plan();
  assert.ok(plan, "60 turns are over a 40k window");
  // The route's ChatCompaction cuts at the same message and part.
  const compaction = new entry.ChatCompaction({ ...options, summarizer: { summarize: async () => "S" }, convertToModelMessages: ai.convertToModelMessages });
  const prepared = await compaction.prepare(messages, null);
  assert.equal(prepared.compacted, true);
  assert.deepEqual([plan.firstKeptId, plan.firstKeptPart], [prepared.state.firstKeptId, prepared.state.firstKeptPart]);
  const at = plan.messages.findIndex((m) => m.id === plan.firstKeptId);
  assert.ok(plan.messages.slice(0, at).every((m) => m.fate === "summarized"));
  assert.ok(plan.messages.slice(at + 1).every((m) => m.fate === "kept"));
  // With the state stored, the preview plans from the summary on (nothing left to do right after).
  preview.update(messages, prepared.state);
  assert.equal(preview.plan(), null);
  // Per keystroke: plan() again, and an append, stay far below a frame.
  preview.update(messages);
  const start = performance.now();
  for (let i = 0; i < 200; i++) preview.plan();
  const perPlan = (performance.now() - start) / 200;
  assert.ok(perPlan < 2, `${perPlan.toFixed(3)} ms per plan`);
  preview.free();
  compaction.free();
});

for (const version of [5, 6, 7]) {
  test(`ai ${version}: compaction.prepareStep() compacts a generateText tool loop between steps and keeps it`, async () => {
    await routeFor(version);
    const { ai, mocks, entry } = await modules(version);
    const v3 = Boolean(mocks.MockLanguageModelV3);
    const finish = (reason) => (v3 ? { unified: reason, raw: reason } : reason);
    const usage = v3 ? { inputTokens: { total: 10, noCache: 10 }, outputTokens: { total: 1 } } : { inputTokens: 10, outputTokens: 1, totalTokens: 11 };
    const prompts = [];
    const model = new (mocks.MockLanguageModelV3 ?? mocks.MockLanguageModelV2)({
      doGenerate: async ({ prompt }) => {
        prompts.push(JSON.parse(JSON.stringify(prompt)));
        const n = prompts.length;
        const content = n <= 12 ? [{ type: "tool-call", toolCallId: `c${n}`, toolName: "read", input: JSON.stringify({ path: `f${n}.ts` }) }] : [{ type: "text", text: "done" }];
        return { content, finishReason: finish(n <= 12 ? "tool-calls" : "stop"), usage, warnings: [] };
      },
    });
    const summarized = [];
    const compaction = new entry.ChatCompaction({
      contextWindowTokens: 12_000,
      reserveTokens: 2_000,
      keepRecentTokens: 3_000,
      summarizer: {
        summarize: async ({ messages, turnPrefixMessages }) => {
          summarized.push([...new Set(JSON.stringify([...messages, ...turnPrefixMessages]).match(/"c\d+"/g))]);
          return `Summary #${summarized.length}`;
        },
      },
      convertToModelMessages: ai.convertToModelMessages,
    });
    const read = { description: "Read a file", inputSchema: ai.jsonSchema({ type: "object", properties: { path: { type: "string" } } }), execute: async ({ path }) => `${path}\n${"const x = 1;\n".repeat(600)}` };
    const result = await ai.generateText({ model, tools: { read }, prompt: "Read twelve files.", stopWhen: ({ steps }) => steps.length >= 20, prepareStep: compaction.prepareStep() });
    assert.equal(result.text, "done");
    assert.ok(summarized.length >= 2, `${summarized.length} compactions in a 12-step loop of about 3k tokens a step over a 10k budget`);
    let latest = 0;
    for (const [index, prompt] of prompts.entries()) {
      assertPaired(prompt, `ai ${version}, step ${index}`);
      const number = summaryNumber(prompt.find((message) => message.role !== "system"));
      assert.ok(number >= latest, `step ${index}: Summary #${number} after #${latest}`);
      latest = number;
      assert.ok(JSON.stringify(prompt).length < 12_000 * 4, `step ${index}: ${JSON.stringify(prompt).length} characters`);
    }
    assert.equal(latest, summarized.length, "the last summary reached the model");
    const ids = summarized.flat();
    assert.equal(new Set(ids).size, ids.length, `a tool call summarized twice: ${ids}`);
    compaction.free();
  });
}

test("ai 7: bad messages and states are a CompactionError naming the place", async () => {
  await routeFor(7);
  const { ai, entry } = await modules(7);
  const compaction = new entry.ChatCompaction({ contextWindowTokens: 1000, summarizer: { summarize: async () => "S" }, convertToModelMessages: ai.convertToModelMessages });
  const trap = new Proxy({}, { get: () => { throw new Error("trap"); } });
  const cases = [
    [null, null, /messages must be an array/],
    [[{ id: 1, role: "user", parts: [] }], null, /messages\[0\]\.id must be a string/],
    [[{ id: "a", role: "user", parts: [trap] }], null, /convertToModelMessages rejected message a: trap/],
    [[{ id: "a", role: "user", parts: [] }], { summary: "S", firstKeptId: "a", firstKeptPart: -1 }, /state must be null or/],
  ];
  for (const [messages, state, message] of cases) {
    await assert.rejects(compaction.prepare(messages, state), (error) => error.code === "invalid_request" && message.test(error.message));
  }
  assert.throws(() => new entry.ChatPreview({ contextWindowTokens: 1000 }).update("x"), (error) => error.code === "invalid_request");
  assert.throws(() => new entry.ChatCompaction({ contextWindowTokens: 1000, summarizer: { summarize: async () => "S" } }), (error) => error.code === "invalid_config");
  assert.throws(() => entry.aiSdkSummarizer({ model: "m" }), (error) => error.code === "invalid_config");
  compaction.free();
});
