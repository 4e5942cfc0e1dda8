// Rust and JavaScript decide alike: every case of tests/fixtures/differential.json (written by
// the native test tests/differential.rs from what the Rust `Compactor` plans, clears and
// applies, on every fixture of tests/fixtures/formats in its format, with clearing off and
// on, and on the real session in every format with the provider's usage on its answers, long
// histories of it planned from their tail, a long UIMessage chat cut between steps, pinned
// messages, a provider's summary read both ways) is run through the package's `Compactor`: `plan`,
// `planBytes`, a conversation handle's `plan`, `apply` and `compact` must say and do the same,
// and on the canonical fixture the `ContextManager`'s `maintain` as the Rust one. The
// package's sizer must size every message as the core defines a message's size.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Compactor, ContextManager } from "context-compaction";

const file = `${process.env.CC_ROOT}/tests/fixtures/differential.json`;
const { formats, inputs, cases } = JSON.parse(readFileSync(file, "utf8"));
// The installed package's sizer, as the module calls it through the seam (src/wasm/sizer.rs).
const sizer = await import(new URL("./host/size.js", import.meta.resolve("context-compaction")).href);
const workloads = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);
const convert = {
  canonical: (m) => m,
  "openai-chat": workloads.openAIChat,
  "openai-responses": workloads.openAIResponses,
  anthropic: workloads.anthropic,
  "ai-sdk": workloads.aiSdk,
  "ai-sdk-ui": workloads.aiSdkUi,
};

/** The 32-bit FNV-1a hash of `text`'s UTF-16 code units, in hex (as tests/differential.rs
 * writes it). */
