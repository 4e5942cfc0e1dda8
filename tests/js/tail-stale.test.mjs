// A long history whose usage is all stale (copied from another conversation, or from before a
// rewrite) is planned as it would be without usage, reading each message once: a sample of the
// sizes shows that no report can be usable before the size pass of a plan from the tail runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, estimate } from "context-compaction";
import { countingContent } from "./helpers.mjs";

const { history } = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);
const compactor = () => new Compactor({ keepRecentTokens: 20_000, summarizer: { summarize: async () => "S" }, cacheFacts: false });

/** `messages`, each answer reporting `scale` times our estimate of its request. */
function reporting(messages, scale) {
  const tokens = estimate({ messages, format: "canonical" }).messages;
  let sum = 0;
  messages.forEach((m, i) => {
    if (m.role === "assistant") m.usage = { input: Math.round(sum * scale), output: 0, cacheRead: 0, cacheWrite: 0 };
    sum += tokens[i];
  });
  return messages;
}

/** The plan of `messages`, and how many times their `content` was read by it (and so far: `read()`). */
function counted(messages) {
  const watched = countingContent(messages);
  const plan = compactor().plan({ messages: watched.messages, inputTokenBudget: 0 });
  return { plan, reads: watched.reads(), read: watched.reads };
}

test("stale usage: the plan is the one without usage, each message read once", () => {
  // Every report a tenth of our estimate: calibration would skip them all.
  const messages = reporting(history(3_000), 0.1);
  const { plan, reads } = counted(messages);
  const plain = compactor().plan({ messages: messages.map(({ usage: _, ...m }) => m), inputTokenBudget: 0 });
  assert.equal(plan.firstKeptIndex, plain.firstKeptIndex);
  assert.equal(plan.estimateBefore, plain.estimateBefore);
  // The walker reads each message once (the last 128 by the tail's first look, which the
  // full read does not read again: 3,509 reads, 3,653 before it took them from there); the sizer
  // reads them again and one in 8 before them, for the sample. The size pass would read every
  // message again.
  assert.ok(reads < 1.2 * messages.length, `${reads} reads of content for ${messages.length} messages`);
});

test("usable usage: the plan still reads only the tail exactly", () => {
  const messages = reporting(history(3_000), 1.22);
  const { plan, reads, read } = counted(messages);
  assert.ok(plan.firstKeptIndex > 2_000, `${plan.firstKeptIndex}`);
  // The messages before the tail are not read: one in eight is sized (the sample), the tail
  // and the latest 128 are read exactly.
  assert.ok(reads < 0.4 * messages.length, `${reads} reads of content for ${messages.length} messages`);
  // Their messageTokens are, when read.
  assert.equal(plan.messageTokens.length, messages.length);
  assert.ok(read() >= reads + messages.length, "sized on first read");
});
