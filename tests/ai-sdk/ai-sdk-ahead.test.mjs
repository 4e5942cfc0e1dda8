// Ahead-of-time compaction in the AI SDK chat route: `prepareAhead` after each response makes
// the pending summary the app stores beside the chat's state; the next `prepare` commits it when
// due (no summary waited for), names its cut by UIMessage id and part, and discards a stale one
// (an edited history, a late one from before a compaction). Against `ai` 7's
// convertToModelMessages, through the packed tarball (scripts/test-js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { CompactionError, Compactor } from "context-compaction";
import { ChatCompaction, ChatPreview } from "context-compaction/ai-sdk";

const root = process.env.CC_AI_SDK ?? new URL(".", import.meta.url).pathname;
const require = createRequire(`${root}/package.json`);
const { convertToModelMessages } = await import(pathToFileURL(require.resolve("ai7")).href);

const OPTIONS = { contextWindowTokens: 8_000, reserveTokens: 2_000, keepRecentTokens: 1_500, system: "You are a careful assistant." };
const words = (label, n) => Array.from({ length: n }, (_, i) => `${label}${i % 7} word${i}`).join(" ");
const ask = (turn) => ({ id: `u${turn}`, role: "user", parts: [{ type: "text", text: words(`q${turn}`, 90) }] });
/** An answer; every fifth a two-step tool loop, so that a cut may fall between its steps. */
function reply(turn) {
  const text = { type: "text", text: words(`a${turn}`, 160), state: "done" };
  if (turn % 5 !== 4) return { id: `r${turn}`, role: "assistant", parts: [{ type: "step-start" }, text] };
  const read = { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `m${turn}.rs` }, output: words(`f${turn}`, 200) };
  return { id: `r${turn}`, role: "assistant", parts: [{ type: "step-start" }, read, { type: "step-start" }, text] };
}

function route() {
  const calls = [];
  const summarizer = {
    summarize: async (req) => {
      calls.push(req);
      return `Summary ${calls.length}: ${req.messages.length} messages.`;
    },
  };
  return { route: new ChatCompaction({ ...OPTIONS, summarizer, convertToModelMessages }), calls };
}

test("over 64 turns every compaction commits the pending summary made after a response; prepare never waits for one", async () => {
  const { route: chat, calls } = route();
  const preview = new ChatPreview(OPTIONS);
  const messages = [];
  let state = null;
  let pending = null;
  let committed = 0;
  for (let turn = 0; turn < 64; turn++) {
    messages.push(ask(turn));
    // The page's preview shows the stored pending summary as one the route will commit.
    preview.update(messages, state, { pending });
    if (pending) assert.equal(preview.pending().covers, true, `turn ${turn}`);
    const plan = preview.plan();
    const before = calls.length;
    const prepared = await chat.prepare(messages, state, { pending });
    assert.equal(prepared.error, undefined);
    if (prepared.compacted) {
      assert.equal(prepared.pending, "committed", `turn ${turn}: a compaction without a pending summary`);
      assert.equal(calls.length, before, `turn ${turn}: prepare waited for a summary`);
      // The stored state starts where the pending summary cut, by id and part, with its text.
      assert.deepEqual([prepared.state.summary, prepared.state.firstKeptId, prepared.state.firstKeptPart], [pending.summary, pending.firstKeptId, pending.firstKeptPart]);
      assert.equal(prepared.record.receipt.digest, pending.digest);
      // The preview's plan shows that cut: what the route did.
      assert.deepEqual([plan?.kind, plan?.firstKeptId, plan?.firstKeptPart], ["summary", pending.firstKeptId, pending.firstKeptPart], `turn ${turn}: the preview's plan`);
      const summarized = plan.messages.filter((m) => m.fate === "summarized").map((m) => m.id);
      assert.ok(!summarized.includes(pending.firstKeptId) && summarized.every((id) => messages.findIndex((m) => m.id === id) < messages.findIndex((m) => m.id === pending.firstKeptId)), `turn ${turn}`);
      // The model gets the summary first, then every message from the cut on.
      assert.match(JSON.stringify(prepared.messages[0]), new RegExp(pending.summary.slice(0, 12)));
      committed++;
    }
    const response = reply(turn);
    messages.push(response);
    state = prepared.stateAfter(response);
    // After the response (`after()` in Next.js): the pending summary to store.
    pending = await prepared.prepareAhead(response);
  }
  assert.ok(committed >= 4, `only ${committed} compactions`);
});

