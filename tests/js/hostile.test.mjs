// Hostile input, case by case: throwing and revoked Proxies, throwing getters,
// detached buffers, use after free(), huge numbers, arrays changed while a summary runs, loose
// types, UI messages. Each gives a CompactionError naming the place (the host's exception as
// `cause`), every promise settles, and nothing poisons the module for later callers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor, ContextManager, HeuristicEstimator, estimate } from "context-compaction";
import { conversation, generator, result, say, user } from "./helpers.mjs";

const compactor = () => new Compactor({ keepRecentTokens: 50, summarizer: generator(async () => "SUMMARY") });
const boom = new Error("trap");

/** A Proxy over `target` whose `trap` throws `boom` (for `key`, when given). */
function trapping(target, trap, key) {
  return new Proxy(target, {
    [trap](t, k, ...rest) {
      if (key === undefined || k === key) throw boom;
      return Reflect[trap](t, k, ...rest);
    },
  });
}

function revoked(target = []) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** `error` is a CompactionError with `code`, a message matching `place`, and `cause` as given. */
function isError(error, code, place, cause) {
  assert.ok(error instanceof CompactionError, `not a CompactionError: ${error?.stack ?? error}`);
  assert.equal(error.code, code, error.message);
  assert.match(error.message, place);
  if (cause === TypeError) assert.ok(error.cause instanceof TypeError, `cause: ${error.cause}`);
  else if (cause !== undefined) assert.equal(error.cause, cause);
  return true;
}

const throwsAt = (fn, code, place, cause) => assert.throws(fn, (e) => isError(e, code, place, cause));
const rejectsAt = (promise, code, place, cause) => assert.rejects(promise, (e) => isError(e, code, place, cause));

test("1. host exceptions become CompactionErrors naming the place, the host's exception as cause", () => {
  const c = compactor();
  throwsAt(() => c.plan({ messages: trapping(conversation(2), "get", "length") }), "invalid_request", /messages\.length: reading it threw: trap/, boom);
  throwsAt(() => c.plan({ messages: trapping(conversation(2), "get", "1") }), "invalid_request", /messages\[1\]: reading it threw/, boom);
  const getter = conversation(12);
  Object.defineProperty(getter[40], "content", { get() { throw boom; }, enumerable: true });
  throwsAt(() => c.plan({ messages: getter }), "invalid_request", /messages\[40\]/, boom);
  throwsAt(() => c.plan({ messages: revoked() }), "invalid_request", /messages: reading it threw/, TypeError);
  throwsAt(() => c.plan({ messages: [], systemPrompt: revoked() }), "invalid_request", /systemPrompt/, TypeError);
  throwsAt(() => estimate({ messages: revoked() }), "invalid_request", /messages/, TypeError);
  throwsAt(() => estimate(revoked({})), "invalid_request", /request\.messages/, TypeError);
  throwsAt(() => c.conversation({ messages: revoked() }), "invalid_request", /messages/, TypeError);
  const history = c.conversation({});
  throwsAt(() => history.append(revoked()), "invalid_request", /messages/, TypeError);
  throwsAt(() => history.append([user("a"), trapping(user("b"), "get", "content")]), "invalid_request", /messages\[1\]/, boom);
  assert.equal(history.length, 0);
  const config = (extra) => () => new Compactor({ summarizer: generator(async () => "S", extra) });
  throwsAt(config({ retry: { delaysMs: revoked() } }), "invalid_config", /summarizer\.retry\.delaysMs/, TypeError);
  throwsAt(() => new Compactor({ summarizer: generator(async () => "S"), fileTracking: { readTools: revoked() } }), "invalid_config", /fileTracking\.readTools/, TypeError);
  throwsAt(() => new Compactor({ summarizer: trapping({ model: "m", generate() {} }, "get", "model") }), "invalid_config", /summarizer\.model: reading it threw/, boom);
  throwsAt(() => new ContextManager({ compactor: c, estimator: revoked({}) }), "invalid_config", /estimator/, TypeError);
  throwsAt(() => new ContextManager(trapping({ compactor: c }, "get", "compactor")), "invalid_config", /options\.compactor: reading it threw/, boom);
  let reads = 0;
  const flaky = new Proxy(c, { getPrototypeOf: (t) => (reads++ > 0 ? (() => { throw boom; })() : Reflect.getPrototypeOf(t)) });
  throwsAt(() => new ContextManager({ compactor: flaky }), "invalid_config", /options\.compactor: reading it threw/, boom);
  const buffer = new ArrayBuffer(8);
  const view = new Uint8Array(buffer);
  structuredClone(buffer, { transfer: [buffer] });
  throwsAt(() => c.planBytes(buffer), "invalid_request", /body/, TypeError);
  throwsAt(() => c.planBytes(view), "invalid_request", /body/, TypeError);
  throwsAt(() => c.planBytes(new Proxy(new Uint8Array(2), {})), "invalid_request", /body: expected/);
});

