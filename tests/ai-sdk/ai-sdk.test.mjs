// The ai-sdk and ai-sdk-ui formats against the real AI SDK, majors 5, 6 and 7 side by side
// (this folder's package.json): a UIMessage history and what each major's own
// convertToModelMessages makes of it estimate the same, hand the summarizer the same records,
// and cut at the same place; a cut inside one assistant UIMessage keeps exactly the steps whose
// model messages the ModelMessage plan keeps. Run by scripts/test-js against the packed
// tarball, with CC_AI_SDK naming the folder where these dev dependencies are installed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { CompactionError, Compactor, ContextManager, estimate } from "context-compaction";

const root = process.env.CC_AI_SDK ?? new URL(".", import.meta.url).pathname;
const require = createRequire(`${root}/package.json`);
const sdk = {};
for (const major of [5, 6, 7]) sdk[major] = await import(pathToFileURL(require.resolve(`ai${major}`)).href);

const summarizer = { summarize: async ({ messages, turnPrefixMessages }) => `summary of ${messages.length + turnPrefixMessages.length}` };
const generator = { model: "m", generate: async () => "S" };

/** Every part kind the major's UIMessage types have, in a chat with a long tool loop. */
function history(major) {
  const tool = (id, state, more = {}) => ({ type: "tool-read", toolCallId: id, state, input: { path: `src/${id}.rs` }, ...more });
  const steps = [];
  for (let k = 0; k < 8; k++) {
    steps.push({ type: "step-start" }, { type: "reasoning", text: `thinking about file ${k}`, state: "done" });
    steps.push({ type: "text", text: `Reading file ${k} of the crate now.`, state: "done" });
    steps.push(tool(`r${k}`, "output-available", { output: k % 2 ? { lines: 40, body: "fn x() {}\n".repeat(30) } : "fn main() {}\n".repeat(30) }));
  }
  const loop = [...steps, { type: "step-start" }, { type: "text", text: "All files read.", state: "done" }];
  const assistantExtras = [
    { type: "step-start" },
    { type: "source-url", sourceId: "s1", url: "https://example.com", title: "docs" },
    { type: "source-document", sourceId: "s2", mediaType: "text/plain", title: "notes" },
    { type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA" },
    { type: "data-progress", id: "d1", data: { done: 3 } },
    tool("e1", "output-error", { errorText: "no such file" }),
    { type: "dynamic-tool", toolName: "mcp_search", toolCallId: "d1", state: "output-available", input: { q: "x" }, output: [1, 2, 3] },
    { type: "tool-web_search", toolCallId: "p1", state: "output-available", input: { q: "rust" }, output: { hits: 2 }, providerExecuted: true },
    { type: "tool-web_search", toolCallId: "p2", state: "output-error", input: { q: "go" }, errorText: "quota", providerExecuted: true },
  ];
  if (major >= 6) {
    assistantExtras.push(
      { type: "step-start" },
      tool("a1", "output-available", { output: "approved and done", approval: { id: "ap1", approved: true } }),
      tool("a2", "output-denied", { approval: { id: "ap2", approved: false, reason: "not that file" } }),
    );
  }
  if (major >= 7) {
    assistantExtras.push(
      { type: "step-start" },
      { type: "custom", kind: "openai.compaction", providerMetadata: { openai: { id: "x" } } },
      { type: "reasoning-file", mediaType: "image/png", url: "data:image/png;base64,AAAA" },
      { type: "text", text: "more after the custom parts", state: "done" },
      // A user message sent while the assistant worked.
      { type: "steering-message", id: "st1", parts: [{ type: "text", text: "also check the tests" }] },
      { type: "text", text: "checking the tests too", state: "done" },
    );
  }
  return [
    { id: "s", role: "system", parts: [{ type: "text", text: "You are careful." }] },
    { id: "u1", role: "user", parts: [{ type: "text", text: "Read every file." }, { type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA", filename: "x.png" }, { type: "data-note", data: 1 }], metadata: { at: 1 } },
    { id: "a1", role: "assistant", parts: loop, metadata: { usage: { inputTokens: 10 } } },
    { id: "u2", role: "user", parts: [{ type: "text", text: "Now a few other things." }] },
    { id: "a2", role: "assistant", parts: assistantExtras },
    { id: "u3", role: "user", parts: [{ type: "text", text: "One more look, please." }] },
    // In flight: a call waiting for its result keeps its step.
    { id: "a3", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: "Looking." }, tool("f1", major >= 6 ? "approval-requested" : "input-available", major >= 6 ? { approval: { id: "ap3" } } : {})] },
  ];
}

const clone = (value) => structuredClone(value);

for (const major of [5, 6, 7]) {
  const convert = async (ui) => sdk[major].convertToModelMessages(clone(ui));

  test(`ai ${major}: UIMessages estimate as the ModelMessages convertToModelMessages makes of them`, async () => {
    const ui = history(major);
    const model = await convert(ui);
    const asUi = estimate({ format: "ai-sdk-ui", messages: ui });
    const asModel = estimate({ format: "ai-sdk", messages: model });
    assert.equal(asUi.total, asModel.total);
    assert.equal(asUi.messages.length, ui.length);
    // A host estimator sees the same texts too.
    const estimator = { countTokens: (text) => text.length };
    assert.equal(estimate({ format: "ai-sdk-ui", messages: ui, estimator }).total, estimate({ format: "ai-sdk", messages: model, estimator }).total);
  });

  test(`ai ${major}: both formats hand the summarizer the same records`, async () => {
    const ui = history(major);
    const model = await convert(ui);
    const compactor = new Compactor({ keepRecentTokens: 0, summarizer: generator });
    const uiPlan = compactor.plan({ format: "ai-sdk-ui", messages: ui, requireReduction: true });
    const modelPlan = compactor.plan({ format: "ai-sdk", messages: model, requireReduction: true });
    const uiInput = compactor.summarizerInput({ format: "ai-sdk-ui", messages: ui }, uiPlan);
    const modelInput = compactor.summarizerInput({ format: "ai-sdk", messages: model }, modelPlan);
    assert.deepEqual(uiInput, modelInput);
    const prompt = uiInput.map((p) => p.prompt).join("\n");
    for (const seen of ["[User]: Read every file.", "Reading file 7", "no such file", "mcp_search", "quota"]) assert.ok(prompt.includes(seen), seen);
    if (major >= 6) assert.ok(prompt.includes("not that file"));
    if (major >= 7) assert.ok(prompt.includes("[User]: also check the tests"));
    // The call in flight stays: the last assistant message is kept from its step.
    assert.equal(uiPlan.firstKeptIndex, ui.length - 1);
    assert.equal(uiPlan.firstKeptPart, 0);
  });

  test(`ai ${major}: a cut inside one assistant UIMessage keeps the steps the ModelMessage plan keeps`, async () => {
    const ui = history(major).slice(0, 3);
    const model = await convert(ui);
    const loop = estimate({ format: "ai-sdk-ui", messages: ui }).messages[2];
    for (const keepRecentTokens of [0.2, 0.5, 0.8].map((share) => Math.round(share * loop))) {
      const compactor = new Compactor({ keepRecentTokens, summarizer });
      const request = { format: "ai-sdk-ui", messages: ui, inputTokenBudget: 0 };
      const plan = compactor.plan(request);
      assert.equal(plan.firstKeptIndex, 2, `keep ${keepRecentTokens}`);
      assert.ok(plan.firstKeptPart > 0);
      assert.equal(ui[2].parts[plan.firstKeptPart].type, "step-start");
      assert.equal(plan.firstKeptId, "a1");
      assert.equal(plan.splitTurn, true);
      // The turn prefix ends with a copy of the message holding the parts before the cut.
      const partial = plan.turnPrefixMessages.at(-1);
      assert.notEqual(partial, ui[2]);
      assert.deepEqual(partial.parts, ui[2].parts.slice(0, plan.firstKeptPart));
      const before = clone(ui);
      const result = await compactor.apply(request, plan);
      assert.deepEqual(ui, before, "the caller's messages are untouched");
      const first = result.messages.at(-1);
      assert.notEqual(first, ui[2]);
      assert.equal(first.id, "a1");
      assert.deepEqual(first.parts, ui[2].parts.slice(plan.firstKeptPart));
      assert.equal(result.messages[0], ui[0], "the system message stays, the caller's own object");
      // The ModelMessage plan with the same budget keeps exactly these steps' messages.
      const modelRequest = { format: "ai-sdk", messages: model, inputTokenBudget: 0 };
      const modelPlan = compactor.plan(modelRequest);
      const modelResult = await compactor.apply(modelRequest, modelPlan);
      assert.deepEqual(await convert(result.messages), modelResult.messages);
      assert.equal(result.record.estimateAfter, modelResult.record.estimateAfter);
      // The built-in summarizer would be sent the same records: the steps before the cut.
      const inputs = new Compactor({ keepRecentTokens, summarizer: generator });
      const prompts = inputs.summarizerInput(request, plan);
      assert.deepEqual(prompts, inputs.summarizerInput(modelRequest, modelPlan));
      // Only the system message comes before the turn, and it is never cut: the turn's
      // beginning is all there is to summarize.
      assert.deepEqual(prompts.map((p) => p.purpose), ["turnPrefix"]);
      const cutStep = ui[2].parts.slice(0, plan.firstKeptPart).filter((p) => p.type === "text").at(-1).text;
      assert.ok(prompts[0].prompt.includes(cutStep), cutStep);
      const keptStep = ui[2].parts.slice(plan.firstKeptPart).find((p) => p.type === "text").text;
      assert.ok(!prompts[0].prompt.includes(keptStep), keptStep);
      // A part where no step starts is refused, not summarized in part.
      const wrong = { ...plan, firstKeptPart: plan.firstKeptPart + 1 };
      const refused = (e) => e.code === "invalid_request" && /plan\.firstKeptPart: \d+ is not where a step of messages\[2\] starts/.test(e.message);
      assert.throws(() => inputs.summarizerInput(request, wrong), refused);
      await assert.rejects(compactor.apply(request, wrong), refused);
    }
  });
}

test("a conversation of UIMessages plans as the compactor does, cut inside a message included", () => {
  const ui = history(7).slice(0, 3);
  const compactor = new Compactor({ keepRecentTokens: 600, summarizer });
  const conversation = compactor.conversation({ format: "ai-sdk-ui" });
  for (const message of ui) conversation.append(message);
  const fromConversation = conversation.plan({ inputTokenBudget: 0 });
  const fromCompactor = compactor.plan({ format: "ai-sdk-ui", messages: ui, inputTokenBudget: 0 });
  assert.ok(fromCompactor.firstKeptPart > 0);
  assert.deepEqual(
    { ...fromConversation, turnPrefixMessages: fromConversation.turnPrefixMessages.length },
    { ...fromCompactor, turnPrefixMessages: fromCompactor.turnPrefixMessages.length },
  );
  // planBytes reads the same body through the same reader.
  const bytes = compactor.planBytes(JSON.stringify(ui), { format: "ai-sdk-ui", inputTokenBudget: 0 });
  assert.equal(bytes.firstKeptIndex, fromCompactor.firstKeptIndex);
  assert.equal(bytes.firstKeptPart, fromCompactor.firstKeptPart);
  assert.deepEqual(bytes.messageTokens, fromCompactor.messageTokens);
});

test("a ContextManager keeps UIMessages cut inside a message as the compactor does", async () => {
  const ui = history(7).slice(0, 3);
  const compactor = new Compactor({ keepRecentTokens: 600, summarizer });
  const plan = compactor.plan({ format: "ai-sdk-ui", messages: ui, inputTokenBudget: 0 });
  const manager = new ContextManager({ compactor, contextWindowTokens: 1_000, reserveTokens: 1 });
  const before = clone(ui);
  const { state, compacted } = await manager.maintain({ format: "ai-sdk-ui", messages: ui });
  assert.ok(compacted);
  assert.deepEqual(ui, before);
  const first = state.messages.at(-1);
  assert.equal(first.id, plan.firstKeptId);
  assert.deepEqual(first.parts, ui[2].parts.slice(plan.firstKeptPart));
});

test("a UIMessage that throws when the cut trims it is a CompactionError naming it", async () => {
  const ui = history(7).slice(0, 3);
  const compactor = new Compactor({ keepRecentTokens: 600, summarizer });
  let armed = false;
  ui[2] = new Proxy(ui[2], {
    get(target, key) {
      if (armed && key === "parts") throw new Error("parts are gone");
      return target[key];
    },
  });
  const request = { format: "ai-sdk-ui", messages: ui, inputTokenBudget: 0 };
  const plan = compactor.plan(request);
  assert.ok(plan.firstKeptPart > 0);
  // The last message is never taken from the facts cache: it is read again for its facts (read
  // as JSON: the message is named), for the usage the latest answers carry (walked: the message
  // is named) and to trim it (its parts are named).
  armed = true;
  const named = (e) => e instanceof CompactionError && e.code === "invalid_request" && /messages\[2\](\.parts)?: (reading it threw|cannot be read as JSON): parts are gone/.test(e.message);
  assert.throws(() => compactor.plan(request), named);
  await assert.rejects(compactor.apply(request, plan), named);
});

test("firstKeptId is only information: an id that throws is no id", () => {
  const text = (id, role, words) => ({ id, role, parts: [{ type: "text", text: words }] });
  // Forty messages are read together, through the keys the reader reads (not `id`).
  const ui = Array.from({ length: 40 }, (_, i) => text(`m${i}`, i % 2 ? "assistant" : "user", `message ${i}`));
  ui[39] = new Proxy(ui[39], {
    get(target, key) {
      if (key === "id") throw new Error("no id today");
      return target[key];
    },
  });
  const compactor = new Compactor({ keepRecentTokens: 1, summarizer });
  const plan = compactor.plan({ format: "ai-sdk-ui", messages: ui, inputTokenBudget: 0 });
  assert.equal(plan.firstKeptIndex, 39);
  assert.equal(plan.firstKeptPart, 0);
  assert.equal(plan.firstKeptId, null);
  assert.equal(compactor.plan({ format: "ai-sdk-ui", messages: ui.slice(0, 39), inputTokenBudget: 0 }).firstKeptId, "m38");
});

test("unknown part types of a later version count as their JSON and are kept", async () => {
  const later = { type: "hologram", payload: "x".repeat(400) };
  const ui = [
    { id: "u", role: "user", parts: [{ type: "text", text: "hi" }, later] },
    { id: "a", role: "assistant", parts: [{ type: "step-start" }, later, { type: "text", text: "ok" }] },
  ];
  const without = estimate({ format: "ai-sdk-ui", messages: ui.map((m) => ({ ...m, parts: m.parts.filter((p) => p !== later) })) });
  const withLater = estimate({ format: "ai-sdk-ui", messages: ui });
  assert.ok(withLater.total > without.total + 200);
  const model = [
    { role: "user", content: [{ type: "text", text: "hi" }, later] },
    { role: "assistant", content: [later, { type: "text", text: "ok" }] },
    { role: "tool", content: [later, { type: "tool-result", toolCallId: "c", toolName: "t", output: { type: "hologram-output", value: 1 } }] },
  ];
  assert.ok(estimate({ format: "ai-sdk", messages: model }).total > 300);
});
