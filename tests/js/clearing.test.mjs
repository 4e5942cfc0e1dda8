// Clearing through the package: with `clearing` on, a plan over the trigger that clearing old
// tool results can satisfy is a clear plan; apply and compact perform it without calling the
// summarizer; the cleared messages are new objects, every other one the caller's own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor } from "context-compaction";
import { call, readTurns, result, say } from "./helpers.mjs";

/** Two turns with large old results, then a short last turn. */
function messages() {
  return [...readTurns(), say("all good")];
}

function compactor(clearing, calls) {
  const summarize = async () => {
    calls.push("summarize");
    return "SUMMARY";
  };
  return new Compactor({ keepRecentTokens: 0, clearing, summarizer: { summarize } });
}

test("with clearing off, plan is the summary plan as before", () => {
  const calls = [];
  const plan = compactor(undefined, calls).plan({ messages: messages(), inputTokenBudget: 2000 });
  assert.equal(plan.kind, undefined);
  assert.equal(typeof plan.firstKeptIndex, "number");
});

test("a clear plan names the results, frees tokens and apply calls no summarizer", async () => {
  const calls = [];
  const c = compactor({ protectRecentTokens: 0 }, calls);
  const request = { messages: messages(), inputTokenBudget: 2000 };
  const plan = c.plan(request);
  assert.equal(plan.kind, "clear");
  // It is a summary plan that summarizes nothing too, for hosts that read only those fields.
  assert.equal(plan.firstKeptIndex, 0);
  assert.deepEqual([plan.messagesToSummarize, plan.turnPrefixMessages, plan.splitTurn], [[], [], false]);
  assert.equal(plan.messageTokens.length, request.messages.length);
  assert.deepEqual(plan.clearedResults.map((r) => [r.index, r.toolCallId, r.toolName]), [[2, "c1", "read"], [4, "c2", "bash"]]);
  assert.match(plan.clearedResults[0].text, /read of src\/a\.rs/);
  assert.ok(plan.tokensFreed > 3000 && plan.estimateAfter <= 2000, JSON.stringify(plan.estimateAfter));

  const out = await c.apply(request, plan);
  assert.deepEqual(calls, []);
  assert.equal(out.summary, "");
  assert.equal(out.record.kind, "clear");
  assert.equal(out.record.tokensFreed, plan.tokensFreed);
  assert.equal(out.messages.length, request.messages.length);
  for (const [i, m] of out.messages.entries()) {
    if (i === 2 || i === 4) {
      assert.notEqual(m, request.messages[i]);
      assert.equal(m.toolCallId, request.messages[i].toolCallId);
      assert.equal(m.content[0].text, plan.clearedResults[i === 2 ? 0 : 1].text);
    } else {
      assert.equal(m, request.messages[i], `message ${i} is the caller's own`);
    }
  }
  // The caller's messages are unchanged.
  assert.match(request.messages[2].content[0].text, /^alpha0/);
  // Cleared already: the next plan over the same budget has nothing to summarize or clear.
  assert.equal(c.plan({ messages: out.messages, inputTokenBudget: 2000 }), null);

  const compacted = await c.compact(request);
  assert.deepEqual(calls, []);
  assert.deepEqual(compacted.messages, out.messages);
});

test("when clearing is not enough, or a reduction is required, the summary plan stands", async () => {
  const calls = [];
  const c = compactor(true, calls);
  // The default protects the newest 40,000 tokens of tool output: nothing to clear here.
  const plan = c.plan({ messages: messages(), inputTokenBudget: 2000 });
  assert.equal(plan.kind, undefined);
  const strict = compactor({ protectRecentTokens: 0 }, calls);
  assert.equal(strict.plan({ messages: messages(), inputTokenBudget: 100 }).kind, undefined);
  assert.equal(strict.plan({ messages: messages(), requireReduction: true }).kind, undefined);
  await strict.compact({ messages: messages(), inputTokenBudget: 100 });
  assert.deepEqual(calls, ["summarize"]);
});

test("never-clear tools and clearing arguments", async () => {
  const c = compactor({ protectRecentTokens: 0, neverClear: ["bash"], clearArguments: true }, []);
  const request = { messages: messages(), inputTokenBudget: 6000 };
  const plan = c.plan(request);
  assert.equal(plan.kind, "clear");
  assert.deepEqual(plan.clearedResults.map((r) => r.toolCallId), ["c1"]);
  assert.deepEqual(plan.argumentMessages, [1]);
  const out = await c.apply(request, plan);
  assert.deepEqual(out.messages[1].content[0].arguments, {});
  assert.deepEqual(request.messages[1].content[0].arguments, { path: "src/a.rs" });
});