test("2. nothing poisons the instance or the module: free() after an escape, conversations, fresh compactors", () => {
  const messages = conversation(12);
  const want = compactor().plan({ messages, inputTokenBudget: 0 });
  const c = compactor();
  const history = c.conversation({ messages: conversation(3) });
  for (let i = 0; i < 5_000; i++) {
    assert.throws(() => c.plan({ messages: trapping(messages, "get", String(i % messages.length)) }), CompactionError);
    assert.throws(() => history.append(revoked()), CompactionError);
  }
  assert.equal(history.append(user("still here")), 13);
  history.free();
  c.free();
  assert.deepEqual(compactor().plan({ messages, inputTokenBudget: 0 }), want);
});

test("3. every async entry point settles: a throwing state getter, a history revoked while generate runs", async () => {
  const c = compactor();
  const manager = new ContextManager({ compactor: c, contextWindowTokens: 2_000 });
  const state = { messages: conversation(12), get summary() { throw boom; } };
  // Maintenance never throws for an estimate it cannot make: it resolves with the error.
  const maintained = await manager.maintain(state);
  assert.equal(maintained.reason, "estimateFailed");
  isError(maintained.error, "invalid_request", /state\.summary: reading it threw/, boom);
  const overflow = Object.assign(new Error("prompt is too long: context length exceeded"), { status: 400 });
  await rejectsAt(manager.run(state, async () => { throw overflow; }), "invalid_request", /state\.summary/, boom);

  const { proxy, revoke } = Proxy.revocable(conversation(12), {});
  const revoking = new Compactor({ keepRecentTokens: 50, summarizer: generator(async () => { revoke(); return "SUMMARY"; }) });
  const done = await revoking.compact({ messages: proxy, inputTokenBudget: 0 });
  assert.ok(done.summary.startsWith("SUMMARY"));
  assert.ok(done.messages.length > 0);
});

test("4. a compaction reads the request before its first await: pushes and shifts during the summary change nothing", async () => {
  for (const change of [(m) => m.push(user("late")), (m) => m.shift(), (m) => m.splice(30, 5)]) {
    const messages = conversation(12);
    const before = [...messages];
    const c = new Compactor({ keepRecentTokens: 50, summarizer: generator(async () => { change(messages); return "SUMMARY"; }) });
    const plan = c.plan({ messages: before, inputTokenBudget: 0 });
    const done = await c.compact({ messages, inputTokenBudget: 0 });
    assert.deepEqual(done.messages, before.slice(plan.firstKeptIndex));
    assert.equal(done.record.firstKeptIndex, plan.firstKeptIndex);
    assert.equal(done.record.estimateAfter, estimate({ messages: done.messages, summary: done.summary }).total);
  }
});

