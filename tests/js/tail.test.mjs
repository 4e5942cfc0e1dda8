// Plan only the tail when anchored: a long history whose latest answers carry usage is planned
// from the exact facts of its latest messages (and its system messages), calibrated by the
// reports inside them; the others are not read, and their messageTokens are sized when first
// read. Compared with `planBytes`, which reads every message of the same history.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor, estimate } from "context-compaction";
import { countingContent } from "./helpers.mjs";

const { history, openAIChat, aiSdkUi } = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);
const summarizer = { summarize: async () => "S" };

const canonicalUsage = (input) => ({ input, output: 0, cacheRead: 0, cacheWrite: 0 });

/** `messages` (of `format`), each answer carrying the usage a provider would report for its
 * request (1.22 × our estimate, the session's measured ratio, of the messages it was sent:
 * never a failed attempt), in the shape `usage` makes. */
function anchored(messages, format = "canonical", usage = canonicalUsage) {
  const tokens = estimate({ messages, format }).messages;
  let sum = 0;
  messages.forEach((m, i) => {
    if (m.role === "assistant") m.usage = usage(Math.round(sum * 1.22));
    if (!failed(m)) sum += tokens[i];
  });
  return messages;
}

const failed = (m) => m.role === "assistant" && (m.stopReason === "aborted" || m.stopReason === "error");

const compactor = (keepRecentTokens) => new Compactor({ keepRecentTokens, summarizer, cacheFacts: false });

/** The plan of `messages` by `c`, and how many times their `content` was read. */
function counted(messages, c) {
  const watched = countingContent(messages);
  return { plan: c.plan({ messages: watched.messages, inputTokenBudget: 0 }), reads: watched.reads() };
}

test("a malformed message before the tail is not read by the plan; apply names it", async () => {
  const messages = anchored(history(3_000));
  messages[5] = { role: "user", content: 42 };
  const c = compactor(20_000);
  const plan = c.plan({ messages, inputTokenBudget: 0 });
  assert.ok(plan.firstKeptIndex > 2_000, `${plan.firstKeptIndex}`);
  // Read whole (the body, or the objects without usage), the same history is refused.
  assert.throws(() => c.planBytes(JSON.stringify(messages), { inputTokenBudget: 0 }), /messages\[5\]\.content/);
  const plain = messages.map(({ usage: _, ...m }) => m);
  assert.throws(() => c.plan({ messages: plain, inputTokenBudget: 0 }), /messages\[5\]\.content/);
  // Summarizing reads what it summarizes.
  await assert.rejects(c.apply({ messages, inputTokenBudget: 0 }, plan), /messages\[5\]\.content/);
});

test("getters that throw on early messages: the plan skips them in its sample; messageTokens and apply name them", async () => {
  const messages = anchored(history(3_000));
  // The first 64: among them, messages the plan's sample of sizes would read (one in each 8).
  for (const early of messages.slice(0, 64)) {
    Object.defineProperty(early, "content", {
      enumerable: true,
      get() {
        throw new Error("draft revoked");
      },
    });
  }
  const c = compactor(20_000);
  const plan = c.plan({ messages, inputTokenBudget: 0 });
  assert.ok(plan.firstKeptIndex > 2_000, `${plan.firstKeptIndex}`);
  // The messages before the tail are sized when messageTokens is first read.
  const error = (() => {
    try {
      return plan.messageTokens;
    } catch (e) {
      return e;
    }
  })();
  assert.ok(error instanceof CompactionError, String(error));
  assert.equal(error.code, "invalid_request");
  assert.match(error.message, /messages\[0\]: reading it threw: draft revoked/);
  assert.equal(error.cause?.message, "draft revoked");
  // Summarizing reads what it summarizes, and names it the same way.
  await assert.rejects(c.apply({ messages, inputTokenBudget: 0 }, plan), /messages\[0\]: reading it threw: draft revoked/);
  // A key the format does not read is never touched, by the plan or its messageTokens.
  const other = anchored(history(3_000));
  Object.defineProperty(other[7], "timestamp", {
    enumerable: true,
    get() {
      throw new Error("not read");
    },
  });
  assert.ok(c.plan({ messages: other, inputTokenBudget: 0 }).messageTokens[7] > 0);
});

