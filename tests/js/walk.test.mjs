// The cold objects path: 32 or more uncached messages (canonical, OpenAI Chat, Anthropic or AI SDK
// ones) are walked in JavaScript and their strings copied once into wasm (pkg-template/walk.js,
// src/body/walked.rs). Whatever a message
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

// Anthropic and AI SDK messages are walked as the canonical units their adapters make of them: a
// host message may hold several (each framed), and its role and turn follow from them, so plans
// are compared too.
function samePlans(make, format) {
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

function failsWithItsIndex(format, cases) {
  const cold = new Compactor({ keepRecentTokens: 200, summarizer: generator(async () => "S"), cacheFacts: false });
  for (const [bad, want] of cases) {
    const messages = forty([{ role: "user", content: "hello" }]);
    messages[35] = bad;
    assert.throws(() => cold.plan({ messages, format, inputTokenBudget: 0 }), (e) => e instanceof CompactionError && want.test(e.message), String(want));
  }
}

/** The session's messages, each turned into host messages by `convert(message, previous)`. */
function sessionAs(convert) {
  return readFileSync(`${process.env.CC_ROOT}/tests/fixtures/large-session.jsonl`, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "message")
    .reduce((out, { message }) => convert(message, out), []);
}

const texts = (content) => (typeof content === "string" ? content : (content ?? []).map((b) => (b.type === "text" ? { type: "text", text: b.text } : { type: "image", source: { type: "base64", media_type: b.mimeType, data: b.data } })));

function anthropicEdgeCases() {
  return forty([
    { role: "user", content: "plain words, café, 😀, a lone \ud800 surrogate\n\ttabs" },
    {
      role: "user",
      content: [
        { type: "text", text: "before" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
        { type: "tool_result", tool_use_id: "t1", content: "plain result" },
        { type: "tool_result", tool_use_id: "t2", is_error: true, content: [{ type: "text", text: "failed" }, { type: "image", source: {} }, { type: "document", source: {} }] },
        { type: "document", source: {} },
        { type: "search_result", source: "s", title: "t", content: [] },
        { type: "text", text: "after", cache_control: { type: "ephemeral" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t3" }, { type: "tool_result", tool_use_id: "t4", content: null, is_error: null }] },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hmm\n\nyes", signature: "sig" },
        { type: "redacted_thinking", data: "opaque bytes" },
        { type: "redacted_thinking" },
        { type: "text", text: "calling" },
        { type: "tool_use", id: "t1", name: "edit", input: { path: "a.rs", n: 1.5, when: new Date(0), list: [1, null, "x"] } },
        { type: "tool_use", id: "t2", name: "noInput" },
        { type: "tool_use", id: "t3", name: "nullInput", input: null },
        { type: "server_tool_use", id: "s1", name: "web_search", input: { query: "oslo weather" } },
        { type: "web_search_tool_result", tool_use_id: "s1", content: [{ type: "web_search_result", url: "https://example.com", title: "Oslo", encrypted_content: "abc" }] },
        { type: "web_search_tool_result", tool_use_id: "s2", content: { type: "web_search_tool_result_error", error_code: "unavailable" } },
        { type: "code_execution_tool_result", tool_use_id: "s3", content: "a string result" },
        { type: "mcp_tool_result", tool_use_id: "s4" },
        { type: "mcp_tool_result", tool_use_id: "s5", content: new Date(0) },
      ],
    },
    { role: "assistant", content: "a string answer" },
    { role: "assistant", content: null },
    // Read the general way: no blocks (no units), a toJSON.
    { role: "user", content: [] },
    { role: "user" },
    { role: "user", content: "short", toJSON: () => ({ role: "user", content: "what JSON.stringify writes instead" }) },
  ]);
}

test("Anthropic edge cases estimate and plan the same read together as one at a time", () => {
  const { together, alone } = bothWays(anthropicEdgeCases, "anthropic");
  assert.deepEqual(together, alone);
  samePlans(anthropicEdgeCases, "anthropic");
});

test("the real session as Anthropic messages estimates and plans the same read together", () => {
  const session = () =>
    sessionAs((m, out) => {
      const last = out[out.length - 1];
      if (m.role === "toolResult") {
        const block = { type: "tool_result", tool_use_id: m.toolCallId, is_error: m.isError, content: texts(m.content) };
        // Consecutive results go in one user message, as Anthropic wants them.
        if (last?.role === "user" && Array.isArray(last.content) && last.content.every((b) => b.type === "tool_result")) last.content.push(block);
        else out.push({ role: "user", content: [block] });
        return out;
      }
      if (m.role === "user") return [...out, { role: "user", content: texts(m.content) }];
      const blocks = (m.content ?? []).map((b) =>
        b.type === "toolCall" ? { type: "tool_use", id: b.id, name: b.name, input: b.arguments } : b.type === "thinking" ? { type: "thinking", thinking: b.thinking, signature: "" } : { type: "text", text: b.text },
      );
      return [...out, { role: "assistant", content: blocks }];
    });
  const { together, alone } = bothWays(session, "anthropic");
  assert.ok(together.length > 500);
  assert.deepEqual(together, alone);
  samePlans(session, "anthropic");
});

test("a bad Anthropic message read together still fails with its own index", () => {
  failsWithItsIndex("anthropic", [
    [{ role: "user", content: [{ type: "tool_result", content: "no id" }] }, /messages\[35\]\.content\[0\]\.tool_use_id/],
    [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", is_error: "yes" }] }, /messages\[35\]\.content\[0\]\.is_error/],
    [{ role: "user", content: [{ type: "text", text: "ok" }, { type: "video" }] }, /messages\[35\]\.content\[1\]\.type/],
    [{ role: "assistant", content: [{ type: "text", text: 5 }] }, /messages\[35\]\.content\[0\]\.text/],
    [{ role: "assistant", content: [{ type: "tool_use", id: "t" }] }, /messages\[35\]\.content\[0\]\.name/],
    [{ role: "system", content: "no system role here" }, /messages\[35\]\.role/],
  ]);
});

function aiSdkEdgeCases() {
  return forty([
    { role: "system", content: "be brief" },
    { role: "user", content: "plain words, café, 😀, a lone \udc00 surrogate" },
    { role: "user", content: [{ type: "text", text: "look" }, { type: "image", image: "data:," }, { type: "file", data: "x", mediaType: "application/pdf" }] },
    { role: "user" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "thinking it over" },
        { type: "text", text: "calling" },
        { type: "tool-call", toolCallId: "c1", toolName: "edit", input: { path: "a.rs", n: [1.5, 1e21] } },
        { type: "tool-call", toolCallId: "c2", toolName: "old", args: { v: 4 } },
        { type: "tool-call", toolCallId: "c3", toolName: "both", input: null, args: "fallback" },
        { type: "tool-call", toolCallId: "c4", toolName: "none" },
        { type: "tool-call", toolCallId: "c5", toolName: "search", providerExecuted: true, input: {} },
        { type: "tool-result", toolCallId: "c5", toolName: "search", output: { type: "json", value: { hits: ["a", "b"] } } },
        { type: "file", mediaType: "image/png", data: "AAAA" },
        { type: "file", data: "AAAA" },
      ],
    },
    { role: "assistant", content: "a string answer" },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "c1", toolName: "edit", output: { type: "text", value: "edited" } },
        { type: "tool-result", toolCallId: "c2", output: { type: "json", value: "a JSON string" } },
        { type: "tool-result", toolCallId: "c3", output: { type: "error-text", value: { not: "a string" } } },
        { type: "tool-result", toolCallId: "c4", output: { type: "error-json", value: [1, null, true] } },
        { type: "tool-result", toolCallId: "c5", output: { type: "content", value: [{ type: "text", text: "see" }, { type: "media", data: "x", mediaType: "image/png" }, { type: "image-url", url: "u" }] } },
        { type: "tool-result", toolCallId: "c6", output: { type: "content" } },
        { type: "tool-result", toolCallId: "c7", output: { type: "text", value: new Date(0) } },
        { type: "tool-result", toolCallId: "c8", result: { v4: "result" }, isError: true },
        { type: "tool-result", toolCallId: "c9" },
      ],
    },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c10", output: { type: "text", value: "one" } }] },
    // Read the general way: no results (no units).
    { role: "tool", content: [] },
  ]);
}

