// The walker lays out of a content's blocks only the keys their reader reads (the readers'
// layouts, pkg-template/layout.js, generated from Format::layout): an image's data, a thinking
// block's signature, a streamed call's partial JSON are never read from the host object, and
// the estimates are those of the same messages without them. A key the reader reads is read
// once, and a block of a type the layouts do not know is laid out whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor, estimate } from "context-compaction";
import { generator } from "./helpers.mjs";
import { forty } from "./walk-helpers.mjs";

// A property whose getter throws: reading it fails the read of the message.
function hostile(object, key) {
  Object.defineProperty(object, key, { enumerable: true, get: () => assert.fail(`${key} was read`) });
  return object;
}

// A property whose getter counts its reads in `reads[name]`.
function counted(object, key, value, reads, name) {
  Object.defineProperty(object, key, {
    enumerable: true,
    get: () => {
      reads[name] = (reads[name] ?? 0) + 1;
      return value;
    },
  });
  return object;
}

// The estimates of `messages` read together (the walker), against those of `plain` (the same
// messages without the keys the layouts leave out) one at a time.
function sameAsWithout(messages, plain, format) {
  assert.ok(messages.length >= 32);
  const together = estimate({ messages, format }).messages;
  const alone = plain.map((m) => estimate({ messages: [m], format }).messages[0]);
  assert.deepEqual(together, alone);
  const compactor = new Compactor({ keepRecentTokens: 100, summarizer: generator(async () => "S"), cacheFacts: false });
  const shape = (p) => ({ ...p, messagesToSummarize: p.messagesToSummarize.length, turnPrefixMessages: p.turnPrefixMessages.length });
  assert.deepEqual(shape(compactor.plan({ messages, format, inputTokenBudget: 0 })), shape(compactor.plan({ messages: plain, format, inputTokenBudget: 0 })));
}

test("canonical blocks: what the reader does not read is never read from the host", () => {
  const reads = {};
  const make = (withHostile) => {
    const extra = (block, key) => (withHostile ? hostile(block, key) : block);
    const image = extra({ type: "image" }, "data");
    const text = counted({ type: "text" }, "text", "see the screenshot", reads, "text");
    const thinking = extra({ type: "thinking", thinking: "hm" }, "thinkingSignature");
    const call = extra({ type: "toolCall", id: "c1", name: "shot", arguments: { data: "an argument counts", type: "image" } }, "partialJson");
    return [
      { role: "user", content: [extra(text, "textSignature"), image] },
      { role: "assistant", stopReason: "toolUse", content: [thinking, call] },
      { role: "toolResult", toolCallId: "c1", toolName: "shot", content: [extra({ type: "image", mimeType: "image/png" }, "data"), { type: "text", text: "ok" }] },
    ];
  };
  const messages = forty(make(true));
  sameAsWithout(messages, forty(make(false)), "canonical");
  // The text the reader needs is read, once a message, by each of the two estimates and the
  // plan of `messages` (the plain ones share the getter).
  assert.ok(reads.text > 0);
});

test("anthropic and OpenAI Chat: images inside tool results and parts are not read either", () => {
  const source = () => ({ type: "base64", media_type: "image/png", data: "AAAA" });
  const anthropic = (withHostile) => {
    const image = () => (withHostile ? hostile({ type: "image" }, "source") : { type: "image" });
    return [
      { role: "user", content: [{ type: "text", text: "look" }, image()] },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "shot", input: { source: "counted" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "shot" }, image()] }] },
      // A server tool's result is laid out whole: its content counts.
      { role: "assistant", content: [{ type: "web_search_tool_result", tool_use_id: "s1", content: [{ type: "image", source: source() }] }] },
    ];
  };
  sameAsWithout(forty(anthropic(true)), forty(anthropic(false)), "anthropic");
  const chat = (withHostile) => [
    { role: "user", content: [{ type: "text", text: "look" }, withHostile ? hostile({ type: "image_url" }, "image_url") : { type: "image_url" }] },
    { role: "assistant", content: "fine" },
  ];
  sameAsWithout(forty(chat(true)), forty(chat(false)), "openai-chat");
});

test("a block's type is read once, and a type the layouts do not know is laid out whole", () => {
  const reads = {};
  const block = () => counted({}, "type", "text", reads, "type");
  const messages = forty([{ role: "user", content: [Object.assign(block(), { text: "hello" })] }]);
  estimate({ messages });
  assert.equal(reads.type, messages.length);
  // A block of another type is laid out whole: its keys are read.
  const bad = forty([{ role: "user", content: "x" }]);
  bad[35] = { role: "user", content: [hostile({ type: "video" }, "data")] };
  assert.throws(
    () => estimate({ messages: bad }),
    (e) => e instanceof CompactionError && /messages\[35\]/.test(e.message) && /data was read/.test(e.cause?.message),
  );
  // AI SDK parts of a type its reader does not know count as their JSON, so nothing of an
  // AI SDK message is left out: a longer unknown part estimates more.
  const part = (text) => forty([{ role: "user", content: [{ type: "later-part", value: text }] }]);
  const [short, long] = [part("a"), part("a much longer value that counts")].map((m) => estimate({ messages: m, format: "ai-sdk" }).messages[0]);
  assert.ok(long > short);
});
