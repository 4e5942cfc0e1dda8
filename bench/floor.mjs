// What any plan from objects must spend before it scores a single character, next to the peer's
// whole estimate + cut, on the same 10k canonical messages (bench/workloads.mjs), in one process:
//
//   pi        pi-coding-agent's estimateTokens over every message + findCutPoint (it reads each
//             text's `.length` and JSON.stringify's tool arguments; nothing else)
//   visit     a format-blind visit like pkg-template/host/walk.js (for-in over plain objects, arrays,
//             each string's length read), nothing written
//   encode    TextEncoder.encodeInto of every text-bearing string, listed beforehand, into one
//             buffer (baseline C of bench/run.mjs): moving the text into wasm memory, no visit
//   walk      the package's own walker (dist/host/walk.js, the top-level keys the canonical reader
//             reads) into a WebAssembly.Memory large enough for one call: the tape a plan's
//             readers then read, nothing read or scored yet
//   score     planBytes of one user message holding every text-bearing string, joined: the
//             text already in bytes, scanned as one JSON string and scored, nothing else
//   chars     the same visit, every UTF-16 unit of every string read once with charCodeAt:
//             the least a scorer written in JavaScript reads
//   plan      our cold plan from objects (nothing cached)
//
// Rounds interleave the cases; medians of --rounds (default 21). Prints each as a ratio to pi's.
//   node bench/floor.mjs [--rounds 21] [--messages 10000]
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { baselineC, history, strings } from "./workloads.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const rounds = option("--rounds", 21);
const n = option("--messages", 10_000);
if (!existsSync(`${root}/dist/index.js`)) execFileSync(`${root}/scripts/build`, { stdio: "inherit" });
const { Compactor } = await import(`${root}/dist/index.js`);
const { walk } = await import(`${root}/dist/host/walk.js`);
const pi = await import("@mariozechner/pi-coding-agent").catch((e) => {
  throw new Error(`the peer is not installed: run (cd bench && npm ci) first (${e.message})`);
});

const messages = history(n);
const entries = messages.map((message) => ({ type: "message", message }));
const body = Buffer.byteLength(JSON.stringify(messages));
const list = strings(messages);
// The walker's memory: the message indices, room for the bytes, then for the nodes (16 bytes
// each, at most one per 2 bytes of the body).
const indicesAt = 0;
const bytesAt = 4 * n;
const bytesCap = 2 * body + 16 - ((2 * body) % 16);
const nodesAt = bytesAt + bytesCap;
const nodesCap = 2 * body;
const memory = new WebAssembly.Memory({ initial: Math.ceil((nodesAt + 16 * nodesCap / 4) / 65536) + 1 });
new Uint32Array(memory.buffer, indicesAt, n).set(messages.map((_, i) => i));
// encode writes elsewhere (its own memory): the walker's indices stay as they are.
const view = new Uint8Array(new WebAssembly.Memory({ initial: Math.ceil((2 * body) / 65536) + 1 }).buffer);
const joined = new TextEncoder().encode(JSON.stringify([{ role: "user", content: list.join("\n") }]));
const canonicalKeys = ["role", "content", "stopReason", "isError", "toolCallId", "toolName", "parts"];

// The walker's traversal: what JSON.stringify would see, each string handed to `text`.
function visit(v, text) {
  if (typeof v === "string") return text(v);
  if (typeof v !== "object" || v === null) return 0;
  let sum = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) sum += visit(v[i], text);
    return sum;
  }
  for (const key in v) {
    const item = v[key];
    if (item === undefined || typeof item === "function") continue;
    sum += text(key) + visit(item, text);
  }
  return sum;
}

const length = (s) => s.length;
const chars = (s) => {
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += s.charCodeAt(i);
  return sum & 1;
};

const compactor = new Compactor({ keepRecentTokens: 20_000, summarizer: { summarize: async () => "" }, cacheFacts: false });
const cases = {
  pi: () => {
    for (const message of messages) pi.estimateTokens(message);
    pi.findCutPoint(entries, 0, entries.length, 20_000);
  },
  visit: () => visit(messages, length),
  encode: () => baselineC(list, view),
  walk: () => {
    const laid = walk(messages, memory, indicesAt, n, 0, bytesAt, bytesCap, nodesAt, nodesCap, canonicalKeys);
    const bytes = new Uint32Array(memory.buffer, nodesAt, 4)[1];
    // A walk that marked messages as skipped would write almost nothing.
    if (laid !== n || bytes < body / 4) throw new Error(`the walker laid out ${laid} of ${n} messages (${bytes} bytes)`, { cause: laid?.cause });
  },
  score: () => compactor.planBytes(joined, { inputTokenBudget: 0 }),
  chars: () => visit(messages, chars),
  plan: () => compactor.plan({ messages, inputTokenBudget: 0 }),
};

const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = -3; round < rounds; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const start = performance.now();
    run();
    if (round >= 0) times[name].push(performance.now() - start);
  }
}
const median = (list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)];
const piTime = median(times.pi);
console.log(`${n} messages, ${rounds} rounds, medians (load ${(await import("node:os")).loadavg()[0].toFixed(2)}):\n`);
console.log("| case | ms | / pi |\n|---|---:|---:|");
for (const [name, list] of Object.entries(times)) {
  const ms = median(list);
  console.log(`| ${name} | ${ms.toFixed(2)} | ${(ms / piTime).toFixed(2)}× |`);
}