test("a bad clearing config is invalid_config", () => {
  for (const clearing of [3, "yes", [], { neverClear: "bash" }, { protectRecentTokens: -1 }]) {
    assert.throws(() => compactor(clearing, []), (e) => e.code === "invalid_config", JSON.stringify(clearing));
  }
});

test("maintenance clears first, with events and a record that say so", async () => {
  const { ContextManager } = await import("context-compaction");
  const calls = [];
  const events = [];
  const c = compactor({ protectRecentTokens: 0 }, calls);
  const manager = new ContextManager({ compactor: c, contextWindowTokens: 2000 + 16_384, onEvent: (e) => events.push(e) });
  const state = { summary: "", messages: messages() };
  const done = await manager.maintain(state);
  assert.equal(done.compacted, true);
  assert.equal(done.reason, "cleared");
  assert.equal(done.record.kind, "clear");
  assert.ok(done.record.tokensFreed > 3000);
  assert.deepEqual(calls, []);
  assert.deepEqual(events.map((e) => [e.type, e.reason]), [["compactionStart", "threshold"], ["compactionEnd", "threshold"]]);
  assert.equal(events[0].plan.kind, "clear");
  assert.equal(done.state.messages[0], state.messages[0]);
  assert.notEqual(done.state.messages[2], state.messages[2]);
  assert.match(state.messages[2].content[0].text, /^alpha0/, "the caller's state is unchanged");

  // Without clearing, the same maintenance summarizes, as before.
  const plain = new ContextManager({ compactor: compactor(undefined, calls), contextWindowTokens: 2000 + 16_384 });
  const summarized = await plain.maintain(state);
  assert.equal(summarized.reason, "compacted");
  assert.deepEqual(calls, ["summarize"]);
});

test("overflow recovery trims an oversized newest result instead of failing", async () => {
  const { ContextManager } = await import("context-compaction");
  const huge = `FIRST ${Array.from({ length: 8000 }, (_, i) => `log${i}`).join(" ")} LAST`;
  const state = { messages: [call("c1", "bash", { command: "cat big.log" }), result("c1", huge, "bash")] };
  const overflow = () => Object.assign(new Error("prompt is too long: 250000 tokens > 200000 maximum"), { status: 400 });
  const send = (limit) => {
    const sent = [];
    return {
      sent,
      fn: async (s) => {
        sent.push(s);
        if (JSON.stringify(s.messages).length > limit) throw overflow();
        return "answer";
      },
    };
  };
  const manager = (clearing, events) =>
    new ContextManager({
      compactor: new Compactor({ clearing, summarizer: { summarize: async () => "SUMMARY" } }),
      contextWindowTokens: 16_384 + 6000,
      onEvent: (e) => events.push(e),
    });

  const events = [];
  const s = send(huge.length / 2);
  const ran = await manager(true, events).run(state, s.fn);
  assert.equal(ran.response, "answer");
  assert.equal(ran.compactions.length, 1);
  assert.equal(ran.compactions[0].kind, "trim");
  assert.ok(ran.compactions[0].tokensFreed > 0);
  const text = ran.state.messages[1].content[0].text;
  assert.ok(text.startsWith("FIRST ") && text.endsWith(" LAST"), text.slice(0, 40));
  assert.match(text, /characters \(about [\d,]+ tokens\) trimmed from the middle of this tool result/);
  assert.equal(ran.state.messages[1].toolCallId, "c1");
  assert.equal(ran.state.messages[0], state.messages[0]);
  assert.deepEqual(events.map((e) => [e.type, e.reason]), [["compactionStart", "overflow"], ["compactionEnd", "overflow"]]);

  // With the step off, the same run ends in no_reduction, as before.
  const off = send(huge.length / 2);
  await assert.rejects(manager(undefined, []).run(state, off.fn), (e) => e.code === "no_reduction");
});

