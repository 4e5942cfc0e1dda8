// The cold objects path: 32 or more uncached canonical (or OpenAI Chat) messages are walked in JavaScript and their
// strings copied once into wasm (pkg-template/walk.js, src/body/walked.rs). Whatever a message
// holds, its estimate is the one the message-by-message path (JSON.stringify, then serde_json)
// gives it, and errors still name the message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CompactionError, Compactor, estimate } from "context-compaction";
import { generator } from "./helpers.mjs";

/** Per-message estimates read together (the walker) and one message at a time (general path). */
function bothWays(make, format = "canonical") {
  const together = estimate({ messages: make(), format }).messages;
  const alone = make().map((m) => estimate({ messages: [m], format }).messages[0]);
  return { together, alone };
}

/** `messages` repeated to at least 40, so that they are read together. */
const forty = (messages) => Array.from({ length: Math.ceil(40 / messages.length) }, () => messages).flat();

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

test("edge cases estimate the same read together as one at a time", () => {
  const { together, alone } = bothWays(edgeCases);
  assert.deepEqual(together, alone);
});

test("the real session estimates the same read together as one at a time", () => {
  const session = () =>
    readFileSync(`${process.env.CC_ROOT}/tests/fixtures/large-session.jsonl`, "utf8")
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.type === "message")
      .map((entry) => entry.message);
  const { together, alone } = bothWays(session);
  assert.equal(together.length, 914);
  assert.deepEqual(together, alone);
});

test("a message larger than the walker's buffers is read too", () => {
  const make = () => forty([{ role: "user", content: "word ".repeat(1_100_000) }, { role: "assistant", content: "fine" }]);
  const { together, alone } = bothWays(make);
  assert.deepEqual(together, alone);
});

test("a bad message read together still fails with its own index", () => {
  const cold = new Compactor({ keepRecentTokens: 200, summarizer: generator(async () => "S"), cacheFacts: false });
  const cases = [
    [{ role: "assistant", content: [{ type: "toolCall", id: "c", name: "f", arguments: { n: 1n } }] }, /messages\[35\]: cannot be read as JSON/],
    [{ role: "assistant", content: [{ type: "toolCall", id: 7, name: "f" }] }, /messages\[35\]\.content\[0\]\.id/],
    [{ role: "assistant", stopReason: "bored", content: "x" }, /messages\[35\]\.stopReason/],
    [{ role: "toolResult", content: "no id" }, /messages\[35\]\.toolCallId/],
    [{ role: "user", content: [null] }, /messages\[35\]\.content\[0\]/],
    [null, /messages\[35\]/],
    ["a string", /messages\[35\]/],
  ];
  for (const [bad, want] of cases) {
    const messages = forty([{ role: "user", content: "hello" }]);
    messages[35] = bad;
    assert.throws(() => cold.plan({ messages, inputTokenBudget: 0 }), (e) => e instanceof CompactionError && want.test(e.message), String(want));
  }
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

// OpenAI Chat messages are walked as the canonical messages the format adapter makes of them.
const openAI = (messages) => bothWays(() => messages(), "openai-chat");

function openAIEdgeCases() {
  return forty([
    { role: "user", content: "plain words, café, 😀, a lone \ud800 surrogate\n\ttabs" },
    { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:," } }, { type: "input_audio" }, { type: "file" }, { type: "text", text: null }] },
    { role: "user", content: null, name: "someone" },
    {
      role: "assistant",
      content: [{ type: "text", text: "calling" }, { type: "refusal", refusal: "no" }, { type: "text", text: "", refusal: "ignored" }],
      refusal: "I can't",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "edit", arguments: '{"path":"a.rs","n":1.50,"e":1e2,"s":"caf\\u00e9 \\/"}' } },
        { id: "c2", type: "function", function: { name: "spaced", arguments: '  { "a" : [1, 2] }\n' } },
        { id: "c3", type: "function", function: { name: "notJson", arguments: "{broken" } },
        { id: "c4", type: "function", function: { name: "empty", arguments: "" } },
        { id: "c5", type: "function", function: { name: "missing" } },
        { id: "c6", type: "function", function: { name: "nullArgs", arguments: null } },
        { id: "c7", type: "function", function: { name: "repeated", arguments: '{"k":1,"k":2}' } },
        { id: "c8", type: "function", function: { name: "deep", arguments: "[".repeat(200) + "]".repeat(200) } },
      ],
    },
    { role: "assistant", content: null, tool_calls: null, refusal: null },
    { role: "tool", tool_call_id: "c1", content: "done" },
    { role: "tool", tool_call_id: "c2", content: [{ type: "text", text: "part one" }, { type: "text", text: "part two" }] },
    // Read the general way: system texts are joined, legacy function calls and results.
    { role: "system", content: [{ type: "text", text: "be" }, { type: "text", text: "brief" }] },
    { role: "developer", content: "rules" },
    { role: "assistant", content: null, function_call: { name: "legacy", arguments: "{}" } },
    { role: "function", name: "legacy", content: "legacy result" },
    { role: "user", content: "short", toJSON: () => ({ role: "user", content: "what JSON.stringify writes instead" }) },
  ]);
}

test("OpenAI Chat edge cases estimate the same read together as one at a time", () => {
  const { together, alone } = openAI(openAIEdgeCases);
  assert.deepEqual(together, alone);
});

test("the real session as OpenAI Chat messages estimates the same read together", () => {
  const text = (content) => (typeof content === "string" ? content : (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n"));
  const session = () =>
    readFileSync(`${process.env.CC_ROOT}/tests/fixtures/large-session.jsonl`, "utf8")
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.type === "message")
      .map(({ message: m }) => {
        if (m.role === "user") return { role: "user", content: m.content };
        if (m.role === "toolResult") return { role: "tool", tool_call_id: m.toolCallId, content: text(m.content) };
        const calls = (m.content ?? []).filter((b) => b.type === "toolCall");
        return {
          role: "assistant",
          content: text(m.content) || null,
          tool_calls: calls.map((b) => ({ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.arguments) } })),
        };
      });
  const { together, alone } = openAI(session);
  assert.equal(together.length, 914);
  assert.deepEqual(together, alone);
});

test("a bad OpenAI Chat message read together still fails with its own index", () => {
  const cold = new Compactor({ keepRecentTokens: 200, summarizer: generator(async () => "S"), cacheFacts: false });
  const cases = [
    [{ role: "tool", content: "no id" }, /messages\[35\]\.tool_call_id/],
    [{ role: "assistant", tool_calls: [{ id: "c", function: { name: "f", arguments: { a: 1 } } }] }, /messages\[35\]\.tool_calls\[0\]\.function\.arguments/],
    [{ role: "assistant", tool_calls: [{ id: "c" }] }, /messages\[35\]\.tool_calls\[0\]\.function/],
    [{ role: "user", content: [{ type: "video" }] }, /messages\[35\]\.content\[0\]\.type/],
    [{ role: "robot" }, /messages\[35\]\.role/],
  ];
  for (const [bad, want] of cases) {
    const messages = forty([{ role: "user", content: "hello" }]);
    messages[35] = bad;
    assert.throws(() => cold.plan({ messages, format: "openai-chat", inputTokenBudget: 0 }), (e) => e instanceof CompactionError && want.test(e.message), String(want));
  }
});
