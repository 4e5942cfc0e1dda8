// Ahead-of-time compaction through the packed package: `manager.prepareAhead` makes the summary
// the next compaction would make once past the ahead mark; `maintain(state, { pending })`
// commits it at once when the threshold is passed and the state still holds what it covers,
// and discards it otherwise; a failed or aborted background summary changes nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CompactionError, Compactor, ContextManager, estimate } from "context-compaction";
import { call, conversation, result, say, user } from "./helpers.mjs";

const stateOf = (messages, extra = {}) => ({ systemPrompt: "You help.", summary: "", messages, tools: [], ...extra });
const total = (state) => estimate(state).total;
/** Eight turns, past the ahead mark (0.7) of a window it fills to 85%. */
const base = () => stateOf(conversation(8));
const WINDOW = Math.ceil(total(base()) / 0.85);

function setup({ text = "AHEAD", fail = false, window = WINDOW, aheadRatio, clearing, trimOversized } = {}) {
  const asked = [];
  const events = [];
  const compactor = new Compactor({
    keepRecentTokens: 300,
    clearing,
    trimOversized,
    summarizer: {
      summarize: async (req, { signal }) => {
        asked.push(req);
        if (fail) throw new Error("the summary model is down");
        if (signal?.aborted) throw signal.reason;
        return { text };
      },
    },
  });
  const manager = new ContextManager({ compactor, contextWindowTokens: window, reserveTokens: 0, aheadRatio, onEvent: (e) => events.push(e) });
  return { manager, compactor, asked, events };
}

test("below the ahead mark nothing is drafted; above it, the summary the next compaction would make", async () => {
  const below = setup({ window: Math.ceil(total(base()) / 0.6) });
  assert.equal(await below.manager.prepareAhead(base()), null);
  assert.equal(below.asked.length, 0);
  const { manager, compactor, asked, events } = setup();
  const draft = await manager.prepareAhead(base());
  assert.equal(asked.length, 1);
  assert.match(draft.summary, /^AHEAD/);
  assert.match(draft.digest, /^[0-9a-f]{16}$/);
  assert.deepEqual(events, [], "a draft applies nothing and reports no rewrite");
  // The cut maintenance makes once the threshold is passed.
  const plan = compactor.plan({ ...base(), inputTokenBudget: WINDOW, requireReduction: true });
  assert.equal(draft.firstKeptIndex, plan.firstKeptIndex);
});

test("a pending draft is committed when the threshold is passed, with no summary call, as the ordinary path stores it", async () => {
  const { manager, compactor, asked, events } = setup();
  const pending = await manager.prepareAhead(base());
  // Below the threshold it waits (not even looked at).
  const early = await manager.maintain(base(), { pending });
  assert.equal(early.reason, "belowThreshold");
  assert.equal(early.pending, undefined);
  const grown = stateOf(conversation(10));
  assert.ok(total(grown) > WINDOW);
  const done = await manager.maintain(grown, { pending });
  assert.equal(asked.length, 1, "no summary was waited for");
  assert.equal(done.compacted, true);
  assert.equal(done.pending, "committed");
  assert.deepEqual(events.map((e) => `${e.type} ${e.reason}`), ["compactionStart pending", "compactionEnd pending"]);
  // What apply stores at that cut with a summarizer that answers the same text.
  const plan = compactor.plan({ ...base(), inputTokenBudget: WINDOW, requireReduction: true });
  const applied = await setup().compactor.apply({ ...grown, inputTokenBudget: WINDOW }, plan);
  assert.equal(done.state.summary, applied.summary);
  assert.deepEqual(done.state.messages, applied.messages);
  assert.equal(done.state.messages.at(-1), grown.messages.at(-1), "your own objects, every one after the cut");
  assert.deepEqual(done.record, applied.record);
  // Where each message of the new state came from in the state given: every one from the cut on.
  assert.deepEqual(done.origins, from(plan.firstKeptIndex, grown.messages.length));
  assert.equal(early.origins, undefined, "nothing rewritten, no origins");
});

/** `{ index, part: 0 }` for each index of `start..end` (and `before` first). */
const from = (start, end, before = []) => [...before, ...Array.from({ length: end - start }, (_, k) => start + k)].map((index) => ({ index, part: 0 }));

