// The walker copies strings into wasm memory with Node's Buffer where there is one, and with
// TextEncoder.encodeInto elsewhere (browsers, workerd, Deno): both must lay out the same bytes
// and nodes, and in Node a long string must cost no JavaScript heap (docs/DESIGN-NOTES.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Session } from "node:inspector/promises";

// The installed package's walker, and a second instance of it loaded while there is no Buffer.
const walkUrl = new URL("./host/walk.js", import.meta.resolve("context-compaction"));
const withBuffer = await import(walkUrl.href);
const saved = Object.getOwnPropertyDescriptor(globalThis, "Buffer");
delete globalThis.Buffer;
let withEncodeInto;
try {
  withEncodeInto = await import(`${walkUrl.href}?without-buffer`);
} finally {
  Object.defineProperty(globalThis, "Buffer", saved);
}

// Lays out every message with `walk` the way src/wasm/walk.rs does (buffers that double while a
// message does not fit), and returns what each call wrote: its count, nodes and bytes.
function layout(walk, messages, firstBytes = 256) {
  const memory = new WebAssembly.Memory({ initial: 64 });
  const indicesAt = 0;
  new Uint32Array(memory.buffer, indicesAt, messages.length).set(messages.map((_, i) => i));
  const bytesAt = 1 << 16;
  const calls = [];
  let [bytesCap, nodesCap] = [firstBytes, 1024];
  for (let from = 0; from < messages.length; ) {
    const nodesAt = bytesAt + bytesCap + (4 - (bytesCap % 4)) % 4;
    new Uint8Array(memory.buffer, bytesAt, bytesCap).fill(0xee);
    const count = walk(messages, memory, indicesAt, messages.length, from, bytesAt, bytesCap, nodesAt, nodesCap, null);
    assert.equal(typeof count, "number", "no fault");
    if (count === 0) {
      [bytesCap, nodesCap] = [bytesCap * 2, nodesCap * 2];
      assert.ok(bytesCap < 1 << 21, "a message that never fits");
      continue;
    }
    const [nodes, used] = new Uint32Array(memory.buffer, nodesAt, 2);
    calls.push({
      count,
      nodes: [...new Uint32Array(memory.buffer, nodesAt + 16, nodes * 4)],
      bytes: Buffer.from(new Uint8Array(memory.buffer, bytesAt, used)).toString("hex"),
    });
    from += count;
  }
  return calls;
}

// Lays out every message into one buffer large enough, recording nothing.
function walkAll(walk, messages) {
  const memory = new WebAssembly.Memory({ initial: 128 });
  new Uint32Array(memory.buffer, 0, messages.length).set(messages.map((_, i) => i));
  const [bytesAt, bytesCap, nodesAt, nodesCap] = [1 << 16, 4 << 20, 5 << 20, 1 << 18];
  const count = walk(messages, memory, 0, messages.length, 0, bytesAt, bytesCap, nodesAt, nodesCap, null);
  assert.equal(count, messages.length);
}

const awkward = [
  "plain",
  "x".repeat(127),
  "x".repeat(129),
  "é".repeat(40),
  "é".repeat(300),
  "日本語".repeat(50),
  "😀".repeat(70),
  `${"a".repeat(200)}\ud800`,
  `\udc00${"b".repeat(200)}`,
  `${"c".repeat(150)}\ud83d`,
  `lone \ud800 in the middle ${"d".repeat(150)} and \udfff`,
  "\u0000\u001f\"\\ control and quotes ".repeat(10),
];
const messages = awkward.map((text, i) => ({ role: i % 2 ? "assistant" : "user", content: [{ type: "text", text }, { type: "text", text: text.slice(1) }] }));

test("Node's Buffer and encodeInto lay out the same bytes and nodes", () => {
  assert.equal(typeof Buffer.prototype.utf8Write, "function", "this Node has the native writer");
  // From buffers too small for most messages (each doubling is a retry) to ones that hold all.
  for (const first of [64, 1000, 1 << 16]) {
    assert.deepEqual(layout(withBuffer.walk, messages, first), layout(withEncodeInto.walk, messages, first), `first buffer ${first}`);
  }
});

test("with Node's Buffer, laying out long strings allocates no JavaScript heap a string", async () => {
  const long = Array.from({ length: 4000 }, (_, i) => ({ role: "user", content: `${"word ".repeat(60)}${i}` }));
  const allocated = async (walk) => {
    const session = new Session();
    session.connect();
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", { samplingInterval: 64, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true });
    walkAll(walk, long);
    const { profile } = await session.post("HeapProfiler.stopSampling");
    session.disconnect();
    const sum = (node) => node.selfSize + node.children.reduce((s, c) => s + sum(c), 0);
    return sum(profile.head);
  };
  await allocated(withBuffer.walk);
  const [buffer, encodeInto] = [await allocated(withBuffer.walk), await allocated(withEncodeInto.walk)];
  // encodeInto: a view and a result object for each of the 4,000 strings (about 500 KB).
  assert.ok(encodeInto > 4000 * 64, `encodeInto allocated ${encodeInto} bytes`);
  assert.ok(buffer < encodeInto / 4, `Buffer allocated ${buffer} bytes, encodeInto ${encodeInto}`);
});
