// The hostile-input fuzzer with a fixed budget, and the poisoning check; the long
// run is scripts/fuzz.
import { memories, wasmBytes } from "./memory-probe.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { fuzz } from "./fuzz.mjs";
import { poison, sessionPlan } from "./poison.mjs";

const api = await import("context-compaction");
const unhandled = [];
process.on("unhandledRejection", (reason) => unhandled.push(reason));

test("the fuzzer: 1,500 hostile cases over every entry point, config and format, no escapes", async () => {
  assert.equal(await fuzz(api, { runs: 1_500, seed: 13 }), 1_500);
  assert.deepEqual(unhandled, []);
});

test("poisoning: 100,000 hostile calls, then a fresh Compactor plans the real session as before", async () => {
  assert.equal(memories.length, 1, "the probe sees the package's wasm memory");
  const want = sessionPlan(api);
  await poison(api, 2_000);
  const start = wasmBytes();
  await poison(api, 100_000);
  assert.deepEqual(sessionPlan(api), want);
  const grown = wasmBytes() - start;
  assert.ok(grown <= 4 << 20, `wasm memory grew by ${grown} bytes`);
  assert.deepEqual(unhandled, []);
});
