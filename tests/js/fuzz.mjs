// The hostile-input fuzzer, run with a fixed budget by fuzz.test.mjs and for a long
// run by scripts/fuzz. fast-check builds each case: an entry point (plan, planBytes, apply,
// compact, conversation, append, maintain, prepareAhead, run, estimate, summarizerInput, projectSummary,
// isContextOverflowError, countTokens), a format, a real history in it, and up to three places
// in the request, its options, the Compactor config or the ContextManager and
// HeuristicEstimator options replaced by hostile values (throwing or revoked Proxies, throwing
// getters, detached buffers, cycles, huge and deep values, wrong types). For each case:
//   - the result is a plan / null / result object, or a CompactionError (thrown, or a rejection
//     for the async entry points, which must settle);
//   - the caller's objects are unchanged (their own properties, read without calling getters);
//   - a fresh Compactor still plans a known history exactly as before.
// fast-check shrinks a failing case and prints its seed, so a failure can be replayed.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const root = process.env.CC_ROOT;
const fc = createRequire(`${root}/package.json`)("fast-check");

export const FORMATS = ["canonical", "openai-chat", "anthropic", "ai-sdk", "openai-responses", "ai-sdk-ui"];
const fixtures = Object.fromEntries(FORMATS.map((f) => [f, readFileSync(`${root}/tests/fixtures/formats/${f}.json`, "utf8")]));

/** Objects this fuzzer made hostile: the unchanged-check does not look inside them. */
const hostile = new WeakSet();
const boom = () => new Error("hostile trap");

function remember(value) {
  if ((typeof value === "object" && value !== null) || typeof value === "function") hostile.add(value);
  return value;
}

/** A Proxy over `target` whose `trap` throws from its `after`-th call on. */
function trapping(target, trap, after) {
  let calls = 0;
  return remember(
    new Proxy(target, {
      [trap](...args) {
        if (calls++ >= after) throw boom();
        return Reflect[trap](...args);
      },
    }),
  );
}

function revoked(target) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return remember(proxy);
}

function withThrowingGetter(target, key) {
  // An array's length cannot be a getter: a Proxy's then.
  if (Array.isArray(target) && key === "length") return trapping(target, "get", 0);
  const copy = Array.isArray(target) ? [...target] : { ...target };
  Object.defineProperty(copy, key, { get: () => { throw boom(); }, enumerable: true, configurable: true });
  return remember(copy);
}

function detached(asView) {
  const buffer = new ArrayBuffer(16);
  const view = new Uint8Array(buffer);
  structuredClone(buffer, { transfer: [buffer] });
  return remember(asView ? view : buffer);
}

function deep(depth) {
  let value = "leaf";
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { v: value };
  return value;
}

function cycle() {
  const a = { role: "user", content: [] };
  a.content.push({ type: "text", text: "loop", self: a });
  a.self = a;
  return remember(a);
}

// Hostile replacements for the value at a place: each gets the value that was there.
const TRAPS = ["get", "has", "ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf"];
const replacement = fc.oneof(
  fc.record({ kind: fc.constant("trap"), trap: fc.constantFrom(...TRAPS), after: fc.nat({ max: 6 }) }),
  fc.record({ kind: fc.constant("revoked") }),
  fc.record({ kind: fc.constant("getter"), key: fc.constantFrom("content", "role", "text", "length", "0", "type", "messages", "summary") }),
  fc.record({ kind: fc.constant("value"), value: fc.oneof(
    fc.constantFrom(undefined, null, true, 0, -1, 1.5, NaN, Infinity, -Infinity, 2 ** 32 + 2, 2 ** 53, 1e308, "", "x", "user", "[]"),
    fc.bigInt(),
    fc.string({ maxLength: 8 }),
    fc.double(),
    fc.constant("wide".repeat(50_000)),
  ) }),
  fc.record({ kind: fc.constantFrom("symbol", "function", "detachedBuffer", "detachedView", "cycle", "deep", "date", "map", "array", "object", "uint8", "wrongBytes") }),
);

function hostileValue(spec, original) {
  const target = typeof original === "object" && original !== null && !hostile.has(original) ? original : {};
  switch (spec.kind) {
    case "trap": return trapping(target, spec.trap, spec.after);
    case "revoked": return revoked(target);
    case "getter": return withThrowingGetter(target, spec.key);
    case "value": return spec.value;
    case "symbol": return Symbol("s");
    case "function": return remember(() => { throw boom(); });
    case "detachedBuffer": return detached(false);
    case "detachedView": return detached(true);
    case "cycle": return cycle();
    case "deep": return deep(300);
    case "date": return new Date(0);
    case "map": return new Map([["role", "user"]]);
    case "array": return [original, original];
    case "object": return { nested: original };
    case "uint8": return new Uint8Array([91, 93]);
    case "wrongBytes": return new Uint8Array([0xff, 0xfe, 0x5b]);
  }
  throw new Error(`unknown kind ${spec.kind}`);
}