test("a commit whose kept messages are then cleared resolves to a compaction: the commit's record, with what the clearing rewrote", async () => {
  const { manager, asked, events } = setup({ clearing: { protectRecentTokens: 0 } });
  // A pinned answer before the cut: kept in front of the messages after it.
  const pinned = () => stateOf(conversation(8).map((m, i) => (i === 3 ? { ...m, pinned: true } : m)));
  const pending = await manager.prepareAhead(pinned());
  assert.ok(pending.firstKeptIndex > 3);
  // A large read after the cut, then two ordinary turns: what the commit keeps is still over the
  // threshold, and clearing old results is enough.
  const grown = pinned();
  const big = Array.from({ length: WINDOW }, (_, i) => `w${i}`).join(" ");
  grown.messages.push(user("read the big file"), call("big"), result("big", big), say("read it"), ...conversation(10).slice(32), user("and now?"));
  const at = grown.messages.findIndex((m) => m.toolCallId === "big");
  const done = await manager.maintain(grown, { pending });
  assert.equal(asked.length, 1, "no summary call after the draft");
  assert.deepEqual([done.compacted, done.reason, done.pending], [true, "compacted", "committed"]);
  assert.deepEqual(events.map((e) => `${e.type} ${e.reason}`), ["compactionStart pending", "compactionEnd pending", "compactionStart threshold", "compactionEnd threshold"]);
  assert.equal(events.at(-1).record.kind, "clear", "the clearing's own event keeps its record");
  // The commit's record, in the terms of the state given: its summary, cut and receipt.
  const { record } = done;
  assert.equal(record.kind, undefined);
  assert.equal(record.summary, pending.summary);
  assert.deepEqual([record.firstKeptIndex, record.firstKeptPart], [pending.firstKeptIndex, pending.firstKeptPart]);
  assert.equal(record.receipt.digest, pending.digest);
  assert.deepEqual(record.receipt.pinned, [3]);
  assert.equal(record.receipt.summarizedMessages, pending.firstKeptIndex - 1);
  assert.equal(record.estimateBefore, total(grown));
  assert.ok(record.estimateAfter <= WINDOW, "the estimate after both");
  // ...and the messages the clearing rewrote, by their index in the state given.
  assert.ok(record.receipt.cleared.includes(at));
  // Where each message of the new state came from: the pinned answer, then every message from
  // the cut on, the cleared ones too.
  assert.deepEqual(done.origins, from(record.firstKeptIndex, grown.messages.length, [3]));
  const kept = (i) => done.state.messages[done.origins.findIndex((o) => o.index === i)];
  for (const i of record.receipt.cleared) assert.notDeepEqual(kept(i), grown.messages[i], `message ${i} was rewritten`);
  assert.match(kept(at).content[0].text, /^\[Tool result cleared/);
  assert.equal(done.state.summary, pending.summary);
  assert.equal(done.state.messages[0], grown.messages[3]);
});

test("a commit whose kept messages are then trimmed resolves to a compaction: the commit's record, the estimate after both, the trimmed message named", async () => {
  const { manager, asked, events } = setup({ trimOversized: true });
  const pending = await manager.prepareAhead(base());
  // A paste larger than the window after the cut: no summary of what the commit keeps can fit.
  const grown = base();
  const paste = Array.from({ length: 3 * WINDOW }, (_, i) => `p${i}`).join(" ");
  grown.messages.push(user(`here is the log: ${paste}`));
  const at = grown.messages.length - 1;
  const done = await manager.maintain(grown, { pending });
  assert.equal(asked.length, 1, "no summary call after the draft");
  assert.deepEqual([done.compacted, done.reason, done.pending], [true, "compacted", "committed"]);
  assert.deepEqual(events.map((e) => `${e.type} ${e.reason}`), ["compactionStart pending", "compactionEnd pending", "compactionStart threshold", "compactionEnd threshold"]);
  assert.equal(events.at(-1).record.kind, "trim", "the trim's own event keeps its record");
  // The commit's record in the terms of the state given, with the estimate after both and the
  // trimmed message named.
  const { record } = done;
  assert.equal(record.kind, undefined);
  assert.equal(record.summary, pending.summary);
  assert.deepEqual([record.firstKeptIndex, record.receipt.digest], [pending.firstKeptIndex, pending.digest]);
  assert.deepEqual(record.receipt.cleared, [at]);
  assert.equal(record.estimateBefore, total(grown));
  // The estimate after both: the trim's, from what the commit left (its own estimate before).
  const trim = events.at(-1).record;
  assert.equal(record.estimateAfter, trim.estimateAfter);
  assert.ok(trim.estimateAfter < trim.estimateBefore && trim.estimateBefore < record.estimateBefore);
  assert.equal(record.estimateAfter, total(done.state));
  assert.deepEqual(done.origins, from(pending.firstKeptIndex, grown.messages.length));
  assert.match(JSON.stringify(done.state.messages.at(-1)), /trimmed from the middle of this message/);
  assert.equal(grown.messages[at].content, `here is the log: ${paste}`, "yours unchanged");
});

test("edits before the cut, or another summary, discard the pending draft and the ordinary path runs", async () => {
  const { manager, asked, events } = setup({ text: "FRESH" });
  const pending = await manager.prepareAhead(base());
  const edited = stateOf(conversation(10));
  edited.messages[1] = user("an edited message");
  const done = await manager.maintain(edited, { pending });
  assert.equal(done.pending, "discarded");
  assert.equal(done.compacted, true);
  assert.equal(asked.length, 2, "the ordinary path summarized afresh");
  assert.deepEqual(events.map((e) => e.reason), ["threshold", "threshold"]);
  const other = await manager.maintain(stateOf(conversation(10), { summary: "another summary" }), { pending });
  assert.equal(other.pending, "discarded");
  // A message after the cut may change: it is kept, not summarized.
  const later = stateOf(conversation(10));
  later.messages[later.messages.length - 1] = say("changed after the cut, as long as before ".repeat(4));
  assert.equal((await manager.maintain(later, { pending })).pending, "committed");
});

test("a valid pending draft is handed back as it is; a stale one is replaced", async () => {
  const { manager, asked } = setup();
  const pending = await manager.prepareAhead(base());
  const grown = stateOf(conversation(9));
  assert.equal(await manager.prepareAhead(grown, { pending }), pending);
  assert.equal(asked.length, 1);
  grown.messages[0] = user("edited");
  const fresh = await manager.prepareAhead(grown, { pending });
  assert.notEqual(fresh, pending);
  assert.equal(asked.length, 2);
});

test("a failed or aborted background summary changes nothing", async () => {
  const failing = setup({ fail: true });
  const state = base();
  const snapshot = structuredClone(state);
  await assert.rejects(failing.manager.prepareAhead(state), (e) => e instanceof CompactionError && e.code === "summarization");
  assert.deepEqual(state, snapshot);
  assert.deepEqual(failing.events, []);
  const aborted = setup();
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(aborted.manager.prepareAhead(state, { signal: controller.signal }), (e) => e.code === "aborted");
  assert.deepEqual(state, snapshot);
  // The next maintenance runs as if nothing had been tried.
  const done = await aborted.manager.maintain(stateOf(conversation(10)));
  assert.equal(done.compacted, true);
  assert.equal(done.pending, undefined);
});

test("focus reaches the summary; aheadRatio is checked", async () => {
  const { manager, asked } = setup();
  await manager.maintain(stateOf(conversation(10)), { focus: "the files read" });
  await manager.prepareAhead(base(), { focus: "the open bugs" });
  let sent = 0;
  const send = async () => {
    if (sent++ === 0) throw Object.assign(new Error("request too large"), { status: 413 });
    return "answer";
  };
  await manager.run(stateOf(conversation(10)), send, { focus: "the plan" });
  assert.deepEqual(asked.map((req) => req.focus), ["the files read", "the open bugs", "the plan"]);
  for (const aheadRatio of [0, 1.5, -1, Number.NaN]) {
    assert.throws(() => setup({ aheadRatio }), (e) => e.code === "invalid_config" && /aheadRatio/.test(e.message));
  }
  // A lower mark drafts earlier.
  const early = setup({ window: Math.ceil(total(base()) / 0.6), aheadRatio: 0.5 });
  assert.notEqual(await early.manager.prepareAhead(base()), null);
  await assert.rejects(early.manager.maintain(base(), { pending: { summary: 1 } }), (e) => e.code === "invalid_request");
});
