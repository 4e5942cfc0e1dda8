// `context-compaction/plan`: planning and estimating on the plan-only WebAssembly module. It
// gives what the whole package gives (plans, bytes plans, clear plans, conversations,
// estimates) on the real session in every format; it offers the names plan.d.ts declares; and
// it never reaches the whole module. `context-compaction/ai-sdk-preview` (`ChatPreview`) loads
// the preview module alone (the plan-only one in workerd and edge runtimes), which reads
// UIMessages only and refuses every other format by name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import * as whole from "context-compaction";
import * as planOnly from "context-compaction/plan";
import { reachedFiles } from "./package-files.mjs";
import { sessionMessages } from "./walk-helpers.mjs";

const require = createRequire(import.meta.url);
const dir = dirname(require.resolve("context-compaction/package.json"));
const { aiSdk, aiSdkUi, anthropic, openAIChat, openAIResponses } = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);
const formats = [["canonical", (m) => m], ["openai-chat", openAIChat], ["openai-responses", openAIResponses], ["anthropic", anthropic], ["ai-sdk", aiSdk], ["ai-sdk-ui", aiSdkUi]];
const budget = 60_000;

/** The values plan.d.ts declares: its classes and functions, and what it re-exports (not types). */
function declared() {
  const text = readFileSync(join(dir, "plan.d.ts"), "utf8");
  const own = [...text.matchAll(/^export declare (?:class|function|const) (\w+)/gm)].map((m) => m[1]);
  const again = [...text.matchAll(/^export \{([^}]*)\} from/gm)].flatMap((m) => m[1].split(",").map((name) => name.trim()));
  return [...new Set([...own, ...again])].sort();
}
const names = (module) => Object.keys(module).filter((k) => k !== "default" && k !== "__esModule").sort();

test("the plan entry offers, as ES module and CommonJS, the names plan.d.ts declares", () => {
  const want = declared();
  assert.deepEqual(want, ["CompactionError", "Compactor", "HeuristicEstimator", "estimate", "ready"]);
  assert.deepEqual(names(planOnly), want, "import");
  assert.deepEqual(names(require("context-compaction/plan")), want, "require");
  assert.equal(require("context-compaction/plan").Compactor, planOnly.Compactor, "one instance for import and require");
  // One error class for the whole package.
  assert.equal(planOnly.CompactionError, whole.CompactionError);
});

test("context-compaction/ai-sdk-preview's ChatPreview previews a chat as context-compaction/ai-sdk's does", async () => {
  const preview = await import("context-compaction/ai-sdk-preview");
  assert.deepEqual(names(preview), ["ChatPreview", "ready"]);
  await preview.ready();
  assert.equal(require("context-compaction/ai-sdk-preview").ChatPreview, preview.ChatPreview, "one instance for import and require");
  const { ChatPreview } = await import("context-compaction/ai-sdk");
  const messages = aiSdkUi(sessionMessages());
  for (const clearing of [undefined, true]) {
    const options = { contextWindowTokens: 80_000, keepRecentTokens: 8_000, ...(clearing ? { clearing } : {}) };
    const [a, b] = [new ChatPreview(options), new preview.ChatPreview(options)];
    for (const upTo of [40, messages.length]) {
      a.update(messages.slice(0, upTo));
      b.update(messages.slice(0, upTo));
      assert.deepEqual(b.plan(), a.plan(), `${upTo} messages, clearing ${clearing}`);
    }
    assert.ok(a.plan(), "the session is over the window");
    a.free();
    b.free();
  }
});

test("the plan entries (Node, workerd, edge-light) re-export lib/plan-exports.js and nothing else", () => {
  for (const entry of ["plan.js", "plan-workerd.js", "plan-edge-light.js"]) {
    const exported = readFileSync(join(dir, entry), "utf8")
      .split("\n")
      .filter((line) => /^\s*export\b/.test(line));
    assert.deepEqual(exported, ['export * from "./lib/plan-exports.js";'], entry);
  }
});

/** The package's files a module reaches through its static imports. */
const reached = (file) => reachedFiles(dir, [file]);

