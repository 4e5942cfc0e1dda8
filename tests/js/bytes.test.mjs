// compactor.planBytes: planning a request body's bytes (a JSON array or JSON lines) inside wasm
// gives the plan compactor.plan gives on the parsed messages, with where each message is.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor } from "context-compaction";
import { conversation, generator } from "./helpers.mjs";
import { sessionMessages } from "./walk-helpers.mjs";

const compactor = new Compactor({ keepRecentTokens: 200, summarizer: generator(async () => "SUMMARY") });
const encode = (text) => new TextEncoder().encode(text);
const decode = (bytes) => new TextDecoder().decode(bytes);

/** The fields a bytes plan shares with an objects plan. */
function shared(plan) {
  const { messagesToSummarize, turnPrefixMessages, messageSpans, ...rest } = plan;
  return rest;
}

test("a body plans exactly like the parsed messages, as an array or as JSON lines", () => {
  const messages = conversation(8);
  const options = { systemPrompt: "You help.", summary: "earlier", inputTokenBudget: 0 };
  const want = compactor.plan({ ...options, messages });
  const array = compactor.planBytes(encode(JSON.stringify(messages)), options);
  assert.deepEqual(shared(array), shared(want));
  const lines = messages.map((m) => JSON.stringify(m)).join("\n") + "\n";
  assert.deepEqual(shared(compactor.planBytes(encode(lines), options)), shared(want));
  // An ArrayBuffer and a string are read the same way.
  assert.deepEqual(shared(compactor.planBytes(encode(lines).buffer, options)), shared(want));
  assert.deepEqual(shared(compactor.planBytes(JSON.stringify(messages, null, 2), options)), shared(want));
  assert.equal(compactor.planBytes(encode(JSON.stringify(messages)), { inputTokenBudget: 1e9 }), null);
});

test("messageSpans locate each message in the body, so kept messages can be forwarded as bytes", () => {
  const messages = conversation(6);
  const body = encode(JSON.stringify(messages));
  const plan = compactor.planBytes(body, { inputTokenBudget: 0 });
  assert.ok(plan.messageSpans instanceof Uint32Array);
  assert.equal(plan.messageSpans.length, 2 * messages.length);
  messages.forEach((m, i) => {
    const text = decode(body.subarray(plan.messageSpans[2 * i], plan.messageSpans[2 * i + 1]));
    assert.deepEqual(JSON.parse(text), m);
  });
});

test("the real session plans the same from bytes as from objects", () => {
  const messages = sessionMessages();
  const big = new Compactor({ keepRecentTokens: 20_000, summarizer: generator(async () => "S") });
  const options = { inputTokenBudget: 0 };
  assert.deepEqual(shared(big.planBytes(encode(JSON.stringify(messages)), options)), shared(big.plan({ ...options, messages })));
});

test("the real session in every format plans the same from bytes as from objects", async () => {
  const workloads = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);
  const messages = sessionMessages();
  const formats = { "openai-chat": workloads.openAIChat, "openai-responses": workloads.openAIResponses, anthropic: workloads.anthropic, "ai-sdk": workloads.aiSdk };
  for (const [format, convert] of Object.entries(formats)) {
    const host = convert(messages);
    for (const keepRecentTokens of [300, 5_000, 20_000]) {
      const options = { format, inputTokenBudget: 0 };
      const big = new Compactor({ keepRecentTokens, summarizer: generator(async () => "S"), cacheFacts: false });
      const fromBytes = big.planBytes(encode(JSON.stringify(host)), options);
      const fromObjects = big.plan({ ...options, messages: host });
      assert.deepEqual(shared(fromBytes), shared(fromObjects), `${format}, keepRecentTokens ${keepRecentTokens}`);
    }
  }
});

test("a bytes plan can be applied once the messages are parsed", async () => {
  const messages = conversation(6);
  const plan = compactor.planBytes(encode(JSON.stringify(messages)), { inputTokenBudget: 0 });
  const fromBytes = await compactor.apply({ messages, inputTokenBudget: 0 }, plan);
  const fromObjects = await compactor.apply({ messages, inputTokenBudget: 0 }, compactor.plan({ messages, inputTokenBudget: 0 }));
  assert.deepEqual(fromBytes, fromObjects);
});

test("other formats and a host estimator plan from bytes too", () => {
  const messages = [
    { role: "system", content: "Be brief." },
    { role: "user", content: "hi ".repeat(200) },
    { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } }] },
    { role: "tool", tool_call_id: "t1", content: "file ".repeat(200) },
    { role: "assistant", content: "done ".repeat(100) },
  ];
  const estimator = { countTokens: (t) => Math.ceil(t.length / 4) };
  for (const extra of [{}, { estimator }]) {
    const options = { format: "openai-chat", inputTokenBudget: 0, ...extra };
    assert.deepEqual(shared(compactor.planBytes(JSON.stringify(messages), options)), shared(compactor.plan({ ...options, messages })));
  }
});

test("bad bodies are errors that name the place", () => {
  const fails = (body, options, pattern) =>
    assert.throws(() => compactor.planBytes(body, options), (e) => e instanceof CompactionError && e.code === "invalid_request" && pattern.test(e.message), String(pattern));
  fails(encode('[{"role":"user","content":"a"},]'), {}, /messages: invalid JSON: .*column/);
  fails(encode('{"role":"user","content":"a"}\n{"role":"robot"}\n'), {}, /messages\[1\]\.role: unknown role "robot"/);
  fails(encode('{"role":"user","content":"a"}\n{"role":"user",\n'), {}, /messages\[1\]: invalid JSON/);
  fails(new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]), {}, /not UTF-8 \(at byte 2\)/);
  fails(42, {}, /body: expected a Uint8Array/);
  fails("[]", { messages: [] }, /request\.messages: leave it out/);
  fails("[]", { format: "klingon" }, /format: unknown format/);
});

test("a request may be left out", () => {
  assert.equal(compactor.planBytes(encode(JSON.stringify(conversation(2)))), null);
});

test("cold histories are read in bulk, and a bad message still names its own index", () => {
  for (const cacheFacts of [true, false]) {
    const cold = new Compactor({ keepRecentTokens: 200, summarizer: generator(async () => "S"), cacheFacts });
    const messages = conversation(10);
    messages.splice(37, 0, { role: "assistant", content: [{ type: "toolCall", name: "x" }] });
    assert.throws(() => cold.plan({ messages, inputTokenBudget: 0 }), (e) => e instanceof CompactionError && /messages\[37\]\.content\[0\]\.id: missing/.test(e.message));
    messages.splice(37, 1);
    const plan = cold.plan({ messages, inputTokenBudget: 0 });
    assert.deepEqual(shared(plan), shared(compactor.planBytes(encode(JSON.stringify(messages)), { inputTokenBudget: 0 })));
    // Cached facts from the bulk read give the same plan again.
    assert.deepEqual(cold.plan({ messages, inputTokenBudget: 0 }), plan);
  }
});
