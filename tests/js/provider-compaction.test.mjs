// Provider-native compaction through the package: Anthropic's `compaction` block and OpenAI's
// Responses `compaction` item (and the AI SDK's forms of both) plan, estimate, compact and clear
// in every path; the provider's summary is returned as the caller's own object.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor, estimate } from "context-compaction";
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
  assert.deepEqual(estimate({ format: "anthropic", messages: anthropic }), estimate({ format: "anthropic", messages: asText }));
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
    // Keep everything from the first provider compaction on.
    const first = compacted[format][0];
    const tokens = estimate({ format, messages }).messages;
    const keep = tokens.slice(first).reduce((a, b) => a + b, 0);
    const c = compactor({ keepRecentTokens: keep });
    const request = { format, messages, inputTokenBudget: 0 };
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
  const total = estimate({ format: "openai-responses", messages }).total;
  const request = { format: "openai-responses", messages, inputTokenBudget: total - 100 };
  const plan = c.plan(request);
  assert.equal(plan.kind, "clear", JSON.stringify(plan));
  assert.deepEqual(plan.clearedResults.map((r) => r.index), [2]);
  const out = await c.apply(request, plan);
  assert.deepEqual(calls, []);
  assert.equal(out.messages[3], messages[3]);
  assert.notEqual(out.messages[2], messages[2]);
});