test("the plan entry and ChatPreview never reach the whole module; ChatPreview's page entry only the preview one", () => {
  for (const entry of ["plan.js", "plan-workerd.js", "plan-edge-light.js", "ai-sdk-preview.js", "ai-sdk-preview-plan.js"]) {
    const files = reached(entry);
    for (const full of ["context_compaction_bg.js", "wasm-inline.js", "load/whole.js", "lib/exports.js"]) assert.ok(!files.has(full), `${entry} reaches ${full}`);
    const [want, other] = entry === "ai-sdk-preview.js" ? ["preview", "plan"] : ["plan", "preview"];
    assert.ok(files.has(`context_compaction_${want}_bg.js`), `${entry} loads the ${want} module`);
    assert.ok(!files.has(`context_compaction_${other}_bg.js`) && !files.has(`${other}-wasm-inline.js`), `${entry} reaches the ${other} module`);
  }
  assert.ok(reached("ai-sdk-preview.js").has("preview-wasm-inline.js"));
  // The preview module sizes no messages: its page does not carry the sizer; the others do.
  assert.ok(!reached("ai-sdk-preview.js").has("host/size.js"), "ai-sdk-preview.js reaches host/size.js");
  for (const entry of ["plan.js", "ai-sdk-preview-plan.js", "index.js"]) assert.ok(reached(entry).has("host/size.js"), `${entry} has no sizer`);
  // Runtimes that compile no bytes take the plan-only module's file for ChatPreview.
  const conditions = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).exports["./ai-sdk-preview"];
  assert.equal(conditions.workerd.default, "./ai-sdk-preview-plan.js");
  assert.equal(conditions["edge-light"].default, "./ai-sdk-preview-plan.js");
  assert.equal(conditions.default.default, "./ai-sdk-preview.js");
  assert.ok(reached("plan.js").has("plan-wasm-inline.js"));
  // The workerd and edge entries import the plan-only .wasm file.
  assert.match(readFileSync(join(dir, "plan-workerd.js"), "utf8"), /from "\.\/context_compaction_plan\.wasm"/);
  assert.match(readFileSync(join(dir, "plan-edge-light.js"), "utf8"), /from "\.\/context_compaction_plan\.wasm\?module"/);
  // The sanity check of the walk: the whole entry does reach the whole module.
  assert.ok(reached("index.js").has("wasm-inline.js"));
});

test("the plan-only Compactor has no apply, compact or summarizerInput, and needs no summarizer", () => {
  const compactor = new planOnly.Compactor();
  for (const method of ["apply", "compact", "summarizerInput"]) assert.equal(compactor[method], undefined, method);
  for (const method of ["plan", "planBytes", "clearableResults", "conversation", "free"]) assert.equal(typeof compactor[method], "function", method);
  compactor.free();
  // A bad config is refused as by the whole Compactor.
  for (const config of [{ keepRecentTokens: -1 }, { triggerRatio: "high" }, { clearing: 3 }, "config"]) {
    const refused = (Class, summarizer) => {
      try {
        new Class(typeof config === "object" ? { ...config, ...summarizer } : config).free();
        return null;
      } catch (error) {
        assert.ok(error instanceof whole.CompactionError, String(error));
        return [error.code, error.message];
      }
    };
    const wholeRefusal = refused(whole.Compactor, { summarizer: { summarize: async () => "" } });
    assert.notEqual(wholeRefusal, null, JSON.stringify(config));
    assert.deepEqual(refused(planOnly.Compactor, {}), wholeRefusal, JSON.stringify(config));
  }
  // A getter of the config that throws is an invalid_config error naming the key, as there.
  const config = {
    get keepRecentTokens() {
      throw new Error("no");
    },
  };
  assert.throws(() => new planOnly.Compactor(config), (error) => error.code === "invalid_config" && /keepRecentTokens/.test(error.message));
});

test("the plan-only module reads no summarizer: one the whole module refuses is ignored", async () => {
  // The module's own class, under the entry's wrapper (which hands it a summarizer of its own):
  // the code that reads and checks a summarizer is left out of the plan-only module.
  new planOnly.Compactor().free();
  const glue = await import(pathToFileURL(join(dir, "context_compaction_plan_bg.js")).href);
  const wholeGlue = await import(pathToFileURL(join(dir, "context_compaction_bg.js")).href);
  new whole.Compactor({ summarizer: { summarize: async () => "" } }).free();
  for (const summarizer of [{ generate: async () => "", retry: 5 }, { generate: async () => "" }, 3]) {
    assert.throws(() => new wholeGlue.Compactor({ summarizer }), (error) => error.code === "invalid_config");
    new glue.Compactor({ summarizer, keepRecentTokens: 10 }).free();
  }
});