test("messageTokens of the messages before the tail: sized on first read, then a plain field", () => {
  const messages = anchored(history(4_000));
  const c = compactor(20_000);
  const whole = c.planBytes(JSON.stringify(messages), { inputTokenBudget: 0 });
  const plan = c.plan({ messages, inputTokenBudget: 0 });
  const field = () => Object.getOwnPropertyDescriptor(plan, "messageTokens");
  assert.equal(typeof field().get, "function");
  assert.ok(Object.keys(plan).includes("messageTokens"), "enumerable before it is read");
  const tokens = plan.messageTokens;
  assert.ok(tokens instanceof Float64Array && tokens.length === messages.length);
  // Read once, it stays: the same array, now a plain writable field.
  assert.equal(plan.messageTokens, tokens);
  assert.equal(field().value, tokens);
  assert.equal(field().writable, true);
  // Every message has an estimate; those not read add up to about what reading them gives.
  assert.ok(tokens.every((t, i) => Number.isFinite(t) && (t > 0 || whole.messageTokens[i] === 0)));
  const sum = (p, from, to) => p.messageTokens.slice(from, to).reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum(plan, 0, 3_000) / sum(whole, 0, 3_000) - 1) < 0.06, `${sum(plan, 0, 3_000)} vs ${sum(whole, 0, 3_000)}`);
  // Set before it is read, the caller's value replaces it; so does JSON see it.
  const other = c.plan({ messages, inputTokenBudget: 0 });
  other.messageTokens = "mine";
  assert.equal(other.messageTokens, "mine");
  const json = JSON.parse(JSON.stringify(c.plan({ messages, inputTokenBudget: 0 })));
  assert.equal(Object.keys(json.messageTokens).length, messages.length);
  // A frozen plan (Immer and other stores freeze what they hold) still reads it, once.
  const frozen = Object.freeze(c.plan({ messages, inputTokenBudget: 0 }));
  const once = frozen.messageTokens;
  assert.deepEqual([...once], [...tokens]);
  assert.equal(frozen.messageTokens, once);
  assert.ok(structuredClone(c.plan({ messages, inputTokenBudget: 0 })).messageTokens instanceof Float64Array);
});

test("only the latest answer carries usage: every message is sized, the whole prefix calibrates", () => {
  const messages = anchored(history(3_000));
  const last = messages.findLastIndex((m) => m.role === "assistant" && !failed(m));
  messages.forEach((m, i) => {
    if (i !== last) delete m.usage;
  });
  const { plan, reads } = counted(messages, compactor(20_000));
  assert.ok(plan.firstKeptIndex > 2_000, `${plan.firstKeptIndex}`);
  // No second report in the tail to take a ratio between: the size pass reads every message.
  assert.ok(reads > messages.length, `${reads} reads of content for ${messages.length} messages`);
  // Not deferred: the size pass gave every message its estimate.
  assert.equal(typeof Object.getOwnPropertyDescriptor(plan, "messageTokens").get, "undefined");
  // The report plus what follows it (a tool result, at a ratio 1.2% apart).
  const whole = compactor(20_000).planBytes(JSON.stringify(messages), { inputTokenBudget: 0 });
  assert.ok(Math.abs(plan.estimateBefore / whole.estimateBefore - 1) < 1e-4, `${plan.estimateBefore} vs ${whole.estimateBefore}`);
});

