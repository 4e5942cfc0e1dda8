// A cold plan of a long history keeps the module's memory small: the walker's buffers stop at
// 1 MB, the facts of each message are held once, in their place, and a result's ids are its
// call's (docs/DESIGN-NOTES.md).
import { wasmBytes } from "./memory-probe.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const { Compactor } = await import("context-compaction");
// `n` messages of the session, repeated with fresh tool-call ids each round.
const { history } = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);

test("a cold plan of 20,000 messages grows wasm memory by less than 1.6 MB", () => {
  const compactor = new Compactor({ keepRecentTokens: 20_000, summarizer: { summarize: async () => "" }, cacheFacts: false });
  // The module is instantiated first, with a history too short to walk.
  compactor.plan({ messages: history(10), inputTokenBudget: 0 });
  const start = wasmBytes();
  const plan = compactor.plan({ messages: history(20_000), inputTokenBudget: 0 });
  assert.ok(plan !== null);
  const grown = (wasmBytes() - start) / (1 << 20);
  // 1.25 MB measured (20k facts of 32 bytes, the ids of the calls, the results sharing them,
  // the walker's buffers); 1.87 MB with a map of every call's id for the pairing, an estimates
  // vector and an allocation of ids per result; 5.2 MB with buffers of 3 MB, 18.3 MB with
  // buffers of 4 MB and the facts copied twice on the way.
  assert.ok(grown < 1.6, `grew ${grown.toFixed(2)} MB`);
});

test("a cold plan's messages to summarize are the caller's first ones, in an array of the package's own", () => {
  const compactor = new Compactor({ keepRecentTokens: 2_000, summarizer: { summarize: async () => "" }, cacheFacts: false });
  const messages = history(400);
  const before = [...messages];
  const plan = compactor.plan({ messages, inputTokenBudget: 0 });
  assert.ok(plan !== null && plan.messagesToSummarize.length > 32);
  // The package's copy of the array, cut to the summarized messages: the caller's is untouched.
  assert.notEqual(plan.messagesToSummarize, messages);
  assert.equal(messages.length, 400);
  assert.deepEqual(messages, before);
  const end = plan.messagesToSummarize.length;
  assert.equal(end, plan.turnPrefixStart);
  plan.messagesToSummarize.forEach((m, i) => assert.equal(m, messages[i]));
  assert.equal(plan.turnPrefixMessages.length + end, plan.firstKeptIndex);
  // A second plan of the same array reads it whole again.
  const again = compactor.plan({ messages, inputTokenBudget: 0 });
  assert.deepEqual({ ...again, messagesToSummarize: [], turnPrefixMessages: [] }, { ...plan, messagesToSummarize: [], turnPrefixMessages: [] });
});

test("a long history read a chunk of messages at a time plans as when it is read at once", () => {
  const messages = history(20_000);
  // Messages the walker leaves to JSON.stringify, around where a chunk of 8,192 ends.
  for (const at of [8_191, 8_192, 16_383]) messages[at] = { ...messages[at], toJSON() { return { ...this, toJSON: undefined }; } };
  const options = { keepRecentTokens: 20_000, summarizer: { summarize: async () => "" } };
  const request = { messages, inputTokenBudget: 0 };
  // Without the cache every message is read in chunks; with it (nothing cached yet), at once.
  const chunked = new Compactor({ ...options, cacheFacts: false }).plan(request);
  const whole = new Compactor({ ...options, cacheFacts: true }).plan(request);
  assert.ok(chunked !== null && chunked.messageTokens.length === 20_000);
  assert.deepEqual([...chunked.messageTokens], [...whole.messageTokens]);
  const { messagesToSummarize, turnPrefixMessages, messageTokens, ...rest } = chunked;
  const { messagesToSummarize: m2, turnPrefixMessages: t2, messageTokens: e2, ...want } = whole;
  assert.deepEqual(rest, want);
  assert.equal(messagesToSummarize.length, m2.length);
  assert.equal(turnPrefixMessages.length, t2.length);
});

// The length of each function body in a module's code section.
function bodies(bytes) {
  let at = 8;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++];
      value += (byte & 127) * 2 ** shift;
      if (byte < 128) return value;
    }
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    if (id === 10) return Array.from({ length: leb() }, () => {
      const length = leb();
      at += length;
      return length;
    });
    at += size;
  }
  return [];
}

test("no function of the modules a plan loads is over 12 KB, so that V8 compiles none of them in one large piece", () => {
  // V8 compiles a function whole: with its baseline compiler on the first call, with its
  // optimizing one once it is hot, in memory in proportion to its size. The six format readers
  // inlined into one function of 17 KB took 3.6 MB at once for its optimizing compile, in the
  // middle of a cold plan of 100k messages (bench/README.md).
  const dir = dirname(createRequire(import.meta.url).resolve("context-compaction/wasm"));
  // The whole module and the plan-only one (the preview module ships inlined only).
  for (const name of ["context_compaction", "context_compaction_plan"]) {
    const lengths = bodies(readFileSync(join(dir, `${name}.wasm`)));
    assert.ok(lengths.length > 100, `${name}: ${lengths.length} functions`);
    const largest = Math.max(...lengths);
    assert.ok(largest < 12 * 1024, `${name}: a function of ${largest} bytes`);
  }
});