test("a stale pending summary is discarded: an edited history, or one made before a compaction", async () => {
  const { route: chat, calls } = route();
  const messages = [];
  let state = null;
  let pending = null;
  let turn = 0;
  // Up to the first pending summary.
  for (; pending === null; turn++) {
    messages.push(ask(turn));
    const prepared = await chat.prepare(messages, state);
    messages.push(reply(turn));
    state = prepared.stateAfter(messages.at(-1));
    pending = await prepared.prepareAhead(messages.at(-1));
  }
  // An edited early message (the user changed a question): the pending no longer covers it.
  const edited = messages.map((m, i) => (i === 2 ? { ...m, parts: [{ type: "text", text: "an edited question" }] } : m));
  let prepared;
  for (; ; turn++) {
    edited.push(ask(turn));
    prepared = await chat.prepare(edited, state, { pending });
    if (prepared.compacted) break;
    edited.push(reply(turn));
    state = prepared.stateAfter(edited.at(-1));
  }
  assert.equal(prepared.pending, "discarded");
  const made = calls.length;
  assert.ok(made >= 2, "the ordinary path summarized afresh");
  // The same pending, late (its store raced the compaction): harmless, discarded when due.
  let next = prepared.stateAfter(reply(turn));
  edited.push(reply(turn));
  const again = await chat.prepareAhead(edited, next, { pending });
  assert.notEqual(again, pending, "a stale pending is never handed back");
  for (turn++; ; turn++) {
    edited.push(ask(turn));
    const late = await chat.prepare(edited, next, { pending });
    if (late.compacted) {
      assert.equal(late.pending, "discarded");
      assert.notEqual(late.state.summary, pending.summary);
      break;
    }
    edited.push(reply(turn));
    next = late.stateAfter(edited.at(-1));
  }
});

test("a failed background summary changes nothing; a malformed pending is refused", async () => {
  const failing = new ChatCompaction({ ...OPTIONS, summarizer: { summarize: async () => { throw new Error("down"); } }, convertToModelMessages });
  const messages = [];
  for (let turn = 0; turn < 14; turn++) messages.push(ask(turn), reply(turn));
  const snapshot = structuredClone(messages);
  await assert.rejects(failing.prepareAhead(messages, null), (e) => e.code === "summarization");
  assert.deepEqual(messages, snapshot);
  await assert.rejects(failing.prepare(messages, null, { pending: "nope" }), (e) => e.code === "invalid_request");
});

/**
 * 40 turns of a tool loop whose second step may pass the threshold that the posted chat did not
 * (every fourth turn the first step reads a large file), with the pending summary of each
 * response given to the next `prepare`; `rewrite(sent, state)` may change the messages a step is
 * handed. Calls `compactedBetween({ turn, after, pending, waited })` for each turn compacted
 * between the steps with a pending summary given (`waited`: the summary calls the step made).
 */
async function toolLoop({ rewrite = (sent) => sent, compactedBetween }) {
  const { route: chat, calls } = route();
  const messages = [];
  let state = null;
  let pending = null;
  for (let turn = 0; turn < 40; turn++) {
    messages.push({ id: `u${turn}`, role: "user", parts: [{ type: "text", text: words(`q${turn}`, 30) }] });
    const prepared = await chat.prepare(messages, state, { pending });
    assert.equal(prepared.error, undefined);
    const id = `r${turn}`;
    const read = { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `m${turn}.rs` }, output: words(`f${turn}`, turn % 4 === 3 ? 500 : 20) };
    const done = await convertToModelMessages([{ id, role: "assistant", parts: [{ type: "step-start" }, read] }]);
    const before = calls.length;
    await prepared.prepareStep({ messages: [...rewrite([...prepared.messages], state), ...done], steps: [{ response: { messages: done } }] });
    const response = { id, role: "assistant", parts: [{ type: "step-start" }, read, { type: "step-start" }, { type: "text", text: words(`a${turn}`, 40), state: "done" }] };
    messages.push(response);
    const after = prepared.stateAfter(response);
    if (!prepared.compacted && pending && after?.summary !== prepared.state?.summary) compactedBetween({ turn, after, pending, waited: calls.length - before });
    state = after;
    pending = await prepared.prepareAhead(response);
  }
}

