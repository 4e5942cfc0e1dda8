// The LZMA decoder the preview module's inlined copy is unpacked by (scripts/lzma-decode.mjs),
// against xz, the encoder scripts/inline-wasm.mjs packs it with: every literal and position
// setting, data with long and short repeats, bytes that do not repeat, and the shipped module.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = process.env.CC_ROOT;
const { lzmaDecode } = await import(pathToFileURL(join(root, "scripts/lzma-decode.mjs")).href);

function pack(bytes, lc, lp, pb, preset = "9e") {
  const out = spawnSync("xz", ["--format=raw", `--lzma1=preset=${preset},lc=${lc},lp=${lp},pb=${pb}`, "--stdout"], { input: bytes, maxBuffer: 1 << 28 });
  assert.equal(out.status, 0, String(out.stderr));
  return out.stdout;
}

/** Deterministic bytes: text with repeats near and far, runs, and noise. */
function sample(size, seed) {
  const out = new Uint8Array(size);
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 16;
  for (let i = 0; i < size; ) {
    const kind = next() % 4;
    const n = 1 + (next() % 300);
    for (let k = 0; k < n && i < size; k++, i++) {
      if (kind === 0) out[i] = next() & 0xff;
      else if (kind === 1 && i > 0) out[i] = out[i - 1 - (next() % Math.min(i, 4))];
      else if (kind === 2 && i > 5000) out[i] = out[i - 4000 - (n % 7)];
      else out[i] = 97 + (next() % 26);
    }
  }
  return out;
}

test("unpacks what xz packs, for every lc, lp and pb", () => {
  const data = sample(60_000, 7);
  for (const [lc, lp, pb] of [[3, 0, 0], [0, 0, 0], [4, 0, 0], [3, 0, 2], [1, 2, 3], [0, 4, 4], [2, 1, 1]]) {
    const out = lzmaDecode(pack(data, lc, lp, pb), data.length, lc, lp, pb);
    assert.deepEqual(Buffer.from(out), Buffer.from(data), `lc=${lc} lp=${lp} pb=${pb}`);
  }
});

test("unpacks bytes that never repeat, one byte, long runs and far matches (the distances' direct bits)", () => {
  const noise = new Uint8Array(20_000).map((_, i) => (Math.imul(i + 1, 2654435761) >>> 13) & 0xff);
  const runs = new Uint8Array(300_000).fill(120);
  const far = new Uint8Array(400_000);
  far.set(noise, 0);
  far.set(noise, 350_000);
  for (const data of [noise, new Uint8Array([42]), runs, far, sample(200_000, 99)]) {
    assert.deepEqual(Buffer.from(lzmaDecode(pack(data, 3, 0, 0), data.length, 3, 0, 0)), Buffer.from(data));
    assert.deepEqual(Buffer.from(lzmaDecode(pack(data, 3, 0, 0, "0"), data.length, 3, 0, 0)), Buffer.from(data));
  }
});

test("refuses what is not a stream or ends early", () => {
  const packed = pack(sample(10_000, 3), 3, 0, 0);
  assert.throws(() => lzmaDecode(packed.subarray(0, 200), 10_000, 3, 0, 0), /lzma: /);
  assert.throws(() => lzmaDecode(Uint8Array.of(1, 2, 3, 4, 5, 6), 10, 3, 0, 0), /not an LZMA stream/);
});

test("the preview module's inlined copy unpacks to the module, with no platform decompressor", async () => {
  const builtin = process.getBuiltinModule;
  const stream = globalThis.DecompressionStream;
  process.getBuiltinModule = undefined;
  globalThis.DecompressionStream = undefined;
  try {
    // dist/ is what is packed (the package exports only its entries).
    const inline = await import(pathToFileURL(join(root, "dist/preview-wasm-inline.js")).href);
    const wasm = readFileSync(join(root, "dist/context_compaction_preview.wasm"));
    assert.deepEqual(Buffer.from(inline.default()), wasm);
    assert.deepEqual(Buffer.from(await inline.bytesAsync()), wasm);
  } finally {
    process.getBuiltinModule = builtin;
    globalThis.DecompressionStream = stream;
  }
});
