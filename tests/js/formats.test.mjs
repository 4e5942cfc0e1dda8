// Formats through the package: the same conversation in all five formats plans the same cut and
// sends the summarizer the same text; indices and returned messages are the host's own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor, CompactionError, estimate, projectSummary } from "context-compaction";
import { generator } from "./helpers.mjs";

const formats = ["canonical", "openai-chat", "openai-responses", "anthropic", "ai-sdk"];
const fixture = (name) => JSON.parse(readFileSync(new URL(`./formats/${name}.json`, import.meta.url), "utf8"));

function planOf(format, keep) {
  const messages = fixture(format);
  const compactor = new Compactor({ keepRecentTokens: keep, summarizer: generator(async () => "SUMMARY") });
  const request = { format, messages, systemPrompt: "You fix bugs.", inputTokenBudget: 0 };
  const plan = compactor.plan(request);
  return { compactor, request, messages, plan, prompts: compactor.summarizerInput(request, plan) };
}

test("every format plans the same cut and sends the same summarizer input", () => {
  const canonical = planOf("canonical", 0);
  const tokens = canonical.plan.messageTokens;
  for (const keep of [0, tokens.slice(7).reduce((a, b) => a + b, 0), tokens.slice(6).reduce((a, b) => a + b, 0)]) {
    const expected = planOf("canonical", keep);
    for (const format of formats) {
      const { plan, prompts, messages } = planOf(format, keep);
      assert.deepEqual(prompts, expected.prompts, `${format} keep ${keep}`);
      assert.equal(plan.splitTurn, expected.plan.splitTurn, `${format} keep ${keep}`);
      // The plan's arrays are the host's own objects, in order.
      const summarized = [...plan.messagesToSummarize, ...plan.turnPrefixMessages];
      summarized.forEach((m, i) => assert.equal(m, messages[i]));
      assert.equal(summarized.length, plan.firstKeptIndex);
    }
  }
});

test("apply returns the host's own kept objects in every format", async () => {
  for (const format of formats) {
    const { compactor, request, messages, plan } = planOf(format, 0);
    const out = await compactor.apply(request, plan);
    assert.ok(out.summary.startsWith("SUMMARY"), format);
    out.messages.forEach((m, i) => assert.equal(m, messages[plan.firstKeptIndex + i], format));
    // The pending call at the end is kept in every format.
    assert.equal(out.messages.at(-1), messages.at(-1), format);
    assert.match(out.summary, /<modified-files>\nsrc\/lib.rs\n<\/modified-files>/, format);
  }
});

test("a system or developer message is never cut", async () => {
  const messages = [{ role: "developer", content: "Answer in English." }, ...fixture("openai-chat")];
  const compactor = new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => "SUMMARY") });
  const request = { format: "openai-chat", messages, inputTokenBudget: 0 };
  const plan = compactor.plan(request);
  assert.ok(!plan.messagesToSummarize.includes(messages[0]));
  const out = await compactor.apply(request, plan);
  assert.equal(out.messages[0], messages[0]);
  assert.equal(out.messages.at(-1), messages.at(-1));
  assert.ok(estimate(request).messages[0] > 0);
});

test("Anthropic's system prompt may be blocks; the summary projects in the request's format", () => {
  const messages = fixture("anthropic");
  const asText = estimate({ format: "anthropic", messages, systemPrompt: "You fix bugs." });
  const asBlocks = estimate({ format: "anthropic", messages, systemPrompt: [{ type: "text", text: "You fix bugs." }] });
  assert.equal(asBlocks.systemPrompt, asText.systemPrompt);
  assert.deepEqual(projectSummary("S", "openai-responses").content[0].type, "input_text");
  assert.equal(projectSummary("S", "anthropic").role, "user");
  assert.equal(projectSummary("", "ai-sdk"), null);
  assert.throws(() => projectSummary("S", "xml"), (e) => e instanceof CompactionError && e.code === "invalid_request");
});