test("a tool loop that passes the threshold between steps commits the pending summary prepare was given: no summary call", async () => {
  let committed = 0;
  await toolLoop({
    compactedBetween: ({ turn, after, pending, waited }) => {
      // Compacted between the steps, with a pending summary given: it is the one committed.
      assert.equal(waited, 0, `turn ${turn}: a step waited for a summary`);
      assert.deepEqual([after.summary, after.firstKeptId, after.firstKeptPart], [pending.summary, pending.firstKeptId, pending.firstKeptPart], `turn ${turn}`);
      committed++;
    },
  });
  assert.ok(committed >= 2, `only ${committed} compactions between steps with a pending summary`);
});

test("a step whose messages before the pending summary's cut changed since prepare does not commit it: stale there, summarized as usual", async () => {
  let refused = 0;
  await toolLoop({
    // The first message sent after the summary rewritten (a middleware that edits the
    // history): the pending summary no longer covers what the step sends.
    rewrite: (sent, state) => {
      const at = state?.summary ? 1 : 0;
      return sent.with(at, { ...sent[at], content: [{ type: "text", text: "rewritten since prepare" }] });
    },
    compactedBetween: ({ turn, after, pending, waited }) => {
      assert.notEqual(after.summary, pending.summary, `turn ${turn}: a stale pending summary committed`);
      assert.equal(waited, 1, `turn ${turn}: summarized instead`);
      refused++;
    },
  });
  assert.ok(refused >= 2, `only ${refused} compactions between steps with a pending summary`);
});

test("a step that commits the pending summary and is still over the threshold compacts further: it sends and stores the further cut, pinned messages kept before it", async () => {
  for (const rebuild of [true, false]) {
    const calls = [];
    const events = [];
    const summarizer = { summarize: async (req) => (calls.push(req), `Summary ${calls.length}: ${req.messages.length} messages.`) };
    const onEvent = (event) => event.type === "compactionStart" && events.push(event.reason);
    const chat = new ChatCompaction({ ...OPTIONS, summarizer, onEvent, convertToModelMessages });
    const task = { ...ask(0), metadata: { pinned: true } };
    const messages = [task, reply(0)];
    let state = null;
    let pending = null;
    let prepared;
    // Up to a request below the threshold with a pending summary to hand its steps.
    for (let turn = 1; ; turn++) {
      messages.push(ask(turn));
      prepared = await chat.prepare(messages, state, { pending });
      if (!prepared.compacted && pending !== null) break;
      messages.push(reply(turn));
      state = prepared.stateAfter(messages.at(-1));
      pending = await prepared.prepareAhead(messages.at(-1));
    }
    // A tool loop whose first step reads a file so large that the chat is still over the
    // threshold once the pending summary is committed.
    const id = "loop";
    const read = { type: "tool-read", toolCallId: "call-big", state: "output-available", input: { path: "big.rs" }, output: words("big", 650) };
    const done = await convertToModelMessages([{ id, role: "assistant", parts: [{ type: "step-start" }, read] }]);
    const before = calls.length;
    events.length = 0;
    const steps = [{ response: { messages: done } }];
    const first = await prepared.prepareStep({ messages: [...prepared.messages, ...done], steps });
    assert.deepEqual(events, ["pending", "threshold"], `rebuild ${rebuild}: committed, then compacted further`);
    assert.equal(calls.length, before + 1, `rebuild ${rebuild}: one summary`);
    const summary = `Summary ${calls.length}`;
    assert.match(JSON.stringify(first.messages[0]), new RegExp(`${summary}:`));
    assert.notEqual(first.messages[0], prepared.messages[0]);
    // The summary, the pinned task, then the tool loop's own messages.
    const pinnedModels = prepared.messages.filter((m) => m.providerOptions?.contextCompaction?.pinned === true);
    assert.deepEqual(first.messages.slice(1), [...pinnedModels, ...done], `rebuild ${rebuild}`);
    // The next step (ai 5 and 6 rebuild the list; ai 7 keeps what prepareStep returned): no summary again.
    const text = { type: "text", text: words("after", 30), state: "done" };
    const last = await convertToModelMessages([{ id, role: "assistant", parts: [{ type: "step-start" }, text] }]);
    const list = rebuild ? [...prepared.messages, ...done, ...last] : [...first.messages, ...last];
    const second = await prepared.prepareStep({ messages: list, steps: [...steps, { response: { messages: last } }] });
    assert.equal(calls.length, before + 1, `rebuild ${rebuild}: the second step summarized again`);
    assert.deepEqual((second?.messages ?? list).slice(1), [...pinnedModels, ...done, ...last], `rebuild ${rebuild}`);
    // The stored state: the further summary, kept from the loop's first step on.
    const response = { id, role: "assistant", parts: [{ type: "step-start" }, read, { type: "step-start" }, text] };
    const after = prepared.stateAfter(response);
    assert.match(after.summary, new RegExp(`${summary}:`));
    assert.deepEqual([after.firstKeptId, after.firstKeptPart], [id, 0], `rebuild ${rebuild}`);
    chat.free();
  }
});