test("AI SDK edge cases estimate and plan the same read together as one at a time", () => {
  const { together, alone } = bothWays(aiSdkEdgeCases, "ai-sdk");
  assert.deepEqual(together, alone);
  samePlans(aiSdkEdgeCases, "ai-sdk");
});

test("the real session as AI SDK messages estimates and plans the same read together", () => {
  const parts = (content) => (typeof content === "string" ? content : texts(content).map((b) => (b.type === "text" ? b : { type: "image", image: b.source.data, mediaType: b.source.media_type })));
  const session = () =>
    sessionAs((m, out) => {
      const last = out[out.length - 1];
      if (m.role === "toolResult") {
        const value = (m.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
        const part = { type: "tool-result", toolCallId: m.toolCallId, toolName: m.toolName, output: { type: m.isError ? "error-text" : "text", value } };
        if (last?.role === "tool") last.content.push(part);
        else out.push({ role: "tool", content: [part] });
        return out;
      }
      if (m.role === "user") return [...out, { role: "user", content: parts(m.content) }];
      const content = (m.content ?? []).map((b) =>
        b.type === "toolCall" ? { type: "tool-call", toolCallId: b.id, toolName: b.name, input: b.arguments } : b.type === "thinking" ? { type: "reasoning", text: b.thinking } : { type: "text", text: b.text },
      );
      return [...out, { role: "assistant", content }];
    });
  const { together, alone } = bothWays(session, "ai-sdk");
  assert.ok(together.length > 500);
  assert.deepEqual(together, alone);
  samePlans(session, "ai-sdk");
});

test("a bad AI SDK message read together still fails with its own index", () => {
  failsWithItsIndex("ai-sdk", [
    [{ role: "tool", content: [{ type: "tool-result", output: { type: "text", value: "no id" } }] }, /messages\[35\]\.content\[0\]\.toolCallId/],
    [{ role: "tool", content: [{ type: "tool-result", toolCallId: "c", output: { type: "video" } }] }, /messages\[35\]\.content\[0\]\.output\.type/],
    [{ role: "tool", content: [{ type: "tool-call" }] }, /messages\[35\]\.content\[0\]\.type/],
    [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c" }] }, /messages\[35\]\.content\[0\]\.toolName/],
    [{ role: "user", content: [{ type: "text", text: ["not", "a string"] }] }, /messages\[35\]\.content\[0\]\.text/],
    [{ role: "robot" }, /messages\[35\]\.role/],
  ]);
});

function responsesEdgeCases() {
  return forty([
    { role: "user", content: "an easy message, café, 😀, a lone \ud800 surrogate" },
    { type: "message", role: "user", content: [{ type: "input_text", text: "look" }, { type: "input_image", image_url: "data:," }, { type: "input_file", file_id: "f" }, { type: "input_audio" }] },
    { type: "message", role: "assistant", id: "msg_1", status: "completed", content: [{ type: "output_text", text: "seen", annotations: [] }, { type: "refusal", refusal: "but no" }, { type: "input_image" }] },
    { type: "message", role: "user" },
    { type: "function_call", id: "fc_1", call_id: "r1", name: "read", arguments: '{"path":"a.rs","n":1.50}' },
    { type: "function_call", call_id: "r2", name: "noArgs" },
    { type: "function_call", call_id: "r3", name: "notJson", arguments: "{broken" },
    { type: "function_call_output", call_id: "r1", output: "fn main() {}" },
    { type: "function_call_output", call_id: "r2", output: [{ type: "input_text", text: "part" }, { type: "input_image", image_url: "u" }] },
    { type: "function_call_output", call_id: "r3", output: { structured: [1, true, null] } },
    { type: "function_call_output", call_id: "r4" },
    { type: "function_call_output", call_id: "r5", output: new Date(0) },
    { type: "computer_call", call_id: "k1", action: { type: "click", x: 1, y: 2 } },
    { type: "computer_call_output", call_id: "k1", output: { type: "input_image", image_url: "data:," } },
    { type: "custom_tool_call", call_id: "k2", name: "grammar", input: "free text input" },
    { type: "local_shell_call", call_id: "k3" },
    { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "first" }, { type: "summary_text", text: "second" }], encrypted_content: "gAAAA" },
    { type: "reasoning", summary: [] },
    { type: "item_reference", id: "msg_0" },
    { type: "web_search_call", id: "ws_1", status: "completed" },
    // Read the general way: system and developer messages.
    { type: "message", role: "system", content: [{ type: "input_text", text: "be" }, { type: "input_text", text: "brief" }] },
    { role: "developer", content: "rules" },
  ]);
}

