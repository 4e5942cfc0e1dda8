// The cold objects path: 32 or more uncached messages are walked in JavaScript, laid out as a
// tape with their strings copied once into wasm (pkg-template/host/walk.js, src/wasm/walk.rs), and
// read by the format's reader. Whatever a message holds, its estimate is the one the
// message-by-message path (JSON.stringify, then the same reader) gives it, errors still name
// the message, and a host exception never escapes. The other formats are in
// walk-formats.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor } from "context-compaction";
import { generator } from "./helpers.mjs";
import { bothWays, failsWithItsIndex, forty, sameSummarizerInput, samePlans, sessionMessages as sessionWithUsage } from "./walk-helpers.mjs";

function deep(levels) {
  let value = { leaf: "x" };
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

class Plain {
  constructor() {
    this.role = "user";
    this.content = "a message built by a class";
  }
}

function edgeCases() {
  return forty([
    { role: "user", content: "plain words, café, 日本語, 😀 and a lone \ud800 surrogate\n\twith\ttabs  and \"quotes\" \\ " },
    { role: "user", content: [{ type: "text", text: "" }, { type: "image", data: "AAAA", mimeType: "image/png" }, { type: "text", text: "see above" }] },
    { role: "user", content: null, timestamp: 1 },
    {
      role: "assistant",
      stopReason: "toolUse",
      content: [
        { type: "thinking", thinking: "let me think\n\nabout it" },
        { type: "text", text: "calling tools" },
        {
          type: "toolCall",
          id: "call_1",
          name: "edit",
          arguments: {
            path: "src/\"main\".rs",
            "key with \n newline": "value\u0001\u001f\b\f\r",
            numbers: [0, -0, 1.5, 1e21, 1e-7, 12345678901234567890, 2 ** 53 + 1, NaN, Infinity, -Infinity],
            flags: [true, false, null, undefined, () => 1, Symbol("s")],
            skipped: undefined,
            fn: () => 1,
            when: new Date(0),
            map: new Map([[1, 2]]),
            custom: { toJSON: () => ({ replaced: "by toJSON" }) },
            empty: [{}, [], ""],
            nested: deep(10),
            lone: "\udc00 alone",
          },
        },
        { type: "toolCall", id: "call_2", name: "noArgs" },
        { type: "toolCall", id: "call_3", name: "fnArgs", arguments: () => 1 },
        { type: "toolCall", id: "call_4", name: "stringArgs", arguments: "just a string" },
        { type: "toolCall", id: "call_5", name: "numberArgs", arguments: 5 },
      ],
    },
    // Nested deeper than the walker goes: read the general way.
    { role: "assistant", content: [{ type: "toolCall", id: "call_6", name: "deepArgs", arguments: deep(70) }] },
    { role: "toolResult", toolCallId: "call_1", toolName: "edit", isError: true, content: [{ type: "text", text: "failed:\n  line 1" }] },
    { role: "toolResult", toolCallId: "call_2", content: "ok" },
    { role: "assistant", content: "a string answer", stopReason: null },
    new Plain(),
    { role: "user", content: "short", toJSON: () => ({ role: "user", content: "what JSON.stringify writes instead, which is longer" }) },
    { role: "user", content: [{ type: "text", text: "a block", toJSON: () => ({ type: "text", text: "another block text" }) }] },
  ]);
}

test("edge cases estimate and plan the same read together as one at a time", () => {
  const { together, alone } = bothWays(edgeCases);
  assert.deepEqual(together, alone);
  samePlans(edgeCases);
});

test("the real session estimates and plans the same read together as one at a time", async () => {
  // Without the usage the session recorded: usage calibrates whole requests (usage.test.mjs), so
  // a message estimated alone would not be comparable; the reading paths are what this checks.
  const sessionMessages = () => sessionWithUsage().map(({ usage: _, ...message }) => message);
  const { together, alone } = bothWays(sessionMessages);
  assert.equal(together.length, 914);
  assert.deepEqual(together, alone);
  samePlans(sessionMessages);
  await sameSummarizerInput(sessionMessages);
});

test("a message that throws while it is read fails with its index and the thrown value as cause", () => {
  const thrown = new Error("getter says no");
  const throwing = { role: "user", get content() { throw thrown; } };
  const { proxy, revoke } = Proxy.revocable({ role: "user", content: "x" }, {});
  revoke();
  const compactor = new Compactor({ keepRecentTokens: 200, summarizer: generator(async () => "S"), cacheFacts: false });
  for (const [bad, cause] of [[throwing, thrown], [proxy, TypeError]]) {
    const messages = forty([{ role: "user", content: "hello" }]);
    messages[35] = bad;
    for (const read of [() => compactor.plan({ messages, inputTokenBudget: 0 }), () => compactor.conversation({ messages })]) {
      assert.throws(read, (e) => {
        assert.ok(e instanceof CompactionError, String(e));
        assert.match(e.message, /messages\[35\]/);
        if (cause === thrown) assert.equal(e.cause, thrown);
        else assert.ok(e.cause instanceof cause, String(e.cause));
        return true;
      });
    }
  }
  // The summarizer input reads its messages through the walker too.
  const small = new Compactor({ keepRecentTokens: 10, summarizer: generator(async () => "S"), cacheFacts: false });
  const messages = forty([{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }]);
  const plan = small.plan({ messages, inputTokenBudget: 0 });
  assert.ok(plan.messagesToSummarize.length > 32);
  messages[3] = throwing;
  assert.throws(() => small.summarizerInput({ messages }, plan), (e) => e instanceof CompactionError && /messages\[3\]/.test(e.message) && e.cause === thrown);
});

test("a message larger than the walker's buffers is read too", () => {
  const make = () => forty([{ role: "user", content: "word ".repeat(1_100_000) }, { role: "assistant", content: "fine" }]);
  const { together, alone } = bothWays(make);
  assert.deepEqual(together, alone);
});

test("a bad message read together still fails with its own index", () => {
  failsWithItsIndex("canonical", [
    [{ role: "assistant", content: [{ type: "toolCall", id: "c", name: "f", arguments: { n: 1n } }] }, /messages\[35\]: cannot be read as JSON/],
    [{ role: "assistant", content: [{ type: "toolCall", id: 7, name: "f" }] }, /messages\[35\]\.content\[0\]\.id/],
    [{ role: "assistant", stopReason: "bored", content: "x" }, /messages\[35\]\.stopReason/],
    [{ role: "toolResult", content: "no id" }, /messages\[35\]\.toolCallId/],
    [{ role: "user", content: [null] }, /messages\[35\]\.content\[0\]/],
    [null, /messages\[35\]/],
    ["a string", /messages\[35\]/],
  ]);
});

test("a conversation created with a long history reads it together, with the same plan", () => {
  const compactor = new Compactor({ keepRecentTokens: 2_000, summarizer: generator(async () => "S") });
  const together = compactor.conversation({ messages: edgeCases() });
  const oneByOne = compactor.conversation();
  for (const message of edgeCases()) oneByOne.append(message);
  const options = { inputTokenBudget: 0 };
  const { messagesToSummarize, turnPrefixMessages, ...plan } = together.plan(options);
  const { messagesToSummarize: m2, turnPrefixMessages: t2, ...want } = oneByOne.plan(options);
  assert.deepEqual(plan, want);
  assert.equal(messagesToSummarize.length, m2.length);
});