/** Every [parent, key] place in `value` (plain objects and arrays), parents first. */
function places(value, out = [], depth = 0) {
  if (typeof value !== "object" || value === null || depth > 8) return out;
  // The package's own objects (a Compactor given in options) are replaced, not entered.
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype) return out;
  for (const key of Object.keys(value)) {
    out.push([value, key]);
    places(value[key], out, depth + 1);
  }
  return out;
}

const ENTRIES = [
  "plan", "planBytes", "apply", "compact", "conversation", "append", "maintain", "prepareAhead", "run", "estimate", "summarizerInput",
  "projectSummary", "isContextOverflowError", "countTokens",
];

/** The fast-check arbitrary of one case. */
export const hostileCase = fc.record({
  entry: fc.constantFrom(...ENTRIES),
  format: fc.constantFrom(...FORMATS),
  // Five copies make more than 32 messages: the walker's path; one copy, the general one.
  copies: fc.constantFrom(1, 5),
  budget: fc.constantFrom(0, 1_000_000, undefined),
  changes: fc.array(fc.tuple(fc.nat(), replacement), { maxLength: 3 }),
});

/** What the request and options of a case are, before the hostile changes. */
function base(c) {
  const messages = Array.from({ length: c.copies }, () => JSON.parse(fixtures[c.format])).flat();
  const request = { messages, format: c.format, systemPrompt: "You are helpful.", summary: "", inputTokenBudget: c.budget };
  return { request, options: { signal: new AbortController().signal } };
}

/** A Compactor config and the options of a ContextManager and a HeuristicEstimator, which the
 * hostile changes may reach too. */
function configs(api) {
  const summarizer = { model: "m", generate: async () => "SUMMARY", retry: { delaysMs: [] }, maxOutputTokens: 1_000, systemPrompt: "Summarize." };
  return {
    config: { keepRecentTokens: 200, triggerRatio: 0.8, summarizer, fileTracking: { readTools: ["read"], modifyTools: ["edit"], pathKeys: ["path"] }, cacheFacts: true },
    manager: { compactor: new api.Compactor({ keepRecentTokens: 200, summarizer }), contextWindowTokens: 3_000, reserveTokens: 100 },
    heuristic: { imageTokens: 1_000 },
  };
}

/** Applies the case's changes: each replaces one place of the request or options. */
function mutate(c, subject) {
  const all = places(subject);
  for (const [index, spec] of c.changes) {
    if (all.length === 0) break;
    const [parent, key] = all[index % all.length];
    parent[key] = hostileValue(spec, parent[key]);
  }
}

/** The caller's objects as data (own properties; getters and our hostile objects not entered). */
function fingerprint(value, seen = new Map()) {
  if (typeof value !== "object" || value === null) return typeof value === "bigint" || typeof value === "symbol" ? String(value) : value;
  if (hostile.has(value)) return "<hostile>";
  if (seen.has(value)) return "<seen>";
  seen.set(value, true);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `<bytes ${value.byteLength}>`;
  const out = {};
  for (const key of Reflect.ownKeys(value)) {
    const d = Object.getOwnPropertyDescriptor(value, key);
    out[String(key)] = "value" in d ? fingerprint(d.value, seen) : "<accessor>";
  }
  return [Object.getPrototypeOf(value) === Array.prototype ? "array" : "object", out];
}