function digest(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** Numbers as the expected file keeps them: as they are, or their sum and digest (`long`). */
const numbers = (values, long) => (long ? { sum: values.reduce((a, b) => a + b, 0), digest: digest(values.join(",")) } : values);

/** A list as the expected file keeps it: as it is, or its length and the digest of its JSON. */
const kept = (items, long) => (long ? { length: items.length, digest: digest(JSON.stringify(items)) } : items);

/** A 32-bit xorshift generator (as tests/support/anchored.rs's). */
function rng(seed) {
  let state = seed;
  const below = (n) => {
    state = (state ^ (state << 13)) >>> 0;
    state = (state ^ (state >>> 17)) >>> 0;
    state = (state ^ (state << 5)) >>> 0;
    return state % n;
  };
  const words = ["the", "test", "fails", "because", "add", "subtracts", "we", "read", "src/lib.rs", "and", "fix", "it", "then", "run", "cargo", "again"];
  const text = (n) => Array.from({ length: n }, () => words[below(16)]).join(" ");
  return { below, text };
}

/** The long UIMessage chat of `turns` turns that tests/support/anchored.rs makes (`ui_chat`). */
function uiChat(turns) {
  const { below, text } = rng(0x9e3779b9);
  const out = [];
  for (let t = 0; t < turns; t++) {
    const question = text(5 + below(20));
    out.push({ id: `u${t}`, role: "user", parts: [{ type: "text", text: question }] });
    const steps = 1 + below(4);
    const parts = [];
    for (let s = 0; s < steps; s++) {
      parts.push({ type: "step-start" });
      if (s + 1 < steps) {
        const file = below(50);
        const output = text(10 + below(80));
        parts.push({ type: "tool-read", toolCallId: `call${t}-${s}`, state: "output-available", input: { path: `src/f${file}.rs` }, output });
      } else {
        parts.push({ type: "text", text: text(5 + below(40)), state: "done" });
      }
    }
    out.push({ id: `a${t}`, role: "assistant", parts });
  }
  return out;
}

// The messages of each input: as written, or made by its recipe (from the session, or a long
// UIMessage chat).
for (const input of inputs) {
  if (input.recipe === undefined) continue;
  if (input.recipe.uiChat !== undefined) {
    input.messages = uiChat(input.recipe.uiChat);
    for (const [i, key, value] of input.recipe.patches) input.messages[i][key] = value;
    input.long = true;
    continue;
  }
  const { length, recordedUsage, patches } = input.recipe;
  const canonical = workloads.history(length, { flatIds: true });
  for (const m of canonical) {
    if (!recordedUsage) delete m.usage;
    else if (typeof m.usage === "object") delete m.usage.cost;
  }
  input.messages = convert[input.format](canonical);
  for (const [i, key, value] of patches) input.messages[i][key] = value;
  input.long = true;
}

/** The fields of `plan` that `expected` names, as plain values (digests for a `long` input). */
function fieldsOf(plan, expected, long) {
  if (plan === null) return null;
  const out = {};
  for (const key of Object.keys(expected)) {
    if (key === "summarized") out[key] = plan.messagesToSummarize?.length ?? expected[key];
    else if (key === "turnPrefix") out[key] = plan.turnPrefixMessages?.length ?? expected[key];
    else if (key === "messageTokens") out[key] = numbers(Array.from(plan.messageTokens), long);
    else if (key === "kind") out[key] = plan.kind;
    else if (key === "clearedResults") {
      const results = plan.clearedResults.map((r) => ({ index: r.index, toolCallId: r.toolCallId, toolName: r.toolName ?? null, tokens: r.tokens, text: r.text }));
      out[key] = kept(results, long);
    } else if (key === "argumentMessages") out[key] = kept(plan.argumentMessages, long);
    else out[key] = plan[key];
  }
  return out;
}

/** The messages of `out` (a clear plan, or what applying one gave) that are not the caller's
 * own, as `[index, message]`, and that every other one is. */
function rewrittenOf(out, input) {
  return out.messages.flatMap((m, i) => (m === input.messages[i] ? [] : [[i, m]]));
}

/** Checks that `out` rewrote the messages `c` says were rewritten, and kept every other one. */
function checkRewritten(out, c, input, name) {
  const rewritten = rewrittenOf(out, input);
  if (input.long) assert.deepEqual(kept(JSON.parse(JSON.stringify(rewritten)), true), c.rewritten, name);
  else {
    const want = new Map(c.rewritten);
    assert.deepEqual(rewritten.map(([i]) => i), [...want.keys()], name);
    for (const [i, m] of rewritten) assert.deepEqual(m, want.get(i), `${name}: messages[${i}]`);
  }
}

function compactor(c) {
  const summarizer = { summarize: async () => "S" };
  return new Compactor({ keepRecentTokens: c.keepRecentTokens, summarizer, ...(c.clearing === null ? {} : { clearing: c.clearing }) });
}

function requestOf(c, input) {
  const request = { messages: input.messages, format: input.format, requireReduction: c.requireReduction, providerCompaction: input.providerCompaction };
  if (c.inputTokenBudget !== null) request.inputTokenBudget = c.inputTokenBudget;
  if (input.pinned.length > 0) request.pinned = input.pinned;
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
    // The body of a long history made once: the same for each of its cases.
    bytes: attempt(() => cc.planBytes((input.body ??= JSON.stringify(messages)), options)),
    conversation: attempt(() => {
      const { format, providerCompaction, pinned, ...rest } = options;
      return cc.conversation({ format, messages, providerCompaction, pinned }).plan(rest);
    }),
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
    assert.ok(of.some((c) => c.plan?.splitTurn), `${format} splits a turn`);
  }
  assert.ok(cases.some((c) => c.plan?.firstKeptPart > 0), "a UIMessage is cut between its steps");
  assert.ok(cases.some((c) => c.full !== null), "a long history is planned from its tail");
  const ui = cases.filter((c) => inputs[c.input].format === "ai-sdk-ui" && inputs[c.input].long);
  assert.ok(ui.some((c) => c.full !== null && c.plan?.firstKeptPart > 0), "a long UIMessage chat is planned from its tail and cut between steps");
  for (const format of formats) {
    const pinned = cases.filter((c) => inputs[c.input].format === format && inputs[c.input].name.includes("pinned"));
    assert.ok(pinned.some((c) => c.plan?.pinnedIndices?.length > 0), `${format} keeps pinned messages`);
  }
  const provider = (mode) => cases.filter((c) => inputs[c.input].name.includes(`summary, ${mode}`));
  assert.ok(provider("window").some((c) => c.plan === null) && provider("ignore").some((c) => c.plan?.firstKeptIndex >= 0), "a provider's summary is read both ways");
});

