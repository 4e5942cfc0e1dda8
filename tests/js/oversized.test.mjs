// Trimming an oversized user message (config `trimOversized`): a pasted document larger than the
// window goes through with its middle cut (head, a marker saying how much went, tail) instead of
// failing with `too_large`; your objects are never changed. Without the option, `too_large`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, ContextManager, estimate } from "context-compaction";
import { generator, say, user } from "./helpers.mjs";

const WINDOW = 128_000;
// About 200,000 tokens of prose, its head and tail marked.
const PASTE = `BEGIN ${"lorem ipsum dolor sit amet ".repeat(40_000)}END`;
const stateOf = (messages) => ({ systemPrompt: "You help.", summary: "", messages, tools: [] });

function setup(trimOversized) {
  const calls = [];
  const events = [];
  const compactor = new Compactor({ keepRecentTokens: 100, summarizer: generator(async () => (calls.push(1), "S")), ...(trimOversized === undefined ? {} : { trimOversized }) });
  const manager = new ContextManager({ compactor, contextWindowTokens: WINDOW, reserveTokens: 0, onEvent: (e) => events.push(e.type) });
  return { manager, calls, events };
}

const textOf = (message) => (typeof message.content === "string" ? message.content : message.content.map((b) => b.text ?? "").join(""));

test("a 200k paste in a 128k window goes through trimmed, with no summary call", async () => {
  const messages = [user("hello"), say("hi"), user(`here is the spec: ${PASTE}`)];
  const copy = structuredClone(messages);
  assert.ok(estimate(stateOf(messages)).total > 190_000);
  const { manager, calls, events } = setup(true);
  const done = await manager.maintain(stateOf(messages));
  assert.equal(done.reason, "trimmed");
  assert.equal(done.record.kind, "trim");
  assert.equal(done.state.summary, "");
  assert.deepEqual(calls, []);
  assert.deepEqual(events, ["compactionStart", "compactionEnd"]);
  // The two before it are yours; the paste is a new object, yours unchanged.
  assert.equal(done.state.messages[0], messages[0]);
  assert.equal(done.state.messages[1], messages[1]);
  assert.notEqual(done.state.messages[2], messages[2]);
  assert.deepEqual(messages, copy);
  const text = textOf(done.state.messages[2]);
  assert.ok(text.startsWith("here is the spec: BEGIN lorem"));
  assert.ok(text.endsWith("sit amet END"));
  assert.match(text, /\[… [\d,]+ characters \(about [\d,]+ tokens\) trimmed from the middle of this message …\]/);
  const after = estimate(done.state).total;
  assert.ok(after <= WINDOW && after > WINDOW * 0.9, `${after}`);
  assert.ok(done.record.estimateAfter <= WINDOW);
  // What the model receives: the head, the marker, the tail.
  let sent = null;
  const ran = await manager.run(done.state, async (state) => ((sent = state.messages), "answer"));
  assert.equal(ran.response, "answer");
  assert.equal(textOf(sent[2]), text);
});

test("without the option, too_large before any model call", async () => {
  const messages = [user("hello"), say("hi"), user(`here is the spec: ${PASTE}`)];
  for (const off of [undefined, false]) {
    const { manager, calls } = setup(off);
    const done = await manager.maintain(stateOf(messages));
    assert.equal(done.reason, "irreducible");
    assert.equal(done.error.code, "too_large");
    assert.match(done.error.message, /messages\[2\]/);
    assert.deepEqual(calls, []);
  }
  assert.throws(() => new Compactor({ summarizer: generator(async () => "S"), trimOversized: "yes" }), (e) => e.code === "invalid_config" && /trimOversized/.test(e.message));
});

test("overflow recovery trims the paste the provider refused", async () => {
  const messages = [user("hello"), say("hi"), user(`here is the spec: ${PASTE}`)];
  const { manager, calls } = setup(true);
  const sizes = [];
  const overflow = Object.assign(new Error("prompt is too long"), { status: 400 });
  const ran = await manager.run(stateOf(messages), async (state) => {
    const total = estimate(state).total;
    sizes.push(total);
    if (total > WINDOW) throw overflow;
    return "answer";
  });
  assert.equal(ran.response, "answer");
  assert.equal(sizes.length, 2);
  assert.equal(ran.compactions[0].kind, "trim");
  assert.deepEqual(calls, []);
});

test("every format trims its own message shape", async () => {
  const shapes = {
    anthropic: (text) => ({ role: "user", content: [{ type: "text", text }] }),
    "openai-chat": (text) => ({ role: "user", content: text }),
    "openai-responses": (text) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] }),
    "ai-sdk": (text) => ({ role: "user", content: [{ type: "text", text }] }),
    "ai-sdk-ui": (text) => ({ id: "u1", role: "user", parts: [{ type: "text", text }] }),
  };
  for (const [format, shape] of Object.entries(shapes)) {
    const { manager } = setup(true);
    const state = { ...stateOf([shape(PASTE)]), format };
    const done = await manager.maintain(state);
    assert.equal(done.reason, "trimmed", format);
    const after = estimate(done.state);
    assert.ok(after.total <= WINDOW, `${format}: ${after.total}`);
    const keys = (m) => JSON.stringify(m, (k, v) => (typeof v === "string" && v.length > 1000 ? "…" : v));
    assert.equal(keys(done.state.messages[0]), keys(state.messages[0]), format);
  }
});
