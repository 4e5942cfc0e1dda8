// The cold objects path in the other formats: the walker lays each host message out as it is,
// and the format's reader (src/formats/) reads it as the JSON.stringify path does. A host message
// may hold several units (each framed), and its role and turn start follow from them, so plans
// are compared as well as estimates, and the summarizer input, on edge cases and on the real
// session converted as bench/workloads.mjs converts it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bothWays, failsWithItsIndex, forty, sameSummarizerInput, samePlans, sessionMessages } from "./walk-helpers.mjs";

const { aiSdk, aiSdkUi, anthropic, openAIChat, openAIResponses } = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);

for (const [format, convert] of [["openai-chat", openAIChat], ["openai-responses", openAIResponses], ["anthropic", anthropic], ["ai-sdk", aiSdk], ["ai-sdk-ui", aiSdkUi]]) {
  test(`the real session as ${format} messages estimates and plans the same read together`, async () => {
    const session = () => convert(sessionMessages());
    const { together, alone } = bothWays(session, format);
    // UIMessages hold a whole turn's tool loop each.
    assert.ok(together.length > (format === "ai-sdk-ui" ? 100 : 500));
    assert.deepEqual(together, alone);
    samePlans(session, format);
    await sameSummarizerInput(session, format);
  });
}

function edgeCases(format, make) {
  test(`${format} edge cases estimate and plan the same read together as one at a time`, () => {
    const { together, alone } = bothWays(make, format);
    assert.deepEqual(together, alone);
    samePlans(make, format);
  });
}

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

edgeCases("openai-chat", openAIEdgeCases);

test("a bad OpenAI Chat message read together still fails with its own index", () => {
  failsWithItsIndex("openai-chat", [
    [{ role: "tool", content: "no id" }, /messages\[35\]\.tool_call_id/],
    [{ role: "assistant", tool_calls: [{ id: "c", function: { name: "f", arguments: { a: 1 } } }] }, /messages\[35\]\.tool_calls\[0\]\.function\.arguments/],
    [{ role: "assistant", tool_calls: [{ id: "c" }] }, /messages\[35\]\.tool_calls\[0\]\.function/],
    [{ role: "user", content: [{ type: "video" }] }, /messages\[35\]\.content\[0\]\.type/],
    [{ role: "robot" }, /messages\[35\]\.role/],
  ]);
});

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
    { role: "user", content: null },
    { role: "user", content: "short", toJSON: () => ({ role: "user", content: "what JSON.stringify writes instead" }) },
  ]);
}

edgeCases("anthropic", anthropicEdgeCases);

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
    { role: "user", content: null },
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

edgeCases("ai-sdk", aiSdkEdgeCases);

function aiSdkUiEdgeCases() {
  const tool = (id, state, more = {}) => ({ type: "tool-read", toolCallId: id, state, input: { path: `${id}.rs`, n: 1.5 }, ...more });
  return forty([
    { id: "s", role: "system", parts: [{ type: "text", text: "be " }, { type: "data-x", data: 1 }, { type: "text", text: "brief" }] },
    { id: "u", role: "user", parts: [{ type: "text", text: "café 😀 \ud800" }, { type: "file", mediaType: "image/png", url: "u" }, { type: "data-y", data: [1] }, { type: "later-kind", n: 1 }], metadata: { at: 1 } },
    {
      id: "a",
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "reasoning", text: "hmm" },
        { type: "text", text: "calling" },
        tool("c1", "output-available", { output: "done" }),
        tool("c2", "output-available", { output: { lines: [1, 2] } }),
        tool("c3", "output-error", { input: undefined, rawInput: "{broken", errorText: "bad input" }),
        { type: "step-start" },
        { type: "dynamic-tool", toolName: "mcp", toolCallId: "c4", state: "output-denied", input: {}, approval: { id: "p", approved: false } },
        { type: "tool-search", toolCallId: "c5", state: "output-available", input: {}, output: null, providerExecuted: true },
        { type: "source-url", sourceId: "s", url: "u" },
        { type: "step-start" },
        { type: "custom", kind: "x.y" },
        { type: "reasoning-file", mediaType: "image/png", url: "u" },
        { type: "later-kind", n: 2 },
        { type: "steering-message", parts: [{ type: "text", text: "also this" }] },
        { type: "text", text: "ok" },
        { type: "step-start" },
      ],
    },
    { id: "b", role: "assistant", parts: [] },
    { id: "c", role: "assistant", parts: [{ type: "step-start" }, { type: "step-start" }, { type: "text", text: "x" }] },
  ]);
}

edgeCases("ai-sdk-ui", aiSdkUiEdgeCases);

test("a bad UIMessage read together still fails with its own index", () => {
  failsWithItsIndex("ai-sdk-ui", [
    [{ id: "x", role: "user", content: "a ModelMessage" }, /messages\[35\]\.parts: missing/],
    [{ id: "x", role: "assistant", parts: [{ type: "tool-read", toolCallId: "c" }] }, /messages\[35\]\.parts\[0\]\.state: missing/],
    [{ id: "x", role: "assistant", parts: [{ type: "dynamic-tool", toolCallId: "c", state: "input-available" }] }, /messages\[35\]\.parts\[0\]\.toolName: missing/],
    [{ id: "x", role: "tool", parts: [] }, /messages\[35\]\.role: unknown role "tool"/],
  ], { id: "u", role: "user", parts: [{ type: "text", text: "hello" }] });
});

test("a bad AI SDK message read together still fails with its own index", () => {
  failsWithItsIndex("ai-sdk", [
    [{ role: "tool", content: [{ type: "tool-result", output: { type: "text", value: "no id" } }] }, /messages\[35\]\.content\[0\]\.toolCallId/],
    [{ role: "tool", content: [{ type: "tool-result", toolCallId: "c", output: { type: "execution-denied", reason: 1 } }] }, /messages\[35\]\.content\[0\]\.output\.reason/],
    [{ role: "tool", content: [{ type: "tool-result", toolCallId: "c", output: "text" }] }, /messages\[35\]\.content\[0\]\.output: expected an object/],
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
    { type: "message", role: "user", content: null },
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

edgeCases("openai-responses", responsesEdgeCases);

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
