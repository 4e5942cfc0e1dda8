// Rust and JavaScript decide alike: every case of tests/fixtures/differential.json (written by
// the native test tests/differential.rs from what the Rust `Compactor` plans, clears and
// applies, on every fixture of tests/fixtures/formats in its format, with clearing off and
// on) is run through the package's `Compactor`: `plan`, `planBytes`, a conversation handle's
// `plan`, `apply` and `compact` must say and do the same, and on the canonical fixture the
// `ContextManager`'s `maintain` as the Rust one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor, ContextManager } from "context-compaction";

const file = `${process.env.CC_ROOT}/tests/fixtures/differential.json`;
const { inputs, cases } = JSON.parse(readFileSync(file, "utf8"));

/** The fields of `plan` that `expected` names, as plain values. */
function fieldsOf(plan, expected) {
  if (plan === null) return null;
  const out = {};
  for (const key of Object.keys(expected)) {
    if (key === "summarized") out[key] = plan.messagesToSummarize?.length ?? expected[key];
    else if (key === "turnPrefix") out[key] = plan.turnPrefixMessages?.length ?? expected[key];
    else if (key === "messageTokens") out[key] = Array.from(plan.messageTokens);
    else if (key === "kind") out[key] = plan.kind;
    else out[key] = plan[key];
  }
  return out;
}

function compactor(c) {
  const summarizer = { summarize: async () => "S" };
  return new Compactor({ keepRecentTokens: c.keepRecentTokens, summarizer, ...(c.clearing === null ? {} : { clearing: c.clearing }) });
}

function requestOf(c, input) {
  const request = { messages: input.messages, format: input.format, requireReduction: c.requireReduction };
  if (c.inputTokenBudget !== null) request.inputTokenBudget = c.inputTokenBudget;
  return request;
}

/** Each way of planning: the package's plan, or the code of its error. */
function plans(c, input) {
  const attempt = (fn) => {
    try {
      return fn();
    } catch (e) {
      if (typeof e?.code !== "string") throw e;
      return { error: e.code };
    }
  };
  const cc = compactor(c);
  const request = requestOf(c, input);
  const { messages, ...options } = request;
  return {
    cc,
    request,
    plan: attempt(() => cc.plan(request)),
    bytes: attempt(() => cc.planBytes(JSON.stringify(messages), options)),
    conversation: attempt(() => cc.conversation({ format: input.format, messages }).plan(options)),
  };
}

/** The record as the expected file writes it. */
function recordOf(out, expected) {
  return Object.fromEntries(Object.keys(expected).map((key) => [key, out.record?.[key]]));
}

async function settled(promise) {
  try {
    return await promise;
  } catch (e) {
    if (typeof e?.code !== "string") throw e;
    return { error: e.code };
  }
}

test("the cases cover every format, clearing and summarizing", () => {
  const formats = new Set(inputs.map((i) => i.format));
  assert.equal(formats.size, 6);
  for (const format of formats) {
    const of = cases.filter((c) => inputs[c.input].format === format);
    assert.ok(of.some((c) => c.plan?.kind === "clear"), `${format} clears`);
    assert.ok(of.some((c) => c.plan?.firstKeptIndex > 0), `${format} summarizes`);
  }
});

test("plan, planBytes and a conversation handle decide as the Rust Compactor does", () => {
  for (const [k, c] of cases.entries()) {
    const input = inputs[c.input];
    const name = `case ${k}: ${input.name}, keep ${c.keepRecentTokens}, clearing ${JSON.stringify(c.clearing)}, budget ${c.inputTokenBudget}`;
    const { plan, bytes, conversation } = plans(c, input);
    const expected = c.plan;
    for (const [way, got] of [["plan", plan], ["planBytes", bytes], ["conversation", conversation]]) {
      if (expected === null || expected.error !== undefined) {
        assert.deepEqual(got, expected, `${name}: ${way}`);
        continue;
      }
      assert.deepEqual(fieldsOf(got, expected), expected, `${name}: ${way}`);
    }
    if (expected?.kind === "clear") {
      // The rewritten messages are those Rust rewrote; every other one is the caller's own.
      const rewritten = new Map(c.rewritten);
      for (const plan1 of [plan, conversation]) {
        plan1.messages.forEach((m, i) => {
          if (rewritten.has(i)) assert.deepEqual(m, rewritten.get(i), `${name}: messages[${i}]`);
          else assert.equal(m, input.messages[i], `${name}: messages[${i}] is the caller's`);
        });
      }
    } else if (expected !== null && expected.error === undefined) {
      assert.equal(plan.kind, undefined, name);
    }
  }
});

test("apply and compact do what the Rust Compactor does", async () => {
  for (const [k, c] of cases.entries()) {
    if (c.plan === null || c.plan.error !== undefined) continue;
    const input = inputs[c.input];
    const name = `case ${k}: ${input.name}, keep ${c.keepRecentTokens}, clearing ${JSON.stringify(c.clearing)}, budget ${c.inputTokenBudget}`;
    const { cc, request, plan } = plans(c, input);
    const applied = await settled(cc.apply(request, plan));
    const compacted = await settled(cc.compact(request));
    for (const [way, out] of [["apply", applied], ["compact", compacted]]) {
      if (c.record.error !== undefined) {
        assert.deepEqual(out, c.record, `${name}: ${way}`);
        continue;
      }
      assert.deepEqual(recordOf(out, c.record), c.record, `${name}: ${way}`);
      if (c.plan.kind === "clear") {
        const rewritten = new Map(c.rewritten);
        out.messages.forEach((m, i) => assert.deepEqual(m, rewritten.get(i) ?? input.messages[i], `${name}: ${way} messages[${i}]`));
      }
    }
  }
});

test("maintenance does what the Rust ContextManager does", async () => {
  const maintained = cases.filter((c) => c.maintain !== null);
  assert.ok(maintained.some((c) => c.maintain.reason === "cleared") && maintained.some((c) => c.maintain.reason === "compacted"));
  for (const c of maintained) {
    const input = inputs[c.input];
    const name = `${input.name}, keep ${c.keepRecentTokens}, clearing ${JSON.stringify(c.clearing)}, budget ${c.inputTokenBudget}`;
    const manager = new ContextManager({ compactor: compactor(c), contextWindowTokens: c.inputTokenBudget + 16_384 });
    const done = await manager.maintain({ summary: "", messages: input.messages });
    assert.equal(done.reason, c.maintain.reason, name);
    assert.deepEqual(c.maintain.record === null ? done.record : recordOf(done, c.maintain.record), c.maintain.record, name);
  }
});