test("the histories made from the session are the ones Rust made", () => {
  for (const input of inputs.filter((i) => i.long)) assert.equal(digest(JSON.stringify(input.messages)), input.digest, input.name);
});

test("the package's sizer sizes every message as the core does", () => {
  for (const input of inputs) {
    const { keys, systemRoles, failRole, failKey, failValues, pinPath } = formats[input.format];
    const sizes = new Float64Array(input.messages.length);
    const found = sizer.sizes(input.messages, sizes, keys, systemRoles, failRole, failKey, failValues, false, pinPath);
    assert.ok(Array.isArray(found), input.name);
    assert.deepEqual(numbers(Array.from(sizes), input.long), input.sizes, `${input.name}: sizes`);
    assert.deepEqual(found, [input.system, input.failed], `${input.name}: system messages and failed attempts`);
  }
});

/** A copy of `value` whose objects also hold keys set to `undefined` (JSON.stringify leaves
 * them out), and whose arrays hold `undefined` where they hold `null` (written `null`). */
function withOmitted(value) {
  if (Array.isArray(value)) return value.map((v) => (v === null ? undefined : withOmitted(v)));
  if (typeof value !== "object" || value === null) return value;
  const copy = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withOmitted(v)]));
  return Object.assign(copy, { absent: undefined });
}

test("the sizer leaves out what JSON leaves out, as the reader never sees it", () => {
  for (const input of inputs.filter((i) => !i.long)) {
    const { keys, systemRoles, failRole, failKey, failValues, pinPath } = formats[input.format];
    const messages = input.messages.map(withOmitted);
    const sizes = new Float64Array(messages.length);
    sizer.sizes(messages, sizes, keys, systemRoles, failRole, failKey, failValues, false, pinPath);
    assert.deepEqual(Array.from(sizes), input.sizes, input.name);
  }
});

test("plan, planBytes and a conversation handle decide as the Rust Compactor does", () => {
  for (const [k, c] of cases.entries()) {
    const input = inputs[c.input];
    const name = `case ${k}: ${input.name}, keep ${c.keepRecentTokens}, clearing ${JSON.stringify(c.clearing)}, budget ${c.inputTokenBudget}`;
    const { plan, bytes, conversation } = plans(c, input);
    // `plan` reads a long anchored history from its tail; the others read every message.
    const full = c.full ?? c.plan;
    for (const [way, got, expected] of [["plan", plan, c.plan], ["planBytes", bytes, full], ["conversation", conversation, full]]) {
      if (expected === null || expected.error !== undefined) {
        assert.deepEqual(got, expected, `${name}: ${way}`);
        continue;
      }
      assert.deepEqual(fieldsOf(got, expected, input.long), expected, `${name}: ${way}`);
      if (expected.kind === "clear" && way !== "planBytes") checkRewritten(got, c, input, `${name}: ${way}`);
      if (expected.kind !== "clear") assert.equal(got.kind, undefined, `${name}: ${way}`);
    }
  }
});

test("apply and compact do what the Rust Compactor does", async () => {
  for (const [k, c] of cases.entries()) {
    if (c.plan === null || c.plan.error !== undefined) continue;
    const input = inputs[c.input];
    const name = `case ${k}: ${input.name}, keep ${c.keepRecentTokens}, clearing ${JSON.stringify(c.clearing)}, budget ${c.inputTokenBudget}`;
    const cc = compactor(c);
    const request = requestOf(c, input);
    const plan = cc.plan(request);
    const applied = await settled(cc.apply(request, plan));
    const compacted = await settled(cc.compact(request));
    for (const [way, out, expected] of [["apply", applied, c.record], ["compact", compacted, c.compacted ?? c.record]]) {
      if (expected.error !== undefined) {
        assert.deepEqual(out, expected, `${name}: ${way}`);
        continue;
      }
      assert.deepEqual(recordOf(out, expected), expected, `${name}: ${way}`);
      if (expected.kind === "clear") checkRewritten(out, c, input, `${name}: ${way}`);
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
