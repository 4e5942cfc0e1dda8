// The Conversation handle: append as messages arrive, plan like compactor.plan, read each
// message once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor } from "context-compaction";
import { conversation, generator, user } from "./helpers.mjs";

const compactorFor = (keep = 200) => new Compactor({ keepRecentTokens: keep, summarizer: generator(async () => "SUMMARY") });

test("a conversation plans exactly like compactor.plan on the same messages", () => {
  const compactor = compactorFor();
  const history = compactor.conversation();
  const messages = conversation(8);
  const options = { systemPrompt: "You help.", summary: "earlier", inputTokenBudget: 0 };
  for (const message of messages) {
    history.append(message);
    assert.deepEqual(history.plan(options), compactor.plan({ ...options, messages: history.messages }));
  }
  assert.equal(history.length, messages.length);
  history.messages.forEach((m, i) => assert.equal(m, messages[i]));
  assert.deepEqual(history.plan({ ...options, requireReduction: true }), compactor.plan({ ...options, requireReduction: true, messages }));
  assert.equal(history.plan({ ...options, inputTokenBudget: 1e9 }), null);
});

test("each message is read once; re-planning reads nothing old", () => {
  let counted = 0;
  const estimator = { countTokens: (t) => (counted++, t.length) };
  const history = compactorFor().conversation({ estimator, messages: conversation(5) });
  const tools = [{ name: "read", description: "Read a file", parameters: { type: "object" } }];
  history.plan({ systemPrompt: "sys", tools, inputTokenBudget: 0 });
  counted = 0;
  history.append(user("one more"));
  history.plan({ systemPrompt: "sys", tools, inputTokenBudget: 0 });
  assert.equal(counted, 1, "only the new message, not the history, system prompt or tools");
});

test("an invalid message appends nothing and names its place", () => {
  const history = compactorFor().conversation({ messages: conversation(1) });
  assert.throws(() => history.append([user("fine"), { role: "robot" }]), (e) => e instanceof CompactionError && /messages\[5\]\.role/.test(e.message));
  assert.equal(history.length, 4);
});

test("after a compaction the conversation starts over with the kept messages", async () => {
  const compactor = compactorFor(100);
  const history = compactor.conversation({ messages: conversation(6) });
  const request = { messages: history.messages, inputTokenBudget: 0 };
  const out = await compactor.apply(request, history.plan({ inputTokenBudget: 0 }));
  history.reset(out.messages);
  assert.equal(history.length, out.messages.length);
  assert.deepEqual(history.plan({ summary: out.summary, inputTokenBudget: 0 }), compactor.plan({ summary: out.summary, messages: out.messages, inputTokenBudget: 0 }));
});

test("conversations carry a format", () => {
  const compactor = compactorFor(0);
  const history = compactor.conversation({ format: "anthropic" });
  history.append([
    { role: "user", content: "hi" },
    { role: "assistant", content: [{ type: "tool_use", id: "a", name: "read", input: { path: "x" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "…" }] },
    { role: "assistant", content: "done" },
  ]);
  assert.equal(history.format, "anthropic");
  const plan = history.plan({ inputTokenBudget: 0 });
  assert.deepEqual(plan, compactor.plan({ format: "anthropic", messages: history.messages, inputTokenBudget: 0 }));
  assert.throws(() => compactor.conversation({ format: "xml" }), (e) => e.code === "invalid_request");
});