test("OpenAI Responses edge cases estimate and plan the same read together as one at a time", () => {
  const { together, alone } = bothWays(responsesEdgeCases, "openai-responses");
  assert.deepEqual(together, alone);
  samePlans(responsesEdgeCases, "openai-responses");
});

test("the real session as OpenAI Responses items estimates and plans the same read together", () => {
  const text = (content) => (typeof content === "string" ? content : (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n"));
  const session = () =>
    sessionAs((m, out) => {
      if (m.role === "user") return [...out, { type: "message", role: "user", content: [{ type: "input_text", text: text(m.content) }] }];
      if (m.role === "toolResult") return [...out, { type: "function_call_output", call_id: m.toolCallId, output: text(m.content) }];
      for (const b of m.content ?? []) {
        if (b.type === "thinking") out.push({ type: "reasoning", summary: [{ type: "summary_text", text: b.thinking }] });
        if (b.type === "text") out.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: b.text, annotations: [] }] });
        if (b.type === "toolCall") out.push({ type: "function_call", call_id: b.id, name: b.name, arguments: JSON.stringify(b.arguments ?? {}) });
      }
      return out;
    });
  const { together, alone } = bothWays(session, "openai-responses");
  assert.ok(together.length > 900);
  assert.deepEqual(together, alone);
  samePlans(session, "openai-responses");
});

test("a bad OpenAI Responses item read together still fails with its own index", () => {
  failsWithItsIndex("openai-responses", [
    [{ type: "function_call", call_id: "c" }, /messages\[35\]\.name/],
    [{ type: "function_call", name: "f", call_id: "c", arguments: { a: 1 } }, /messages\[35\]\.arguments/],
    [{ type: "function_call_output", call_id: 5, output: "x" }, /messages\[35\]\.call_id/],
    [{ type: "reasoning", summary: [{ type: "summary_text" }] }, /messages\[35\]\.summary\[0\]\.text/],
    [{ type: "message", role: "user", content: [{ type: "video" }] }, /messages\[35\]\.content\[0\]\.type/],
    [{ type: "message", role: "robot", content: "x" }, /messages\[35\]\.role/],
    [{ content: "no type, no role" }, /messages\[35\]\.type/],
  ]);
});