test("a prepare that commits the pending summary and compacts further: the receipt starts at the chat's first message, counts what both summarized, and the preview shows the further cut", async () => {
  const { route: chat } = route();
  // An early answer pinned (not the first message): the receipt's indices name the posted
  // messages, not those the commit kept.
  const messages = [ask(0), reply(0), ask(1), { ...reply(1), metadata: { pinned: true } }];
  let pending = null;
  let turn = 2;
  // The pending summary of the chat once past the ahead mark (the app stored no state yet).
  for (; pending === null; turn++) {
    messages.push(ask(turn), reply(turn));
    pending = await chat.prepareAhead(messages, null);
  }
  // The chat outruns it: still over the threshold once it is committed.
  for (const end = turn + 7; turn < end; turn++) messages.push(ask(turn), reply(turn));
  messages.push(ask(turn));
  const preview = new ChatPreview(OPTIONS);
  preview.update(messages, null, { pending });
  assert.equal(preview.pending().covers, true);
  const planned = preview.plan();
  const prepared = await chat.prepare(messages, null, { pending });
  assert.deepEqual([prepared.reason, prepared.pending], ["compacted", "committed"]);
  assert.notEqual(prepared.state.summary, pending.summary, "compacted further");
  const { receipt } = prepared.record;
  assert.deepEqual([receipt.firstId, receipt.firstPart], ["u0", 0]);
  const cut = messages.findIndex((m) => m.id === prepared.state.firstKeptId);
  const covered = messages.slice(0, prepared.state.firstKeptPart > 0 ? cut + 1 : cut).filter((m) => m.metadata?.pinned !== true);
  assert.equal(receipt.summarizedMessages, covered.length);
  assert.deepEqual([planned.firstKeptId, planned.firstKeptPart], [prepared.state.firstKeptId, prepared.state.firstKeptPart], "the preview's cut");
  assert.deepEqual(planned.messages.filter((m) => m.fate === "pinned").map((m) => m.id), ["r1"]);
  assert.ok(planned.messages.slice(0, cut).every((m) => m.fate === (m.id === "r1" ? "pinned" : "summarized")));
  preview.free();
  chat.free();
});

