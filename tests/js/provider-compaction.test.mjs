// Provider-native compaction through the package: Anthropic's `compaction` block and OpenAI's
// Responses `compaction` item (and the AI SDK's forms of both) plan, estimate, compact and clear
// in every path; the provider's summary is returned as the caller's own object.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor, ContextManager, estimate } from "context-compaction";
import { generator } from "./helpers.mjs";

const fixture = JSON.parse(readFileSync(new URL("./formats/provider-compaction.json", import.meta.url), "utf8"));
const formats = ["anthropic", "openai-responses", "ai-sdk"];
// Where each history holds a provider compaction.
const compacted = { anthropic: [3, 5], "openai-responses": [3], "ai-sdk": [1, 2] };
const compactor = (options = {}) => new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => "SUMMARY"), ...options });
// A sealed summary counts three quarters of its length at four bytes a token, plus framing.
const sealed = (chars) => Math.ceil((chars * 3) / 16) + 4;

function shared(plan) {
  const { messagesToSummarize, turnPrefixMessages, messageSpans, ...rest } = plan;
  return rest;
}

test("an encrypted compaction counts what it decrypts to, a readable one its text", () => {
  const responses = fixture["openai-responses"];
  const chars = responses[3].encrypted_content.length;
  assert.equal(estimate({ format: "openai-responses", messages: responses }).messages[3], sealed(chars));
  const sdk = fixture["ai-sdk"];
  assert.equal(estimate({ format: "ai-sdk", messages: sdk }).messages[2], sealed(chars));
  // Any estimator: the sealed text is not handed to it.
  const seen = [];
  const estimator = { countTokens: (t) => (seen.push(t), t.length) };
  assert.equal(estimate({ format: "openai-responses", messages: [responses[3]], estimator }).messages[0], sealed(chars));
  assert.ok(!seen.some((t) => t.includes("gAAAAB")));
  // Anthropic's block counts as the text it holds; one without content counts nothing.
  const anthropic = fixture.anthropic;
  const asText = anthropic.map((m) => ({ ...m, content: typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "compaction" ? { type: "text", text: b.content ?? "" } : b)) }));
  const ignore = { providerCompaction: "ignore" };
  assert.deepEqual(estimate({ format: "anthropic", messages: anthropic, ...ignore }), estimate({ format: "anthropic", messages: asText }));
});

test("plan, planBytes and a conversation handle read the histories alike", () => {
  for (const format of formats) {
    const messages = fixture[format];
    const c = compactor();
    const options = { format, inputTokenBudget: 0 };
    const plan = c.plan({ ...options, messages });
    assert.ok(plan && plan.firstKeptIndex > 0, format);
    assert.deepEqual(shared(c.planBytes(JSON.stringify(messages), options)), shared(plan), format);
    const history = c.conversation({ format });
    for (const message of messages) history.append(message);
    assert.deepEqual(history.plan({ inputTokenBudget: 0 }), plan, format);
  }
});

test("compact returns the provider's compaction as the caller's own object", async () => {
  for (const format of formats) {
    const messages = fixture[format];
    // Read as any message: keep everything from the first provider compaction on.
    const first = compacted[format][0];
    const ignore = { providerCompaction: "ignore" };
    const tokens = estimate({ format, messages, ...ignore }).messages;
    const keep = tokens.slice(first).reduce((a, b) => a + b, 0);
    const c = compactor({ keepRecentTokens: keep });
    const request = { format, messages, inputTokenBudget: 0, ...ignore };
    const plan = c.plan(request);
    assert.ok(plan.firstKeptIndex <= first, `${format}: ${plan.firstKeptIndex}`);
    const out = await c.apply(request, plan);
    for (const i of compacted[format]) {
      assert.ok(out.messages.includes(messages[i]), `${format}: message ${i} is returned as it is`);
    }
    assert.deepEqual(fixture[format], messages);
    const again = await c.compact(request);
    assert.deepEqual(again.messages, out.messages, format);
  }
});

test("clearing clears the old tool result and leaves the provider's summary alone", async () => {
  const messages = fixture["openai-responses"].map((m, i) => (i === 2 ? { ...m, output: "fn add(a: i32, b: i32) -> i32 { a - b }\n".repeat(100) } : m));
  const calls = [];
  const c = new Compactor({ keepRecentTokens: 0, clearing: { protectRecentTokens: 0 }, summarizer: { summarize: async () => (calls.push(1), "SUMMARY") } });
  // Before the compaction item, the result counts nothing: clearing it would free nothing.
  const window = c.plan({ format: "openai-responses", messages, inputTokenBudget: 50 });
  assert.notEqual(window.kind, "clear");
  // Read as any message, it is cleared.
  const ignore = { providerCompaction: "ignore" };
  const total = estimate({ format: "openai-responses", messages, ...ignore }).total;
  const request = { format: "openai-responses", messages, inputTokenBudget: total - 100, ...ignore };
  const plan = c.plan(request);
  assert.equal(plan.kind, "clear", JSON.stringify(plan));
  assert.deepEqual(plan.clearedResults.map((r) => r.index), [2]);
  const out = await c.apply(request, plan);
  assert.deepEqual(calls, []);
  assert.equal(out.messages[3], messages[3]);
  assert.notEqual(out.messages[2], messages[2]);
});