/** Runs one case against `api`; throws (an assertion) when a guarantee is broken. */
export async function check(api, c, reference) {
  const { Compactor, ContextManager, CompactionError, estimate } = api;
  const { request, options } = base(c);
  const body = c.entry === "planBytes" ? { body: JSON.stringify(request.messages) } : {};
  const settings = configs(api);
  const managerCompactor = settings.manager.compactor;
  const subject = { request, options, ...body, ...settings };
  mutate(c, subject);
  const before = fingerprint(subject);
  const outcome = (value) => assert.ok(value === null || typeof value === "object" || typeof value === "number", `unexpected result ${String(value)}`);
  const allowed = (error) => {
    assert.ok(error instanceof CompactionError, `escaped: ${error?.stack ?? String(error)}`);
    assert.ok(typeof error.code === "string" && error.message.length > 0);
  };
  const sync = (fn) => {
    try {
      outcome(fn());
    } catch (error) {
      allowed(error);
    }
  };
  const settles = async (fn) => {
    const promise = fn();
    assert.ok(promise instanceof Promise, "an async entry point returned no promise");
    let timer;
    const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("did not settle in 5 s")), 5_000)));
    try {
      outcome(await Promise.race([promise, timeout]));
    } catch (error) {
      allowed(error);
    } finally {
      clearTimeout(timer);
    }
  };
  const r = subject.request;
  const o = subject.options;
  let compactor;
  try {
    compactor = new Compactor(subject.config);
  } catch (error) {
    allowed(error);
  }
  switch (compactor && c.entry) {
    case "plan": sync(() => compactor.plan(r)); break;
    case "planBytes": sync(() => compactor.planBytes(subject.body, { format: c.format, inputTokenBudget: c.budget })); break;
    case "estimate": sync(() => estimate(r)); break;
    case "summarizerInput": sync(() => compactor.summarizerInput(r, planOf(compactor, c))); break;
    case "apply": await settles(() => compactor.apply(r, planOf(compactor, c), o)); break;
    case "compact": await settles(() => compactor.compact(r, o)); break;
    case "conversation": sync(() => compactor.conversation(r).plan(r)); break;
    case "append": {
      const history = compactor.conversation({ format: c.format });
      sync(() => history.append(field(r, "messages")));
      sync(() => history.plan(r));
      break;
    }
    case "maintain":
    case "prepareAhead":
    case "run": {
      let manager;
      try {
        manager = new ContextManager(subject.manager);
      } catch (error) {
        allowed(error);
        break;
      }
      // The provider rejects once for overflow, then answers: the run compacts in between.
      let sent = 0;
      const overflow = Object.assign(new Error("prompt is too long: context window exceeded"), { status: 400 });
      const send = async () => (sent++ === 0 ? Promise.reject(overflow) : { ok: true });
      const call = { run: () => manager.run(r, send, o), maintain: () => manager.maintain(r, o), prepareAhead: () => manager.prepareAhead(r, o) };
      await settles(call[c.entry]);
      manager.free();
      break;
    }
    case "projectSummary": sync(() => api.projectSummary(field(r, "summary"), c.format)); break;
    case "isContextOverflowError": sync(() => (api.isContextOverflowError(r), null)); break;
    case "countTokens": {
      let heuristic;
      sync(() => (heuristic = new api.HeuristicEstimator(subject.heuristic)));
      if (heuristic) sync(() => heuristic.countTokens(field(r, "systemPrompt")));
      heuristic?.free();
      break;
    }
  }
  compactor?.free();
  assert.deepEqual(fingerprint(subject), before, "the caller's objects changed");
  managerCompactor.free();
  if (reference) assert.deepEqual(reference.plan(api), reference.want, "a fresh Compactor plans differently");
}

// `object[key]` read by the harness itself (a hostile object is passed as it is instead).
function field(object, key) {
  try {
    return object[key];
  } catch {
    return object;
  }
}

// A plan for the case's unchanged history (apply and summarizerInput get a real one).
function planOf(compactor, c) {
  try {
    return compactor.plan({ ...base(c).request, inputTokenBudget: 0 });
  } catch {
    return null;
  }
}

/** A fresh Compactor's plan of a known history, and what it must be. */
export function reference(api) {
  const messages = JSON.parse(fixtures.canonical);
  const plan = ({ Compactor }) => {
    const compactor = new Compactor({ keepRecentTokens: 100, summarizer: { model: "m", generate: async () => "S" } });
    const made = compactor.plan({ messages, inputTokenBudget: 0 });
    compactor.free();
    return made && { ...made, messageTokens: [...made.messageTokens] };
  };
  return { plan, want: plan(api) };
}

/** Runs `runs` cases from `seed`; resolves to how many ran, rejects with fast-check's report. */
export async function fuzz(api, { runs, seed, reportEvery = 0 }) {
  const ref = reference(api);
  let count = 0;
  try {
    await fc.assert(
      fc.asyncProperty(hostileCase, async (c) => {
        await check(api, c, ref);
        count++;
        if (reportEvery && count % reportEvery === 0) console.log(`fuzz: ${count} cases`);
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  } catch (error) {
    // fast-check's report (seed, counterexample) with the broken guarantee's own message.
    throw new Error(`${error.message}\n${error.cause?.stack ?? error.cause}`);
  }
  return count;
}