test("with clearing, a prepare that commits the pending summary and clears what it left stores the commit's cut: the summarized messages are not sent again", async () => {
  const summarizer = { summarize: async (req) => `Summary: ${req.messages.length} messages.` };
  const chat = new ChatCompaction({ ...OPTIONS, clearing: true, summarizer, convertToModelMessages });
  const short = (turn, output) => ({ id: `r${turn}`, role: "assistant", parts: [{ type: "step-start" }, { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `m${turn}.rs` }, output: words(`f${turn}`, output) }, { type: "step-start" }, { type: "text", text: words(`a${turn}`, 60), state: "done" }] });
  const question = (turn) => ({ id: `u${turn}`, role: "user", parts: [{ type: "text", text: words(`q${turn}`, 60) }] });
  // A pinned answer before the pending summary's cut: kept in front of the messages after it.
  const messages = [question(0), short(0, 20), question(1), { ...short(1, 20), metadata: { pinned: true } }];
  let pending = null;
  let turn = 2;
  for (; pending === null; turn++) {
    messages.push(question(turn), short(turn, 20));
    pending = await chat.prepareAhead(messages, null);
  }
  // Long tool results after it: what the commit leaves is over the threshold, and clearing them is enough.
  for (const end = turn + 3; turn < end; turn++) messages.push(question(turn), short(turn, 200));
  messages.push(question(turn));
  const prepared = await chat.prepare(messages, null, { pending });
  // A compaction: the commit's record (its summary, cut and receipt), and what was cleared after it.
  assert.deepEqual([prepared.compacted, prepared.reason, prepared.pending], [true, "compacted", "committed"]);
  const cutAt = messages.findIndex((m) => m.id === pending.firstKeptId);
  assert.equal(prepared.record.summary, pending.summary);
  assert.deepEqual([prepared.record.firstKeptIndex, prepared.record.receipt.pinned, prepared.record.receipt.digest], [cutAt, [3], pending.digest]);
  assert.deepEqual([prepared.record.receipt.firstId, prepared.record.receipt.firstPart], ["u0", 0]);
  assert.deepEqual([prepared.state.firstKeptId, prepared.state.firstKeptPart], [pending.firstKeptId, pending.firstKeptPart], "the commit's cut, not the pinned answer before it");
  assert.equal(prepared.state.summary, pending.summary);
  // The state lists the results the clearing rewrote (messages after the cut), to clear them again.
  const cleared = prepared.record.receipt.cleared.map((i) => messages[i].id);
  assert.ok(cleared.length > 0 && prepared.record.receipt.cleared.every((i) => i > cutAt));
  assert.deepEqual(prepared.state.cleared.map((e) => e.messageId), cleared);
  assert.ok(prepared.state.cleared.every((e) => e.text.startsWith("[Tool result cleared")));
  // The next turn sends the summary, the pinned answer and what follows the cut: nothing the summary covers.
  messages.push(short(turn, 20), question(turn + 1));
  const next = await chat.prepare(messages, prepared.state);
  const sent = JSON.stringify(next.messages);
  const cut = messages.findIndex((m) => m.id === pending.firstKeptId);
  for (const m of messages.slice(0, cut).filter((m) => m.metadata?.pinned !== true)) {
    assert.ok(!sent.includes(m.parts.find((p) => p.type === "text").text), `${m.id} is summarized: not sent again`);
  }
  assert.ok(sent.includes(messages[3].parts[3].text), "the pinned answer is sent");
  for (const id of cleared) assert.ok(!sent.includes(messages.find((m) => m.id === id).parts[1].output), `${id}'s result is sent cleared`);
  chat.free();
});