// The provider's window: the provider reads nothing before its newest compaction, so those
// messages count nothing and our cut falls after it, in every path.
const newest = { anthropic: 3, "openai-responses": 3, "ai-sdk": 2 };
const sum = (list) => list.reduce((a, b) => a + b, 0);

test("the messages before the newest provider compaction count nothing", () => {
  for (const format of formats) {
    const messages = fixture[format];
    const all = estimate({ format, messages, providerCompaction: "ignore" });
    const window = estimate({ format, messages });
    const w = newest[format];
    assert.deepEqual(window.messages, all.messages.map((t, i) => (i < w ? 0 : t)), format);
    assert.equal(window.total, sum(all.messages.slice(w)), format);
    assert.throws(() => estimate({ format, messages, providerCompaction: "drop" }), (e) => e.code === "invalid_request" && /providerCompaction/.test(e.message));
  }
});

test("plan, planBytes and a conversation handle cut only after it", () => {
  for (const format of formats) {
    const messages = fixture[format];
    const w = newest[format];
    // Keeping the window whole leaves only what the provider compacted already: nothing to do.
    const keep = sum(estimate({ format, messages }).messages.slice(w));
    for (const [mode, expectPlan] of [[undefined, false], ["ignore", true]]) {
      const c = compactor({ keepRecentTokens: keep });
      const options = { format, inputTokenBudget: 0, ...(mode ? { providerCompaction: mode } : {}) };
      const plan = c.plan({ ...options, messages });
      assert.equal(plan !== null, expectPlan, `${format} ${mode}`);
      if (plan) assert.ok(plan.firstKeptIndex <= w);
      const bytes = c.planBytes(JSON.stringify(messages), options);
      assert.equal(bytes !== null, expectPlan, `${format} ${mode}: planBytes`);
      const history = c.conversation({ format, messages, ...(mode ? { providerCompaction: mode } : {}) });
      assert.deepEqual(history.plan({ inputTokenBudget: 0 }), plan, `${format} ${mode}: conversation`);
    }
    // Keeping nothing, the cut falls after it.
    const plan = compactor().plan({ format, messages, inputTokenBudget: 0 });
    assert.ok(plan.firstKeptIndex > w, format);
  }
});

test("a conversation appended to across a provider compaction drops what came before it", () => {
  const messages = fixture["openai-responses"];
  const history = compactor().conversation({ format: "openai-responses" });
  history.append(messages.slice(0, 3));
  const before = history.plan({ inputTokenBudget: 0 });
  assert.equal(before.messageTokens[2] > 0, true);
  history.append(messages.slice(3));
  const after = history.plan({ inputTokenBudget: 0 });
  assert.deepEqual(Array.from(after.messageTokens.slice(0, 3)), [0, 0, 0]);
  assert.ok(after.firstKeptIndex > 3);
  assert.deepEqual(after, compactor().plan({ format: "openai-responses", messages, inputTokenBudget: 0 }));
});

test("a ContextManager spends no summary call on what the provider compacted already", async () => {
  // A long history the provider compacted, then a short exchange after its summary.
  const old = [];
  for (let i = 0; i < 40; i++) {
    old.push({ role: "user", content: `question ${i}: ${"lorem ipsum dolor sit amet ".repeat(40)}` });
    old.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}: ${"consectetur adipiscing elit ".repeat(40)}` }] });
  }
  const messages = [...old, ...fixture.anthropic.slice(3)];
  let calls = 0;
  const make = () => new ContextManager({ compactor: new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => (calls++, "SUMMARY")) }), contextWindowTokens: 2000, reserveTokens: 0 });
  const state = { format: "anthropic", systemPrompt: "You help.", summary: "", messages, tools: [] };
  const kept = await make().maintain(state);
  assert.equal(kept.reason, "belowThreshold");
  assert.equal(kept.state, state);
  assert.equal(calls, 0);
  // Read as any message, the same history is compacted.
  const all = await make().maintain({ ...state, providerCompaction: "ignore" });
  assert.equal(all.reason, "compacted");
  assert.equal(calls, 1);
});

test("a UIMessage history carries both compactions through providerMetadata", () => {
  const sdk = fixture["ai-sdk"];
  const ui = [
    { id: "u0", role: "user", parts: [{ type: "text", text: sdk[0].content }] },
    { id: "a1", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: sdk[1].content[0].text, providerMetadata: { anthropic: { type: "compaction" } } }] },
    { id: "a2", role: "assistant", parts: [{ type: "step-start" }, { type: "custom", kind: "openai.compaction", providerMetadata: sdk[2].content[0].providerOptions }] },
    { id: "u3", role: "user", parts: [{ type: "text", text: "Go ahead." }] },
  ];
  const tokens = estimate({ format: "ai-sdk-ui", messages: ui }).messages;
  const chars = sdk[2].content[0].providerOptions.openai.encryptedContent.length;
  assert.deepEqual(tokens.slice(0, 2), [0, 0]);
  assert.equal(tokens[2], sealed(chars));
  const model = estimate({ format: "ai-sdk", messages: [...sdk.slice(0, 3), { role: "user", content: "Go ahead." }] }).messages;
  assert.deepEqual(tokens, model);
});