/** Both packages' compactors, with `options` (clearing, keepRecentTokens). */
function both(options) {
  return [new whole.Compactor({ ...options, summarizer: { summarize: async () => "" } }), new planOnly.Compactor(options)];
}

for (const [format, convert] of formats) {
  test(`${format}: the plan-only module plans, estimates and clears the real session as the whole one does`, () => {
    const messages = convert(sessionMessages());
    for (const options of [{ keepRecentTokens: 8_000 }, { keepRecentTokens: 8_000, clearing: true }]) {
      const [a, b] = both(options);
      for (const estimator of [undefined, [new whole.HeuristicEstimator({ imageTokens: 900 }), new planOnly.HeuristicEstimator({ imageTokens: 900 })]]) {
        const request = (which) => ({ format, messages, systemPrompt: "You help.", inputTokenBudget: budget, ...(estimator ? { estimator: estimator[which] } : {}) });
        const want = a.plan(request(0));
        assert.ok(want, `${format}: the session is over the budget`);
        assert.deepEqual(b.plan(request(1)), want);
        assert.deepEqual(b.clearableResults(request(1)), a.clearableResults(request(0)));
        assert.deepEqual(planOnly.estimate(request(1)), whole.estimate(request(0)));
        const body = JSON.stringify(messages);
        const { messages: _, ...rest } = request(1);
        const bytes = b.planBytes(body, rest);
        assert.deepEqual(bytes, a.planBytes(body, { ...rest, ...(estimator ? { estimator: estimator[0] } : {}) }));
        const conversations = [a, b].map((c, i) => c.conversation({ format, ...(estimator ? { estimator: estimator[i] } : {}) }));
        for (const c of conversations) c.append(messages.slice(0, 200));
        assert.deepEqual(conversations[1].plan({ inputTokenBudget: 20_000 }), conversations[0].plan({ inputTokenBudget: 20_000 }));
        for (const c of conversations) c.append(messages.slice(200));
        assert.deepEqual(conversations[1].plan({ inputTokenBudget: budget }), conversations[0].plan({ inputTokenBudget: budget }));
        for (const c of conversations) c.free();
      }
      a.free();
      b.free();
    }
  });
}

test("a HeuristicEstimator counts the same in both modules", () => {
  const texts = ["", "hello world", "fn main() { println!(\"{}\", 1 + 2); }", "日本語のテキスト", "x".repeat(10_000)];
  const [a, b] = [new whole.HeuristicEstimator(), new planOnly.HeuristicEstimator({ imageTokens: 1_200 })];
  const c = new whole.HeuristicEstimator({ imageTokens: 1_200 });
  for (const text of texts) assert.equal(b.countTokens(text), a.countTokens(text), text.slice(0, 20));
  assert.equal(b.imageTokens, c.imageTokens);
  for (const e of [a, b, c]) e.free();
});