test("malformed input in any format is invalid_request naming the path", () => {
  const compactor = new Compactor({ summarizer: generator(async () => "S") });
  const cases = [
    ["openai-chat", [{ role: "assistant", tool_calls: [{ id: "x" }] }], /messages\[0\]\.tool_calls\[0\]\.function: missing/],
    ["openai-responses", [{ type: "function_call", name: "x" }], /messages\[0\]\.call_id: missing/],
    ["anthropic", [{ role: "user", content: [{ type: "tool_result" }] }], /messages\[0\]\.content\[0\]\.tool_use_id: missing/],
    ["ai-sdk", [{ role: "tool", content: [{ type: "tool-result", output: { type: "text", value: "x" } }] }], /messages\[0\]\.content\[0\]\.toolCallId: missing/],
    ["ai-sdk-ui", [{ id: "a", role: "user", content: "hi" }], /messages\[0\]\.parts: missing .*use format "ai-sdk"/],
  ];
  for (const [format, messages, pattern] of cases) {
    assert.throws(() => compactor.plan({ format, messages, inputTokenBudget: 0 }), (e) => e.code === "invalid_request" && pattern.test(e.message), format);
  }
});

test("facts are cached per format: the same objects read in another format are read again", () => {
  let counted = 0;
  const estimator = { countTokens: (t) => (counted++, t.length) };
  const messages = [{ role: "user", content: "hello there" }, { role: "user", content: "and more" }];
  estimate({ messages, estimator });
  const once = counted;
  estimate({ messages, estimator });
  // Only the last message, never cached, is read again.
  assert.equal(counted, once + 1);
  estimate({ format: "anthropic", messages, estimator });
  assert.ok(counted > once + 2);
});

test("file tracking follows configurable tool names and path keys in every format", async () => {
  const messages = [
    { role: "user", content: "edit it" },
    { role: "assistant", content: [{ type: "tool_use", id: "a", name: "Read", input: { file_path: "src/a.ts" } }, { type: "tool_use", id: "b", name: "MultiEdit", input: { file_path: "src/b.ts" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "…" }, { type: "tool_result", tool_use_id: "b", content: "ok" }] },
    { role: "user", content: "thanks" },
  ];
  const defaults = new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => "S") });
  const out = await defaults.compact({ format: "anthropic", messages, inputTokenBudget: 0 });
  assert.equal(out.summary, "S", "Read and MultiEdit are not tracked by default");
  const custom = new Compactor({
    keepRecentTokens: 0,
    summarizer: generator(async () => "S"),
    fileTracking: { readTools: ["Read"], modifyTools: ["Write", "Edit", "MultiEdit"] },
  });
  const tracked = await custom.compact({ format: "anthropic", messages, inputTokenBudget: 0 });
  assert.equal(tracked.summary, "S\n\n<read-files>\nsrc/a.ts\n</read-files>\n\n<modified-files>\nsrc/b.ts\n</modified-files>");
  assert.throws(() => new Compactor({ summarizer: generator(async () => "S"), fileTracking: { pathKeys: "path" } }), (e) => e.code === "invalid_config");
});

test("ContextManager state carries its format", async () => {
  const { ContextManager } = await import("context-compaction");
  const messages = fixture("anthropic");
  const compactor = new Compactor({ keepRecentTokens: 0, summarizer: generator(async () => "SUMMARY") });
  const manager = new ContextManager({ compactor, contextWindowTokens: 100, reserveTokens: 0 });
  const state = { format: "anthropic", systemPrompt: [{ type: "text", text: "You fix bugs." }], summary: "", messages };
  const out = await manager.maintain(state);
  assert.equal(out.compacted, true);
  assert.equal(out.state.format, "anthropic");
  assert.equal(out.state.messages.at(-1), messages.at(-1));
  assert.deepEqual(out.state.systemPrompt, state.systemPrompt);
});
