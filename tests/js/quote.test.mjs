// A split turn's small prefix is quoted in the summary instead of summarized: one generate call.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError } from "context-compaction";
import { aiSdkSummarizer } from "context-compaction/ai-sdk";
import { call, generator, result, say, user } from "./helpers.mjs";

const HEADING = "**Turn Context (split turn):**";
const LEAD = "Quoted from the start of the current turn (the rest of it follows this summary):";

/** A history turn, then a split turn: `question`, a read of `output`, and the kept answer. */
const splitTurn = (question, output = "ok") => [user("old"), say("old answer"), user(question), call("a"), result("a", output), say("the kept answer here")];

/** Compacts `messages` (canonical unless `format` is given) keeping one token; the summary, the record, and the purposes of the generate calls. */
async function compact(messages, extra = {}, format = "canonical") {
  const purposes = [];
  const compactor = new Compactor({
    keepRecentTokens: 1,
    summarizer: generator(async (req) => (purposes.push(req.purpose), { text: req.purpose.toUpperCase(), usage: { input: 10, output: 2 } }), extra),
  });
  const request = { format, messages, inputTokenBudget: 0 };
  const plan = compactor.plan(request);
  assert.equal(plan.splitTurn, true);
  const previewed = compactor.summarizerInput(request, plan).map((p) => p.purpose);
  const { summary, record } = await compactor.apply(request, plan);
  assert.deepEqual(previewed, purposes, "summarizerInput previews exactly the calls made");
  return { summary, record, purposes };
}

test("a small turn prefix is quoted under the turn-context heading: one generate call", async () => {
  const { summary, record, purposes } = await compact(splitTurn("new task: rename the config loader"));
  assert.deepEqual(purposes, ["history"]);
  assert.equal(
    summary,
    `HISTORY\n\n${HEADING}\n\n${LEAD}\n\n[User]: new task: rename the config loader\n\n[Tool call] read: {"path":"a.ts"}\n\n[Tool result] read (ok): ok\n\n<read-files>\na.ts\n</read-files>`,
  );
  assert.deepEqual(record.usage, { input: 10, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 12 });
});

test("a large prefix, or one holding a long tool result, is summarized by a second call", async () => {
  const long = await compact(splitTurn("please look at this ".repeat(300)));
  assert.deepEqual(long.purposes, ["history", "turnPrefix"]);
  assert.ok(long.summary.startsWith(`HISTORY\n\n${HEADING}\n\nTURNPREFIX`));
  const output = await compact(splitTurn("new task", "line of output\n".repeat(2000)));
  assert.deepEqual(output.purposes, ["history", "turnPrefix"]);
  assert.equal(output.record.usage.input, 20);
});

test("of a UIMessage cut between steps, only the steps before the cut count", async () => {
  const long = "the rest of the answer, kept word for word ".repeat(300);
  const messages = [
    { id: "u0", role: "user", parts: [{ type: "text", text: "old question" }] },
    { id: "a0", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: "old answer", state: "done" }] },
    { id: "u1", role: "user", parts: [{ type: "text", text: "new task" }] },
    {
      id: "a1",
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-read", toolCallId: "c1", state: "output-available", input: { path: "a.ts" }, output: "ok" },
        { type: "step-start" },
        { type: "text", text: long, state: "done" },
      ],
    },
  ];
  const { summary, purposes } = await compact(messages, {}, "ai-sdk-ui");
  assert.deepEqual(purposes, ["history"]);
  assert.ok(summary.includes(`${LEAD}\n\n[User]: new task\n\n[Tool call] read: {"path":"a.ts"}`), summary);
  assert.ok(!summary.includes("kept word for word"));
});

test("quoteTurnPrefixTokens sets the limit; 0 turns quoting off", async () => {
  const messages = splitTurn("new task");
  assert.deepEqual((await compact(messages, { quoteTurnPrefixTokens: 0 })).purposes, ["history", "turnPrefix"]);
  assert.deepEqual((await compact(messages, { quoteTurnPrefixTokens: null })).purposes, ["history"]);
  const big = splitTurn("please look at this ".repeat(300));
  assert.deepEqual((await compact(big, { quoteTurnPrefixTokens: 100_000 })).purposes, ["history"]);
});

test("a bad quoteTurnPrefixTokens is an invalid_config naming it", () => {
  for (const bad of [-1, 1.5, "1000", Infinity]) {
    assert.throws(
      () => new Compactor({ summarizer: generator(async () => "S", { quoteTurnPrefixTokens: bad }) }),
      (err) => err instanceof CompactionError && err.code === "invalid_config" && /summarizer\.quoteTurnPrefixTokens/.test(err.message),
      String(bad),
    );
  }
});

test("aiSdkSummarizer passes quoteTurnPrefixTokens to the summarizer, not to generateText", async () => {
  const calls = [];
  const generateText = async (call) => (calls.push(call), { text: "S" });
  const config = aiSdkSummarizer({ model: "m", generateText, quoteTurnPrefixTokens: 0 });
  assert.equal(config.quoteTurnPrefixTokens, 0);
  const compactor = new Compactor({ keepRecentTokens: 1, summarizer: config });
  await compactor.compact({ messages: splitTurn("new task"), inputTokenBudget: 0 });
  assert.equal(calls.length, 2);
  assert.ok(calls.every((call) => !("quoteTurnPrefixTokens" in call)));
});