test("with clearing, a step that passes the threshold commits the pending summary prepare was given and clears what it kept: no summary call, the cleared results stored", async () => {
  const question = (turn) => ({ id: `u${turn}`, role: "user", parts: [{ type: "text", text: words(`q${turn}`, 60) }] });
  const answer = (turn, output) => ({ id: `r${turn}`, role: "assistant", parts: [{ type: "step-start" }, { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `m${turn}.rs` }, output: words(`f${turn}`, output) }, { type: "step-start" }, { type: "text", text: words(`a${turn}`, 60), state: "done" }] });
  const placeholder = /^\[Tool result cleared/;
  const clearedIds = (sent) => sent.filter((m) => m.role === "tool").flatMap((m) => m.content.filter((p) => placeholder.test(p.output?.value ?? "")).map((p) => p.toolCallId));
  for (const rebuild of [true, false]) {
    const calls = [];
    const events = [];
    const summarizer = { summarize: async (req) => (calls.push(req), `Summary ${calls.length}: ${req.messages.length} messages.`) };
    const onEvent = (event) => event.type === "compactionStart" && events.push(event.reason);
    // The pending summary made at half the threshold, so that longer reads come after its cut.
    const chat = new ChatCompaction({ ...OPTIONS, clearing: true, aheadRatio: 0.5, summarizer, onEvent, convertToModelMessages });
    const messages = [];
    let pending = null;
    let turn = 0;
    for (; pending === null; turn++) {
      messages.push(question(turn), answer(turn, 20));
      pending = await chat.prepareAhead(messages, null);
    }
    // Two turns with longer reads after its cut: the request stays below the threshold.
    for (const end = turn + 2; turn < end; turn++) messages.push(question(turn), answer(turn, 120));
    messages.push(question(turn));
    const prepared = await chat.prepare(messages, null, { pending });
    assert.deepEqual([prepared.compacted, prepared.pending], [false, undefined]);
    // The first step reads a large file: over the threshold, still over once the pending summary
    // is committed, and clearing the older reads it kept is enough.
    const id = "loop";
    const read = { type: "tool-read", toolCallId: "call-big", state: "output-available", input: { path: "big.rs" }, output: words("big", 450) };
    const done = await convertToModelMessages([{ id, role: "assistant", parts: [{ type: "step-start" }, read] }]);
    const steps = [{ response: { messages: done } }];
    events.length = 0;
    const first = await prepared.prepareStep({ messages: [...prepared.messages, ...done], steps });
    assert.equal(calls.length, 1, `rebuild ${rebuild}: only the pending summary was ever made`);
    assert.deepEqual(events, ["pending", "threshold"], `rebuild ${rebuild}: committed, then cleared`);
    assert.ok(JSON.stringify(first.messages[0]).includes(JSON.stringify(pending.summary).slice(1, -1)), "the pending summary is sent first");
    // The reads kept after the cut are sent cleared; the step's own read is not.
    const cleared = clearedIds(first.messages);
    const cut = messages.findIndex((m) => m.id === pending.firstKeptId);
    assert.ok(cleared.length > 0 && !cleared.includes("call-big"), `rebuild ${rebuild}: ${cleared}`);
    assert.ok(cleared.every((toolCallId) => messages.findIndex((m) => m.parts.some((p) => p.toolCallId === toolCallId)) >= cut));
    // The next step (ai 5 and 6 rebuild the list uncleared; ai 7 keeps what prepareStep returned):
    // the same messages, no summary.
    const text = { type: "text", text: words("after", 30), state: "done" };
    const last = await convertToModelMessages([{ id, role: "assistant", parts: [{ type: "step-start" }, text] }]);
    const list = rebuild ? [...prepared.messages, ...done, ...last] : [...first.messages, ...last];
    const second = await prepared.prepareStep({ messages: list, steps: [...steps, { response: { messages: last } }] });
    assert.equal(calls.length, 1, `rebuild ${rebuild}: the second step summarized`);
    assert.deepEqual(second?.messages ?? list, [...first.messages, ...last], `rebuild ${rebuild}`);
    // Stored: the pending summary and its cut, with the results the step cleared.
    const response = { id, role: "assistant", parts: [{ type: "step-start" }, read, { type: "step-start" }, text] };
    const after = prepared.stateAfter(response);
    assert.deepEqual([after.summary, after.firstKeptId, after.firstKeptPart], [pending.summary, pending.firstKeptId, pending.firstKeptPart], `rebuild ${rebuild}`);
    assert.deepEqual(after.cleared.map((e) => [e.messageId, e.toolCallId]), cleared.map((toolCallId) => [`r${toolCallId.slice(5)}`, toolCallId]));
    // The next request sends the summary, then the messages from the cut on with those results
    // cleared: nothing the summary covers, no summary call.
    messages.push(response, question(turn + 1));
    const next = await chat.prepare(messages, after);
    assert.equal(calls.length, 1);
    assert.deepEqual(clearedIds(next.messages), cleared);
    const sent = JSON.stringify(next.messages);
    for (const m of messages.slice(0, cut)) assert.ok(!sent.includes(m.parts.find((p) => p.type === "text").text), `${m.id} is summarized: not sent again`);
    chat.free();
  }
});

test("a pending summary carried onto a request's steps is dropped when the core refuses it; any other error surfaces", async () => {
  const { route: chat } = route();
  const messages = [];
  let pending = null;
  for (let turn = 0; pending === null; turn++) {
    messages.push(ask(turn), reply(turn));
    pending = await chat.prepareAhead(messages, null);
  }
  messages.push(ask(messages.length));
  const rebase = Compactor.prototype.rebase;
  try {
    // Below the threshold: not looked at, and carried onto the steps (rebased onto the model messages).
    let rebased = 0;
    Compactor.prototype.rebase = function (...args) {
      rebased++;
      return rebase.apply(this, args);
    };
    const below = await chat.prepare(messages, null, { pending });
    assert.deepEqual([below.compacted, below.pending, rebased], [false, undefined, 1]);
    // The core's refusal (stale, unreadable): the steps summarize as usual.
    Compactor.prototype.rebase = () => {
      throw new CompactionError("stale", "stale: the draft does not cover the request");
    };
    assert.equal((await chat.prepare(messages, null, { pending })).compacted, false);
    // Anything else is a bug (a trap in the module, a broken glue): not swallowed.
    const bug = new TypeError("not the package's refusal");
    Compactor.prototype.rebase = () => {
      throw bug;
    };
    await assert.rejects(chat.prepare(messages, null, { pending }), (e) => e === bug);
  } finally {
    Compactor.prototype.rebase = rebase;
  }
  chat.free();
});
