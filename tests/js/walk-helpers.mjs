// Shared by the walker suites (walk.test.mjs, walk-formats.test.mjs; bytes.test.mjs reads the
// session from here too): the same messages read together (the walker) and one at a time (the
// general path) must give the same estimates, plans and errors.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CompactionError, Compactor, estimate } from "context-compaction";
import { generator } from "./helpers.mjs";

/** Per-message estimates read together (the walker) and one message at a time (general path). */
export function bothWays(make, format = "canonical") {
  const together = estimate({ messages: make(), format }).messages;
  const alone = make().map((m) => estimate({ messages: [m], format }).messages[0]);
  return { together, alone };
}

/** `messages` repeated to at least 40, so that they are read together. */
export const forty = (messages) => Array.from({ length: Math.ceil(40 / messages.length) }, () => messages).flat();

/**
 * The plan of `make()` read together equals that of a conversation appended one message at a
 * time, at several keep sizes: roles, turn starts and call/result pairs come out the same.
 */
export function samePlans(make, format = "canonical") {
  for (const keepRecentTokens of [50, 300, 1_000, 5_000]) {
    const compactor = new Compactor({ keepRecentTokens, summarizer: generator(async () => "S"), cacheFacts: false });
    const walked = compactor.plan({ messages: make(), format, inputTokenBudget: 0 });
    const conversation = compactor.conversation({ format });
    for (const message of make()) conversation.append(message);
    const general = conversation.plan({ inputTokenBudget: 0 });
    const shape = (p) => p && { ...p, messagesToSummarize: p.messagesToSummarize.length, turnPrefixMessages: p.turnPrefixMessages.length };
    assert.deepEqual(shape(walked), shape(general), `keepRecentTokens ${keepRecentTokens}`);
  }
}

/**
 * The summarizer input of `make()` read by the walker equals the one read through
 * JSON.stringify message by message (each message behind a `toJSON`, which the walker leaves to
 * that path), and what apply sends the generator (records written from the units it reads).
 */
export async function sameSummarizerInput(make, format = "canonical") {
  const compactor = new Compactor({ keepRecentTokens: 2_000, summarizer: generator(async () => "S"), cacheFacts: false });
  const messages = make();
  const plan = compactor.plan({ messages, format, inputTokenBudget: 0 });
  assert.ok(plan.messagesToSummarize.length >= 32);
  const walked = compactor.summarizerInput({ messages, format }, plan);
  const stringified = messages.map((m) => ({ toJSON: () => m }));
  const alone = compactor.summarizerInput({ messages: stringified, format }, plan);
  assert.deepEqual(walked, alone);
  assert.ok(walked[0].prompt.length > 10_000);
  const sent = [];
  const send = async ({ purpose, systemPrompt, messages: [{ content }] }) => (sent.push({ purpose, systemPrompt, prompt: content }), "S");
  const applying = new Compactor({ keepRecentTokens: 2_000, summarizer: generator(send), cacheFacts: false });
  await applying.apply({ messages, format }, plan);
  assert.deepEqual(walked, sent);
}

/** Each bad message, at index 35 of forty read together, fails with an error naming it. */
export function failsWithItsIndex(format, cases, filler = { role: "user", content: "hello" }) {
  const cold = new Compactor({ keepRecentTokens: 200, summarizer: generator(async () => "S"), cacheFacts: false });
  for (const [bad, want] of cases) {
    const messages = forty([filler]);
    messages[35] = bad;
    assert.throws(() => cold.plan({ messages, format, inputTokenBudget: 0 }), (e) => e instanceof CompactionError && want.test(e.message), String(want));
  }
}

/** The real session's 914 canonical messages. */
export function sessionMessages() {
  return readFileSync(`${process.env.CC_ROOT}/tests/fixtures/large-session.jsonl`, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "message")
    .map((entry) => entry.message);
}