test("5. numbers: indices of 2^32 and more, huge JSON numbers in bodies, timer-sized delays", async () => {
  const c = compactor();
  const messages = conversation(4);
  const history = JSON.stringify(conversation(6)).slice(1, -1);
  await rejectsAt(c.apply({ messages }, { firstKeptIndex: 2 ** 32 + 2, turnPrefixStart: 0 }), "invalid_request", /plan\.firstKeptIndex: 4294967298 is out of range/);
  const call = (n) => `[${history},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"f","arguments":{"n":${n}}}]}]`;
  for (const n of ["1e999", "9".repeat(400), "1.0", "1e2", "-0", "-1e999", "1.5e300", "123456789012345678901234"]) {
    const fromBytes = c.planBytes(call(n), { inputTokenBudget: 0 });
    const fromObjects = c.plan({ messages: JSON.parse(call(n)), inputTokenBudget: 0 });
    assert.deepEqual([...fromBytes.messageTokens], [...fromObjects.messageTokens], n);
  }
  for (const ms of [2 ** 31, 2 ** 40]) {
    throwsAt(() => new Compactor({ summarizer: generator(async () => "S", { retry: { delaysMs: [ms] } }) }), "invalid_config", /delaysMs\[0\] must be at most 2147483647/);
  }
});

test("6. loose types are refused the same way everywhere", () => {
  for (const retry of [5, "2000,4000", [1000], true]) {
    throwsAt(() => new Compactor({ summarizer: generator(async () => "S", { retry }) }), "invalid_config", /summarizer\.retry must be an object/);
  }
  throwsAt(() => new Compactor({ summarizer: generator(async () => "S"), fileTracking: 5 }), "invalid_config", /fileTracking must be an object/);
  const heuristic = new HeuristicEstimator();
  throwsAt(() => heuristic.countTokens(123), "invalid_request", /countTokens: expected a string, got number/);
  throwsAt(() => heuristic.countTokens(null), "invalid_request", /got null/);
  assert.equal(heuristic.countTokens("hello"), new HeuristicEstimator().countTokens("hello"));
  const c = compactor();
  throwsAt(() => c.plan({ messages: [], requireReduction: "false" }), "invalid_request", /requireReduction: expected a boolean/);
  throwsAt(() => c.conversation({}).plan({ requireReduction: "false" }), "invalid_request", /options\.requireReduction: expected a boolean/);
});

test("7. a message without content (a UI message with parts) is an error, not an empty message", () => {
  const ui = { id: "m1", role: "user", parts: [{ type: "text", text: "hello" }] };
  for (const format of ["canonical", "openai-chat", "anthropic", "ai-sdk", "openai-responses"]) {
    throwsAt(() => estimate({ messages: [user("a"), ui], format }), "invalid_request", /messages\[1\]\.content: missing \(the message has `parts`/);
    const many = Array.from({ length: 40 }, () => user("a"));
    many[33] = ui;
    throwsAt(() => estimate({ messages: many, format }), "invalid_request", /messages\[33\]\.content: missing/);
    throwsAt(() => compactor().planBytes(JSON.stringify([user("a"), ui]), { format }), "invalid_request", /messages\[1\]\.content: missing/);
  }
  // OpenAI assistant messages with tool calls may leave content out.
  const calls = { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] };
  assert.equal(estimate({ messages: [calls], format: "openai-chat" }).messages.length, 1);
});

test("8. a 100-line tool result ending in a line break is not marked truncated", () => {
  const c = compactor();
  const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n") + "\n";
  const messages = [user("read it"), { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "read", arguments: {} }] }, result("c1", text), say("done"), ...conversation(6)];
  const plan = c.plan({ messages, inputTokenBudget: 0 });
  const [{ prompt }] = c.summarizerInput({ messages }, plan);
  assert.match(prompt, /line 99/);
  assert.doesNotMatch(prompt, /bytes truncated/);
});