test("plan, planBytes and a conversation handle give the same clear plan on the real session, in every format", async () => {
  const workloads = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);
  const { sessionMessages } = await import("./walk-helpers.mjs");
  // Without the provider's usage: conversation handles do not anchor to it (yet).
  const session = sessionMessages().map(({ usage, ...rest }) => rest);
  const formats = {
    canonical: (m) => m,
    "openai-chat": workloads.openAIChat,
    "openai-responses": workloads.openAIResponses,
    anthropic: workloads.anthropic,
    "ai-sdk": workloads.aiSdk,
    "ai-sdk-ui": workloads.aiSdkUi,
  };
  // What the three plans share (a body's plan has spans where the others have messages).
  const shared = ({ messages, messagesToSummarize, turnPrefixMessages, messageSpans, ...rest }) => ({
    ...rest,
    messageTokens: [...rest.messageTokens],
  });
  for (const [format, convert] of Object.entries(formats)) {
    const messages = convert(session);
    const before = structuredClone(messages);
    const calls = [];
    const c = new Compactor({ clearing: true, cacheFacts: false, summarizer: { summarize: async () => (calls.push(1), "S") } });
    const total = c.plan({ format, messages, inputTokenBudget: 0 }).estimateBefore;
    const options = { format, inputTokenBudget: Math.round(total * 0.9) };
    const plan = c.plan({ ...options, messages });
    assert.equal(plan?.kind, "clear", format);
    assert.ok(plan.clearedResults.length > 10 && plan.estimateAfter <= options.inputTokenBudget, format);

    const bytes = c.planBytes(new TextEncoder().encode(JSON.stringify(messages)), options);
    assert.equal(bytes.kind, "clear", format);
    assert.equal(bytes.messages, undefined, format);
    assert.equal(bytes.messageSpans.length, 2 * messages.length, format);
    assert.deepEqual(shared(bytes), shared(plan), format);

    const handle = c.conversation({ format, messages });
    const handlePlan = handle.plan({ inputTokenBudget: options.inputTokenBudget });
    assert.deepEqual(shared(handlePlan), shared(plan), format);
    assert.deepEqual(handlePlan.messages, plan.messages, format);
    handle.free();

    // Applying any of them, with the messages as objects, clears the same results; the
    // estimate of the rewritten messages is the one the plan worked out.
    const out = await c.apply({ ...options, messages }, bytes);
    assert.deepEqual(out.messages, plan.messages, format);
    assert.equal(out.record.tokensFreed, plan.tokensFreed, format);
    assert.equal(out.record.clearedResults, plan.clearedResults.length, format);
    const changed = out.messages.filter((m, i) => m !== messages[i]).length;
    // The results' messages and, by default, those of calls with large arguments.
    assert.ok(plan.argumentMessages.length > 0, format);
    assert.ok(changed > 0 && changed <= plan.clearedResults.length + plan.argumentMessages.length, format);
    assert.deepEqual(messages, before, `${format}: the caller's messages are unchanged`);
    assert.deepEqual(calls, []);
    c.free();
  }
});

test("host exceptions while clearing reads or rewrites a message become CompactionErrors naming it", async () => {
  const boom = new Error("trap");
  const isTrap = (place) => (e) => e instanceof CompactionError && e.code === "invalid_request" && place.test(e.message) && e.cause === boom;
  const c = compactor({ protectRecentTokens: 0 }, []);
  // Facts cached from a plan under the trigger; then the result's getter throws when clearing
  // reads it (the facts come from the cache, so only clearing's own read reaches it).
  const list = messages();
  assert.equal(c.plan({ messages: list, inputTokenBudget: 1e6 }), null);
  const text = list[2].content;
  Object.defineProperty(list[2], "content", { get() { throw boom; }, enumerable: true });
  assert.throws(() => c.plan({ messages: list, inputTokenBudget: 2000 }), isTrap(/messages\[2\]/));
  // A clear plan applied to messages whose rewritten one throws when it is read.
  const clean = messages();
  const plan = c.plan({ messages: clean, inputTokenBudget: 2000 });
  const hostile = messages();
  Object.defineProperty(hostile[4], "toJSON", { value() { throw boom; } });
  await assert.rejects(c.apply({ messages: hostile, inputTokenBudget: 2000 }, plan), isTrap(/messages\[4\]/));
  // Nothing is poisoned: the same compactor clears the clean messages.
  const out = await c.apply({ messages: clean, inputTokenBudget: 2000 }, plan);
  assert.equal(out.record.kind, "clear");
  assert.ok(text.length > 0);
});