test("the preview module has what ChatPreview calls and refuses every format but ai-sdk-ui by name", async () => {
  const preview = await import("context-compaction/ai-sdk-preview");
  await preview.ready();
  // The module the entry loaded (the same file, so the same instance).
  const glue = await import(pathToFileURL(join(dir, "context_compaction_preview_bg.js")).href);
  // Its classes (the glue's own functions have one-letter names, scripts/short-imports.mjs).
  assert.deepEqual(Object.keys(glue).filter((k) => /^[A-Z][a-z]/.test(k)).sort(), ["Compactor", "Conversation"]);
  const compactor = new glue.Compactor({ keepRecentTokens: 1_000 });
  for (const method of ["conversation", "clearableResults", "covers", "free"]) assert.equal(typeof compactor[method], "function", method);
  for (const method of ["plan", "planBytes", "digest", "apply", "compact", "draft", "commit", "summarizerInput"]) assert.equal(compactor[method], undefined, method);
  assert.equal(glue.estimate, undefined);
  // Only Compactor.plan defers a plan's messageTokens.
  assert.equal(glue.__fillDeferred, undefined);
  // A conversation has what ChatPreview calls, not the getters it never reads.
  for (const name of ["append", "reset", "plan", "free"]) assert.equal(typeof glue.Conversation.prototype[name], "function", name);
  assert.ok(Object.getOwnPropertyDescriptor(glue.Conversation.prototype, "messages")?.get);
  for (const name of ["length", "format"]) assert.equal(Object.getOwnPropertyDescriptor(glue.Conversation.prototype, name), undefined, name);
  for (const [format] of formats.filter(([f]) => f !== "ai-sdk-ui")) {
    const refused = (error) =>
      error instanceof whole.CompactionError && error.code === "invalid_request" && error.message === `invalid request: format: "${format}" is not in this build of the module, which reads "ai-sdk-ui"`;
    assert.throws(() => compactor.conversation({ format }), refused, format);
    assert.throws(() => compactor.clearableResults({ format, messages: [] }), refused, format);
  }
  // The options ChatPreview never passes are refused by name, not ignored.
  const notRead = (name) => (error) => error.code === "invalid_request" && error.message === `invalid request: ${name}: not read by ChatPreview's module (context-compaction/ai-sdk-preview); plan with context-compaction/plan`;
  const ui = { format: "ai-sdk-ui", messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "hi" }] }] };
  assert.throws(() => compactor.clearableResults({ ...ui, tools: [{ name: "read" }] }), notRead("tools"));
  assert.throws(() => compactor.clearableResults({ ...ui, reportedUsage: { messages: 1, inputTokens: 10 } }), notRead("reportedUsage"));
  assert.throws(() => compactor.clearableResults({ ...ui, pinned: [0] }), notRead("pinned"));
  // A system prompt as text blocks (Anthropic's `system`); a string is read as in every module.
  assert.throws(() => compactor.clearableResults({ ...ui, systemPrompt: [{ type: "text", text: "be brief" }] }), notRead("systemPrompt"));
  assert.deepEqual(compactor.clearableResults({ ...ui, systemPrompt: "be brief" }), []);
  assert.throws(() => compactor.conversation({ ...ui, pinned: true }), notRead("options.pinned"));
  // What only a summary reads, and the provider window's mode (ChatPreview plans with the default).
  assert.throws(() => compactor.clearableResults({ ...ui, focus: "the schema" }), notRead("focus"));
  assert.throws(() => compactor.clearableResults({ ...ui, providerCompaction: "ignore" }), notRead("providerCompaction"));
  assert.throws(() => compactor.conversation({ ...ui, providerCompaction: "window" }), notRead("providerCompaction"));
  // Invalid config, as every config option's error.
  const notReadConfig = (name) => (error) => error.code === "invalid_config" && error.message.endsWith(`${name}: not read by ChatPreview's module (context-compaction/ai-sdk-preview); plan with context-compaction/plan`);
  assert.throws(() => new glue.Compactor({ fileTracking: { readTools: ["read"] } }), notReadConfig("config.fileTracking"));
  for (const absent of [undefined, null]) new glue.Compactor({ fileTracking: absent }).free();
  // The facts cache is always on (ChatPreview never turns it off).
  for (const flag of [false, true]) assert.throws(() => new glue.Compactor({ cacheFacts: flag }), notReadConfig("config.cacheFacts"));
  for (const absent of [undefined, null]) new glue.Compactor({ cacheFacts: absent }).free();
  // A draft's usage (the record's, at commit: ChatPreview hands over none).
  const draft = { summary: "s", digest: "0".repeat(16), previousDigest: "0".repeat(16), firstKeptIndex: 1 };
  assert.equal(compactor.covers(ui, draft), false);
  assert.equal(compactor.covers(ui, { ...draft, usage: null }), false);
  assert.throws(() => compactor.covers(ui, { ...draft, usage: { input: 1 } }), notRead("draft.usage"));
  const handle = compactor.conversation(ui);
  assert.throws(() => handle.plan({ tools: [{ name: "read" }] }), notRead("tools"));
  assert.throws(() => handle.plan({ inputTokenBudget: 10, pending: { ...draft, usage: { input: 1 } } }), notRead("draft.usage"));
  handle.free();
  for (const absent of [undefined, null]) assert.deepEqual(compactor.clearableResults({ ...ui, tools: absent, reportedUsage: absent, pinned: absent, focus: absent, providerCompaction: absent }), []);
  // Without a format (canonical by default), reading a message is refused the same way.
  assert.throws(() => compactor.conversation({ messages: [{ role: "user", content: "hi" }] }), (error) => error.code === "invalid_request" && /"canonical" is not in this build/.test(error.message));
  const messages = aiSdkUi(sessionMessages()).slice(0, 60);
  const conversation = compactor.conversation({ format: "ai-sdk-ui", messages });
  const wholeCompactor = new whole.Compactor({ keepRecentTokens: 1_000, summarizer: { summarize: async () => "" } });
  const reference = wholeCompactor.conversation({ format: "ai-sdk-ui", messages });
  // A summary plan is the whole module's but for its message arrays, which ChatPreview never
  // reads (nor the trimmed copy of a split message that ends turnPrefixMessages).
  const wanted = reference.plan({ inputTokenBudget: 5_000 });
  const { messagesToSummarize: summarized, turnPrefixMessages: prefix, ...wantedRest } = wanted;
  assert.ok(summarized.length > 0);
  const got = conversation.plan({ inputTokenBudget: 5_000 });
  for (const key of ["messagesToSummarize", "turnPrefixMessages"]) assert.equal(key in got, false, key);
  assert.deepEqual(got, wantedRest);
  for (const c of [conversation, reference, compactor, wholeCompactor]) c.free();
  // A clear plan is the whole module's but for its message arrays (the rewritten messages, and
  // the empty messagesToSummarize and turnPrefixMessages), which ChatPreview never reads.
  const [clearing, wholeClearing] = [new glue.Compactor({ keepRecentTokens: 1_000, clearing: true }), new whole.Compactor({ keepRecentTokens: 1_000, clearing: true, summarizer: { summarize: async () => "" } })];
  const plans = [clearing, wholeClearing].map((c) => c.conversation({ format: "ai-sdk-ui", messages: aiSdkUi(sessionMessages()) }).plan({ inputTokenBudget: 60_000 }));
  assert.equal(plans[1].kind, "clear");
  const { messages: rewritten, messagesToSummarize, turnPrefixMessages, ...rest } = plans[1];
  assert.deepEqual([messagesToSummarize, turnPrefixMessages], [[], []]);
  assert.ok(Array.isArray(rewritten));
  assert.deepEqual(plans[0], rest);
  clearing.free();
  wholeClearing.free();
  // Clearing arguments too: what clearing a call's arguments frees is counted as the whole
  // module counts it (the value `{}`; the preview module reads no JSON text).
  const config = { keepRecentTokens: 1_000, clearing: { clearArguments: true, protectRecentTokens: 0 } };
  const [args, wholeArgs] = [new glue.Compactor(config), new whole.Compactor({ ...config, summarizer: { summarize: async () => "" } })];
  const request = { format: "ai-sdk-ui", messages: aiSdkUi(sessionMessages()), inputTokenBudget: 60_000 };
  const found = args.clearableResults(request);
  assert.ok(found.length > 0);
  assert.deepEqual(found, wholeArgs.clearableResults(request));
  const argPlans = [args, wholeArgs].map((c) => c.conversation({ format: "ai-sdk-ui", messages: request.messages }).plan({ inputTokenBudget: 60_000 }));
  assert.equal(argPlans[1].kind, "clear");
  const { messages: _m, messagesToSummarize: _s, turnPrefixMessages: _t, ...wholeRest } = argPlans[1];
  assert.deepEqual(argPlans[0], wholeRest);
  args.free();
  wholeArgs.free();
});
test("the preview module counts and digests objects of many keys (written whole) as the whole module does", async () => {
  const preview = await import("context-compaction/ai-sdk-preview");
  await preview.ready();
  const glue = await import(pathToFileURL(join(dir, "context_compaction_preview_bg.js")).href);
  // More keys than the fast writer checks for repeats, nested, with numbers JavaScript writes
  // in several ways; through the walker, and through JSON.stringify (a toJSON).
  const keys = (n, value) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}\n"${i}`, value(i)]));
  const many = keys(40, (i) => (i % 3 === 0 ? keys(35, (j) => [j / 7, 2 ** 60 + j, 1e21 * j, -0]) : `v${i}`));
  const tool = (id, input) => ({ type: "tool-read", toolCallId: id, state: "output-available", input, output: input });
  const messages = [0, 1, 2, 3].flatMap((i) => [
    { id: `u${i}`, role: "user", parts: [{ type: "text", text: `question ${i}` }] },
    { id: `a${i}`, role: "assistant", parts: [{ type: "step-start" }, tool(`c${i}`, i % 2 ? { ...many, toJSON: () => many } : many), { type: "step-start" }, { type: "text", text: `answer ${i}` }] },
  ]);
  const config = { keepRecentTokens: 500 };
  const summarizer = { summarize: async () => "Summary." };
  const [small, big] = [new glue.Compactor(config), new whole.Compactor({ ...config, summarizer })];
  const plans = [small, big].map((c) => c.conversation({ format: "ai-sdk-ui", messages }).plan({ inputTokenBudget: 2_000 }));
  assert.ok(plans[1].firstKeptIndex > 0);
  const { messagesToSummarize: _s, turnPrefixMessages: _t, ...wholePlan } = plans[1];
  assert.deepEqual(plans[0], wholePlan);
  const request = { format: "ai-sdk-ui", messages, requireReduction: true };
  const draft = await big.draft(request, big.plan(request));
  const { summary, digest, previousDigest, firstKeptIndex, firstKeptPart } = draft;
  const cut = { summary, digest, previousDigest, firstKeptIndex, firstKeptPart };
  assert.equal(small.covers({ format: "ai-sdk-ui", messages }, cut), true);
  const changed = messages.slice();
  changed[1] = { ...changed[1], parts: [changed[1].parts[0], tool("c0", { ...many, k1: "changed" })] };
  assert.equal(small.covers({ format: "ai-sdk-ui", messages: changed }, cut), big.covers({ format: "ai-sdk-ui", messages: changed }, cut));
  small.free();
  big.free();
});

