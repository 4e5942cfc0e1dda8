// A chat route with `trimOversized`: a pasted document larger than the window reaches the model
// with its middle cut and a marker, the stored state unchanged; without it, `too_large`. Against
// `ai` 7's convertToModelMessages. Run by scripts/test-js against the packed tarball.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { ChatCompaction } from "context-compaction/ai-sdk";

const root = process.env.CC_AI_SDK ?? new URL(".", import.meta.url).pathname;
const require = createRequire(`${root}/package.json`);
const { convertToModelMessages } = await import(pathToFileURL(require.resolve("ai7")).href);

const PASTE = `BEGIN ${"lorem ipsum dolor sit amet ".repeat(40_000)}END`;
const posted = () => [
  { id: "u0", role: "user", parts: [{ type: "text", text: "hello" }] },
  { id: "a0", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: "hi" }] },
  { id: "u1", role: "user", parts: [{ type: "text", text: `here is the spec: ${PASTE}` }] },
];

function route(trimOversized) {
  let calls = 0;
  const summarizer = { summarize: async () => (calls++, "S") };
  const chat = new ChatCompaction({ contextWindowTokens: 128_000, reserveTokens: 0, keepRecentTokens: 100, summarizer, convertToModelMessages, trimOversized });
  return { chat, calls: () => calls };
}

test("the route sends the paste trimmed and stores no new state", async () => {
  const { chat, calls } = route(true);
  const messages = posted();
  const prepared = await chat.prepare(messages, null);
  assert.equal(prepared.reason, "trimmed");
  assert.equal(prepared.state, null);
  assert.equal(calls(), 0);
  const last = prepared.messages.at(-1);
  const text = last.content.map((p) => p.text ?? "").join("");
  assert.ok(text.startsWith("here is the spec: BEGIN lorem") && text.endsWith("sit amet END"));
  assert.match(text, /trimmed from the middle of this message/);
  assert.equal(messages[2].parts[0].text, `here is the spec: ${PASTE}`, "the posted message is unchanged");
  chat.free();
});

test("without the option the route says too_large", async () => {
  const { chat, calls } = route(false);
  const prepared = await chat.prepare(posted(), null);
  assert.equal(prepared.reason, "irreducible");
  assert.equal(prepared.error.code, "too_large");
  assert.equal(calls(), 0);
  chat.free();
});