test("short messages: the tail grows until its reports span enough to give a ratio", () => {
  // 3,000 messages of a few tokens each: 256 of them span far less than a ratio needs.
  const messages = [];
  for (let i = 0; i < 1_500; i++) {
    messages.push({ role: "user", content: `question ${i}: what next?` });
    messages.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}: the next step is ${i + 1}.` }] });
  }
  anchored(messages);
  const { plan, reads } = counted(messages, compactor(1_000));
  // Read from a longer tail, never sized whole.
  assert.ok(reads < messages.length, `${reads} reads of content for ${messages.length} messages`);
  const whole = compactor(1_000).planBytes(JSON.stringify(messages), { inputTokenBudget: 0 });
  assert.equal(plan.firstKeptIndex, whole.firstKeptIndex);
  assert.ok(Math.abs(plan.estimateBefore - whole.estimateBefore) <= 2);
  assert.equal(plan.estimateAfterWithoutSummary, whole.estimateAfterWithoutSummary);
});

test("a failed attempt before the tail is not read; its messageTokens are 0, as when read", () => {
  const messages = anchored(history(3_000));
  const failed = messages.flatMap((m, i) => (i < 2_000 && (m.stopReason === "aborted" || m.stopReason === "error") ? [i] : []));
  assert.ok(failed.length > 10, `${failed.length}`);
  const c = compactor(20_000);
  const whole = c.planBytes(JSON.stringify(messages), { inputTokenBudget: 0 });
  const tail = c.plan({ messages, inputTokenBudget: 0 });
  // Calibrated, a failed attempt counts 0 (the provider never sees it), read or not.
  for (const i of failed) {
    assert.equal(whole.messageTokens[i], 0, `messages[${i}]`);
    assert.equal(tail.messageTokens[i], 0, `messages[${i}]`);
  }
  // Not read: a malformed one is not reported by the plan (apply names it).
  const broken = failed[0];
  messages[broken] = { ...messages[broken], content: 42 };
  assert.throws(() => c.planBytes(JSON.stringify(messages), { inputTokenBudget: 0 }), new RegExp(`messages\\[${broken}\\]\\.content`));
  const planned = c.plan({ messages, inputTokenBudget: 0 });
  assert.equal(planned.messageTokens[broken], 0);
  assert.equal(planned.firstKeptIndex, tail.firstKeptIndex);
  // Only an answer with its own stopReason is: a user message that says "aborted" is sized.
  const user = messages.findIndex((m, i) => i < 2_000 && m.role === "user");
  messages[user] = { ...messages[user], stopReason: "aborted" };
  assert.ok(c.plan({ messages, inputTokenBudget: 0 }).messageTokens[user] > 0);
});

test("the tail plan takes the whole history's decisions at every budget", () => {
  const messages = anchored(history(4_000));
  const body = JSON.stringify(messages);
  for (const keep of [2_000, 8_000, 20_000, 40_000]) {
    const c = compactor(keep);
    const whole = c.planBytes(body, { inputTokenBudget: 0 });
    const tail = c.plan({ messages, inputTokenBudget: 0 });
    // The estimate before is the report (the last answer's) plus what follows, calibrated:
    // the same but for rounding.
    assert.ok(Math.abs(tail.estimateBefore - whole.estimateBefore) <= 2, `${tail.estimateBefore} vs ${whole.estimateBefore}`);
    // Away from the line itself (the budget equal to the estimate), where rounding decides.
    for (const f of [0.5, 0.8, 0.95, 0.999, 1.001, 1.05, 1.2, 2]) {
      const inputTokenBudget = Math.round(whole.estimateBefore * f);
      const planned = c.plan({ messages, inputTokenBudget });
      assert.equal(planned === null, c.planBytes(body, { inputTokenBudget }) === null, `keep ${keep}, budget ${inputTokenBudget}`);
    }
    // The cut: the same rules over the same tail, in tokens calibrated by a ratio whose whole
    // prefix is estimated from its size (2.2% off here), so within a few messages.
    assert.ok(Math.abs(tail.firstKeptIndex - whole.firstKeptIndex) <= 16, `keep ${keep}: ${tail.firstKeptIndex} vs ${whole.firstKeptIndex}`);
    const kept = (p) => p.estimateAfterWithoutSummary;
    assert.ok(Math.abs(kept(tail) / kept(whole) - 1) < 0.04, `keep ${keep}: ${kept(tail)} vs ${kept(whole)}`);
    // Messages read exactly are estimated as the whole history's are, with the ratio.
    const latest = (p) => p.messageTokens.slice(-200).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(latest(tail) / latest(whole) - 1) < 0.04, `keep ${keep}: ${latest(tail)} vs ${latest(whole)}`);
  }
});

test("without usage a long history is read whole, exactly as before", () => {
  const messages = history(3_000);
  const c = compactor(20_000);
  const shape = (p) => ({ ...p, messagesToSummarize: undefined, turnPrefixMessages: undefined, messageSpans: undefined, messageTokens: [...p.messageTokens] });
  assert.deepEqual(shape(c.plan({ messages, inputTokenBudget: 0 })), shape(c.planBytes(JSON.stringify(messages), { inputTokenBudget: 0 })));
});

test("a system message before the tail stays, read exactly", () => {
  const usage = (prompt_tokens) => ({ prompt_tokens, completion_tokens: 0 });
  const chat = openAIChat(history(3_000));
  const system = { role: "system", content: "You are a careful coding agent. ".repeat(200) };
  const messages = anchored([system, ...chat], "openai-chat", usage);
  const c = compactor(20_000);
  const tail = c.plan({ messages, format: "openai-chat", inputTokenBudget: 0 });
  const whole = c.planBytes(JSON.stringify(messages), { format: "openai-chat", inputTokenBudget: 0 });
  assert.ok(!tail.messagesToSummarize.includes(system));
  assert.equal(tail.messagesToSummarize[0], messages[1]);
  // Its tokens are in the estimate after, as when every message is read.
  assert.ok(Math.abs(tail.messageTokens[0] / whole.messageTokens[0] - 1) < 0.04);
  assert.ok(tail.estimateAfterWithoutSummary > tail.messageTokens[0]);
  assert.ok(Math.abs(tail.estimateAfterWithoutSummary / whole.estimateAfterWithoutSummary - 1) < 0.04);
});

test("AI SDK UIMessages, whose answers hold their calls and results: planned from the tail too", () => {
  // 2,300 UIMessages, each answer a whole turn of steps, its usage in metadata.
  const messages = aiSdkUi(history(12_000));
  const tokens = estimate({ messages, format: "ai-sdk-ui" }).messages;
  let sum = 0;
  messages.forEach((m, i) => {
    if (m.role === "assistant") m.metadata = { usage: { inputTokens: Math.round(sum * 1.22), outputTokens: 0 } };
    sum += tokens[i];
  });
  const watched = countingContent(messages, "parts");
  const c = compactor(20_000);
  const plan = c.plan({ messages: watched.messages, format: "ai-sdk-ui", inputTokenBudget: 0 });
  const reads = watched.reads();
  assert.ok(reads < messages.length / 2, `${reads} reads of parts for ${messages.length} messages`);
  const whole = c.planBytes(JSON.stringify(messages), { format: "ai-sdk-ui", inputTokenBudget: 0 });
  assert.equal(plan.firstKeptIndex, whole.firstKeptIndex);
  assert.equal(plan.firstKeptPart, whole.firstKeptPart);
  assert.equal(plan.estimateBefore, whole.estimateBefore);
});
