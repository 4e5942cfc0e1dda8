// The facts cache looks messages up and stores them many at a time (src/wasm/cache.rs,
// host/cache.js: lookups of up to 8192 messages, their texts joined and cut in UTF-16 units;
// stores of 256, as a JSON array): plans whose hits and misses cross those edges, hostile
// messages in a batch, and the last message, which a batch never stores nor serves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor } from "context-compaction";
import { generator } from "./helpers.mjs";

const summarizer = generator(async () => "S");

// Message `i` of a history: every text holds its marker `<i>`, and some ids hold characters
// past ASCII (one and two UTF-16 units: a found text's length in UTF-16 units and in bytes
// differ) and what JSON escapes (stored texts cross as a JSON array).
const idOf = (i) => (i % 5 === 1 ? `调用-"${i}"\\\n-😀` : `c${i}`);
function message(i) {
  switch (i % 4) {
    case 0:
      return { role: "user", content: `question <${i}>` };
    case 1:
      return { role: "assistant", content: [{ type: "toolCall", id: idOf(i), name: "read", arguments: { path: `<${i}>` } }], stopReason: "toolUse" };
    case 2:
      return { role: "toolResult", toolCallId: idOf(i - 1), toolName: "read", content: [{ type: "text", text: `output <${i}> é` }] };
    default:
      return { role: "assistant", content: [{ type: "text", text: `answer <${i}>` }], stopReason: "stop" };
  }
}
const history = (n) => Array.from({ length: n }, (_, i) => message(i));

// A host estimator that notes which messages it was given texts of (by their markers); `take`
// returns them in order and forgets them.
function noting() {
  const read = new Set();
  const estimator = {
    countTokens(text) {
      for (const [, i] of text.matchAll(/<(\d+)>/g)) read.add(Number(i));
      return Math.ceil(text.length / 3);
    },
  };
  const take = () => {
    const all = [...read].sort((a, b) => a - b);
    read.clear();
    return all;
  };
  return { estimator, take };
}

const tokens = (compactor, messages, estimator) => [...compactor.plan({ messages, estimator, inputTokenBudget: 0 }).messageTokens];
const fresh = (messages, estimator) => tokens(new Compactor({ cacheFacts: false, keepRecentTokens: 1, summarizer }), messages, estimator);

test("hits and misses mixed across the lookup's and the store's batches read only the misses, and plan as read afresh", () => {
  const n = 9_000;
  const messages = history(n);
  const { estimator, take } = noting();
  const compactor = new Compactor({ keepRecentTokens: 1, summarizer });
  tokens(compactor, messages, estimator);
  assert.equal(take().length, n);
  // New objects (copies) in place of some: every seventh, a run across the first store's
  // edge (256) and one across the first lookup's (8192).
  const copied = new Set();
  for (let i = 0; i < n; i++) if (i % 7 === 3 || (i >= 250 && i < 262) || (i >= 8185 && i < 8200)) copied.add(i);
  const mixed = messages.map((m, i) => (copied.has(i) ? { ...m } : m));
  mixed.push(message(n));
  const planned = tokens(compactor, mixed, estimator);
  // The copies, the message that was last (never stored) and the new last one.
  assert.deepEqual(take(), [...copied, n - 1, n].sort((a, b) => a - b));
  assert.deepEqual(planned, fresh(mixed, estimator));
  take();
  // Everything but the last is cached now.
  assert.deepEqual(tokens(compactor, mixed, estimator), planned);
  assert.deepEqual(take(), [n]);
});

test("a message that throws in the middle of a batch fails the plan naming it; the cache stays right", () => {
  const messages = history(600);
  const boom = new Error("getter");
  const bad = { ...messages[300] };
  Object.defineProperty(bad, "content", { enumerable: true, get: () => { throw boom; } });
  const broken = messages.map((m, i) => (i === 300 ? bad : m));
  const { estimator, take } = noting();
  const compactor = new Compactor({ keepRecentTokens: 1, summarizer });
  const copy = [...broken];
  assert.throws(
    () => tokens(compactor, broken, estimator),
    (e) => e instanceof CompactionError && /messages\[300\]/.test(e.message) && e.cause === boom,
  );
  assert.deepEqual(broken, copy, "the caller's array is unchanged");
  take();
  // Repaired, the plan is the one read afresh, and a second one reads only the last message.
  const planned = tokens(compactor, messages, estimator);
  assert.deepEqual(planned, fresh(messages, estimator));
  take();
  assert.deepEqual(tokens(compactor, messages, estimator), planned);
  assert.deepEqual(take(), [599]);
});

test("a batch runs none of a message's getters or Proxy traps when looking it up or storing it", () => {
  const messages = history(600);
  let traps = 0;
  const handler = Object.fromEntries(["get", "has", "ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf"].map((trap) => [trap, (...args) => (traps++, Reflect[trap](...args))]));
  for (const i of [10, 299, 300, 301, 450]) messages[i] = new Proxy(messages[i], handler);
  const compactor = new Compactor({ keepRecentTokens: 1, summarizer });
  const first = tokens(compactor, messages, undefined);
  assert.ok(traps > 0, "the first plan reads them");
  traps = 0;
  assert.deepEqual(tokens(compactor, messages, undefined), first);
  assert.equal(traps, 0, "the second plan finds them in the cache without touching them");
});

test("the last message of a batch is never stored nor served: read afresh while it is last", () => {
  const messages = history(600);
  const { estimator, take } = noting();
  const compactor = new Compactor({ keepRecentTokens: 1, summarizer });
  tokens(compactor, messages, estimator);
  take();
  // Written into in place while last (a streamed answer): read again, its new size.
  messages[599].content[0].text += " and more".repeat(200);
  const grown = tokens(compactor, messages, estimator);
  assert.deepEqual(take(), [599]);
  assert.deepEqual(grown, fresh(messages, estimator));
  take();
  // Not stored while last: read once more when a message follows it, then cached.
  messages.push(message(600));
  const longer = tokens(compactor, messages, estimator);
  assert.deepEqual(take(), [599, 600]);
  assert.deepEqual(longer, fresh(messages, estimator));
  take();
  // A message cached while it had others after it is not served once it is last.
  const shorter = messages.slice(0, 400);
  const cut = tokens(compactor, shorter, estimator);
  assert.deepEqual(take(), [399]);
  assert.deepEqual(cut, fresh(shorter, estimator));
});