test("9. use after free() is a CompactionError, a rejection for the async methods", async () => {
  const c = compactor();
  const history = c.conversation({ messages: conversation(2) });
  const heuristic = new HeuristicEstimator();
  const manager = new ContextManager({ compactor: compactor() });
  c.free();
  history.free();
  heuristic.free();
  manager.free();
  throwsAt(() => c.plan({ messages: [] }), "invalid_request", /Compactor\.plan: this Compactor was freed/);
  throwsAt(() => c.planBytes("[]"), "invalid_request", /freed/);
  const applied = c.apply({ messages: [] }, null);
  const compacted = c.compact({ messages: [] });
  assert.ok(applied instanceof Promise && compacted instanceof Promise);
  await rejectsAt(applied, "invalid_request", /Compactor\.apply: this Compactor was freed/);
  await rejectsAt(compacted, "invalid_request", /freed/);
  throwsAt(() => history.append(user("a")), "invalid_request", /Conversation\.append: this Conversation was freed/);
  throwsAt(() => history.length, "invalid_request", /Conversation\.length/);
  throwsAt(() => heuristic.countTokens("a"), "invalid_request", /HeuristicEstimator\.countTokens/);
  await rejectsAt(manager.maintain({ messages: [] }), "invalid_request", /ContextManagerCore\.maintain: this ContextManagerCore was freed/);
  throwsAt(() => new ContextManager({ compactor: c }), "invalid_config", /options\.compactor must be a Compactor \(not freed\)/);
  c.free();
  c[Symbol.dispose]();
  assert.ok(compactor().plan({ messages: conversation(6), inputTokenBudget: 0 }));
});

test("a getter that calls back into the object reading it, or frees it, gets a CompactionError", () => {
  const c = compactor();
  const history = c.conversation({});
  const sneaky = (act) =>
    Object.defineProperty({ role: "user" }, "content", {
      get() {
        act();
        return "hello";
      },
      enumerable: true,
    });
  let inner;
  const grab = (fn) => () => {
    try {
      fn();
    } catch (e) {
      inner = e;
    }
  };
  history.append(sneaky(grab(() => history.append(user("again")))));
  isError(inner, "invalid_request", /Conversation\.append: this Conversation is in use/);
  inner = undefined;
  c.plan({ messages: [sneaky(grab(() => c.free()))] });
  isError(inner, "invalid_request", /Compactor\.free: this Compactor is in use/);
  assert.equal(history.length, 1);
  assert.doesNotThrow(() => c.plan({ messages: conversation(3) }));
  history.free();
  c.free();
});

test("a getter that plans other histories while its own is walked changes nothing in its plan", () => {
  // The walker remembers the short strings it wrote, under a mark per walk, and takes a new
  // mark when a message is laid out again (a toJSON inside it) so that what that message wrote
  // is forgotten. A getter's own plans walk too, as many times again as they have messages
  // left to JSON.stringify: over j from 0 to a whole turn of the marks, one of them would end
  // on the interrupted walk's mark, or bring its next mark back to the one it forgot.
  const c = new Compactor({ keepRecentTokens: 50, summarizer: generator(async () => "SUMMARY"), cacheFacts: false });
  const odd = () => ({ toJSON: () => user("left to JSON.stringify") });
  const history = (j) => {
    const messages = conversation(20);
    const content = messages[41].content;
    Object.defineProperty(messages[41], "content", {
      get() {
        if (j >= 0) c.plan({ messages: [...Array.from({ length: j }, odd), ...conversation(10)], inputTokenBudget: 0 });
        return content;
      },
      enumerable: true,
    });
    // A short string first written by a message laid out again, then written anew.
    const again = user([{ type: "text", text: "once more" }, { toJSON: () => ({ type: "text", text: "!" }) }]);
    messages.splice(44, 0, again, user("once more"));
    return messages;
  };
  const plan = (messages) => {
    const p = c.plan({ messages, inputTokenBudget: 0 });
    return [p.estimateBefore, p.firstKeptIndex, [...p.messageTokens]];
  };
  const quiet = plan(history(-1));
  for (let j = 0; j < 520; j++) assert.deepEqual(plan(history(j)), quiet, `after ${j} messages left to JSON.stringify`);
});
