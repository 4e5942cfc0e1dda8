// The preview module's inlined copy (preview-wasm-inline.js) is packed by LZMA and unpacked by
// the package's own decoder (unlzma/, a wasm module inlined beside it; its native tests check it
// against xz): it must give the module's bytes in a runtime with no decompressor of its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.env.CC_ROOT;

test("the preview module's inlined copy unpacks to the module, with no platform decompressor", async () => {
  const builtin = process.getBuiltinModule;
  const stream = globalThis.DecompressionStream;
  process.getBuiltinModule = undefined;
  globalThis.DecompressionStream = undefined;
  try {
    // dist/ is what is packed (the package exports only its entries, and not the preview's .wasm).
    const inline = await import(pathToFileURL(join(root, "dist/preview-wasm-inline.js")).href);
    const wasm = readFileSync(join(root, "dist/context_compaction_preview.wasm"));
    assert.deepEqual(Buffer.from(inline.default()), wasm);
    assert.deepEqual(Buffer.from(await inline.bytesAsync()), wasm);
    // Each call unpacks anew: nothing of the first is kept.
    assert.notEqual(inline.default(), inline.default());
  } finally {
    process.getBuiltinModule = builtin;
    globalThis.DecompressionStream = stream;
  }
});
