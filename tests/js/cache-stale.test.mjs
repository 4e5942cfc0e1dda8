// The facts cache never serves the last message of a request, which a host may still be
// writing into: a message streamed into in place is estimated as it is now, not as first seen.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, estimate } from "context-compaction";
import { conversation, generator, say, user } from "./helpers.mjs";

const fresh = (request) => new Compactor({ cacheFacts: false, keepRecentTokens: 1, summarizer: generator(async () => "S") }).plan({ ...request, inputTokenBudget: 0 }).messageTokens;

test("a last message streamed into in place gets its new estimate, in estimate() and in a plan", () => {
  const messages = [...conversation(2), say("Let me")];
  const compactor = new Compactor({ keepRecentTokens: 1, summarizer: generator(async () => "S") });
  const last = messages.length - 1;
  let before = estimate({ messages }).messages[last];
  for (let chunk = 0; chunk < 5; chunk++) {
    messages[last].content[0].text += " look at the whole configuration loader and its tests".repeat(20);
    const now = estimate({ messages }).messages[last];
    assert.ok(now > before, `chunk ${chunk}: ${now} > ${before}`);
    assert.equal(compactor.plan({ messages, inputTokenBudget: 0 }).messageTokens[last], now);
    before = now;
  }
  // The finished answer, followed by a new question, is cached as it is now.
  messages.push(user("thanks, and now?"));
  assert.deepEqual([...compactor.plan({ messages, inputTokenBudget: 0 }).messageTokens], [...fresh({ messages })]);
  assert.deepEqual(estimate({ messages }).messages, [...fresh({ messages })]);
});

test("an AI SDK UIMessage whose tool part gets its output in place is estimated with it", () => {
  const part = { type: "tool-read", toolCallId: "c1", state: "input-available", input: { path: "a.ts" } };
  const messages = [
    { id: "u1", role: "user", parts: [{ type: "text", text: "read a.ts" }] },
    { id: "a1", role: "assistant", parts: [{ type: "step-start" }, part] },
  ];
  const request = { format: "ai-sdk-ui", messages };
  const before = estimate(request).messages[1];
  Object.assign(part, { state: "output-available", output: "export const loader = () => 1;\n".repeat(50) });
  const after = estimate(request).messages[1];
  assert.ok(after > before + 100, `${after} vs ${before}`);
  assert.deepEqual(estimate(request).messages, [...fresh(request)]);
});

test("only the last message is read again: the others come from the cache", () => {
  let counted = 0;
  const estimator = { countTokens: (text) => (counted++, text.length) };
  const compactor = new Compactor({ keepRecentTokens: 50, summarizer: generator(async () => "S") });
  const messages = conversation(5);
  compactor.plan({ messages, inputTokenBudget: 0, estimator });
  counted = 0;
  compactor.plan({ messages, inputTokenBudget: 0, estimator });
  // conversation() ends with an answer of one text.
  assert.equal(counted, 1);
});