for (const [format, convert] of formats) {
  test(`${format}: the plan-only module digests what a cut covers as the whole one does`, async () => {
    // Some messages the walker leaves to JSON.stringify (a toJSON): the other path of the read.
    const session = convert(sessionMessages());
    const messages = session.slice(0, 120).map((m, i) => (i % 7 === 3 ? { ...m, toJSON: () => ({ ...m }) } : m));
    const [a, b] = both({ keepRecentTokens: 8_000 });
    const answer = (compactor, request, cut) => {
      try {
        return compactor.digest(request, cut);
      } catch (error) {
        return [error.code, error.message];
      }
    };
    let digests = 0;
    // Pinned: a few of the user's own messages (a pinned tool result needs its call pinned too).
    const prompts = messages.flatMap((m, i) => (m.role === "user" && !JSON.stringify(m).includes("tool") ? [i] : []));
    assert.ok(prompts.length > 4, format);
    for (const pinned of [undefined, prompts.slice(1, 4)]) {
      const request = { format, messages, ...(pinned ? { pinned } : {}) };
      for (const index of [0, 1, 2, 3, 9, 10, 41, 77, 119, 120, 121]) {
        // Parts past the first: a cut inside a UIMessage between its steps, or no step there.
        for (const part of [0, 1, 2, 3, 5]) {
          const cut = { firstKeptIndex: index, firstKeptPart: part };
          const want = answer(a, request, cut);
          assert.deepEqual(answer(b, request, cut), want, `${format} ${JSON.stringify(cut)} pinned ${pinned}`);
          if (typeof want === "string") digests++;
        }
      }
      // A draft covers the request on both, and on neither once a message it covers changed.
      const maker = new whole.Compactor({ keepRecentTokens: 2_000, summarizer: { summarize: async () => "a summary" } });
      const draft = await maker.draft(request, maker.plan({ ...request, requireReduction: true }));
      maker.free();
      const changed = { ...request, messages: messages.map((m, i) => (i === prompts[0] ? messages[prompts[4]] : m)) };
      for (const [req, covers] of [[request, true], [changed, false]]) {
        assert.equal(a.covers(req, draft), covers, `${format} pinned ${pinned}`);
        assert.equal(b.covers(req, draft), covers, `${format} pinned ${pinned}`);
      }
    }
    assert.ok(digests >= 20, `${format}: ${digests} cuts digested`);
    a.free();
    b.free();
  });
}
