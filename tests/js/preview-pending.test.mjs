// A pending summary in `ChatPreview` (a draft made ahead of time, stored by the app beside the
// chat state): its text, and whether it still covers the messages, as `compactor.covers` (on
// the plan-only module too) and `commit` decide. Through the packed package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Compactor, CompactionError } from "context-compaction";
import { Compactor as PlanCompactor } from "context-compaction/plan";
import { ChatPreview } from "context-compaction/ai-sdk-preview";
import { ChatPreview as WholeChatPreview } from "context-compaction/ai-sdk";

const words = (label, n) => Array.from({ length: n }, (_, i) => `${label}${i % 7} word${i}`).join(" ");

/** A user turn and a three-step answer (two reads, then text), as `useChat` holds them. */
function turn(i) {
  return [
    { id: `u${i}`, role: "user", parts: [{ type: "text", text: words(`q${i}`, 80) }] },
    {
      id: `a${i}`,
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-read", toolCallId: `r${i}a`, state: "output-available", input: { path: `a${i}.rs` }, output: words(`f${i}`, 300) },
        { type: "step-start" },
        { type: "tool-read", toolCallId: `r${i}b`, state: "output-available", input: { path: `b${i}.rs` }, output: words(`g${i}`, 300) },
        { type: "step-start" },
        { type: "text", text: words(`a${i}`, 120), state: "done" },
      ],
    },
  ];
}
const chat = (turns) => Array.from({ length: turns }, (_, i) => turn(i)).flat();

const OPTIONS = { contextWindowTokens: 200_000, keepRecentTokens: 1_500 };
const summarizer = { summarize: async () => "Summary: made ahead of time." };

/** A pending draft of `messages` under `summary`, as a route would make it after a turn. */
async function pendingOf(messages, summary = null, keep = OPTIONS.keepRecentTokens) {
  const compactor = new Compactor({ keepRecentTokens: keep, summarizer });
  const request = { format: "ai-sdk-ui", messages, summary, requireReduction: true };
  const draft = await compactor.draft(request, compactor.plan(request));
  compactor.free();
  return draft;
}

/** Whether the route's commit takes `pending` for `messages` (`stale`: no). */
function commits(messages, summary, pending) {
  const compactor = new Compactor({ summarizer });
  try {
    compactor.commit({ format: "ai-sdk-ui", messages, summary }, pending);
    return true;
  } catch (error) {
    if (error.code === "stale") return false;
    throw error;
  } finally {
    compactor.free();
  }
}

test("a pending draft is shown with its text and covers the messages it was made for, and the ones that grew after", async () => {
  const messages = chat(6);
  const pending = await pendingOf(messages);
  assert.equal(pending.firstKeptId, messages[pending.firstKeptIndex].id);
  const preview = new ChatPreview(OPTIONS);
  preview.update(messages);
  assert.equal(preview.pending(), null, "no pending without one");
  preview.update(messages, null, { pending });
  assert.deepEqual(preview.pending(), { summary: pending.summary, firstKeptId: pending.firstKeptId, firstKeptPart: pending.firstKeptPart, covers: true });
  const grown = [...messages, ...turn(6)];
  preview.update(grown, null, { pending });
  assert.equal(preview.pending().covers, true);
  assert.equal(commits(grown, null, pending), true);
  preview.update(grown, null, {});
  assert.equal(preview.pending(), null, "an update without it drops it");
  preview.free();
});

test("a pending draft's usage (the record's, at commit) is not read: ChatPreview plans as without it", async () => {
  const messages = chat(6);
  const pending = await pendingOf(messages);
  // A window the chat is over: the plan commits the draft and plans what is left.
  const options = { ...OPTIONS, contextWindowTokens: 22_000, reserveTokens: 0 };
  for (const Preview of [ChatPreview, WholeChatPreview]) {
    const preview = new Preview(options);
    preview.update(messages, null, { pending });
    const plan = preview.plan();
    assert.notEqual(plan, null);
    preview.update(messages, null, { pending: { ...pending, usage: { input: -1 } } });
    assert.equal(preview.pending().covers, true);
    assert.deepEqual(preview.plan(), plan);
    preview.free();
  }
});

test("a pending draft no longer covers an edited history, another summary, or a history without its cut", async () => {
  const messages = chat(6);
  const pending = await pendingOf(messages);
  const preview = new ChatPreview(OPTIONS);
  const covers = (list, state = null) => {
    preview.update(list, state, { pending });
    const shown = preview.pending().covers;
    assert.equal(shown, commits(list, state?.summary ?? null, pending), "as commit decides");
    return shown;
  };
  assert.equal(covers(messages), true);
  const edited = messages.slice();
  edited[1] = { ...edited[1], parts: [{ type: "step-start" }, { type: "text", text: "regenerated", state: "done" }] };
  assert.equal(covers(edited), false, "a message it summarizes changed");
  const later = [...messages, ...turn(6)];
  later[later.length - 1] = { ...later.at(-1), parts: [{ type: "text", text: "kept, edited", state: "done" }] };
  assert.equal(covers(later), true, "a kept message may change");
  // The route compacted meanwhile: the state's summary is not the one the draft replaces.
  const state = { summary: "another summary", firstKeptId: messages[2].id, firstKeptPart: 0, record: null };
  assert.equal(covers(messages, state), false);
  // Its first kept message is gone (a regenerated answer has a new id).
  const gone = messages.slice(0, pending.firstKeptIndex);
  preview.update(gone, null, { pending });
  assert.equal(preview.pending().covers, false);
  preview.free();
});

test("a pending draft that cuts inside a message: located by its part, stale when that message's steps changed", async () => {
  const messages = chat(2);
  // Keep less than the last answer: the cut falls between its steps.
  const pending = await pendingOf(messages, "old summary", 300);
  assert.ok(pending.firstKeptPart > 0, "a split turn");
  const preview = new WholeChatPreview(OPTIONS);
  preview.update(messages, null, { pending });
  assert.equal(preview.pending().covers, false, "the state has no summary: not the one it replaces");
  const state = { summary: "old summary", firstKeptId: messages[0].id, firstKeptPart: 0, record: null };
  preview.update(messages, state, { pending });
  assert.equal(preview.pending().covers, true);
  // The message it cuts inside lost the steps before the cut.
  const at = pending.firstKeptIndex;
  const shorter = messages.slice();
  shorter[at] = { ...shorter[at], parts: shorter[at].parts.slice(0, 2) };
  preview.update(shorter, state, { pending });
  assert.equal(preview.pending().covers, false);
  const compactor = new Compactor({ summarizer });
  assert.throws(() => compactor.commit({ format: "ai-sdk-ui", messages: shorter, summary: "old summary" }, pending), (e) => e instanceof CompactionError && e.code === "stale" && /no step at part/.test(e.message));
  compactor.free();
  preview.free();
});

test("a pending draft's part is the posted message's: under a state that keeps a message from a later step", async () => {
  const messages = chat(2);
  const last = messages.at(-1);
  // The route sends the last answer from its second step on (the state's cut) and drafts that.
  const state = { summary: "old summary", firstKeptId: last.id, firstKeptPart: 2, record: null };
  const sent = [{ id: last.id, role: "assistant", parts: last.parts.slice(2) }];
  const draft = await pendingOf(sent, "old summary", 300);
  assert.equal(draft.firstKeptIndex, 0);
  assert.ok(draft.firstKeptPart > 0, "a cut inside it");
  const preview = new ChatPreview(OPTIONS);
  const pending = { ...draft, firstKeptPart: draft.firstKeptPart + 2 };
  preview.update(messages, state, { pending });
  assert.deepEqual(preview.pending(), { summary: draft.summary, firstKeptId: last.id, firstKeptPart: draft.firstKeptPart + 2, covers: true });
  preview.update(messages, state, { pending: draft });
  assert.equal(preview.pending().covers, false, "the part in the sent message's terms is another cut");
  preview.free();
});

test("covers on the plan-only module answers as the whole one; bad drafts are named", async () => {
  const messages = chat(4);
  const pending = await pendingOf(messages);
  const plan = new PlanCompactor({});
  const whole = new Compactor({ summarizer });
  const request = { format: "ai-sdk-ui", messages, summary: null };
  assert.equal(plan.covers(request, pending), true);
  assert.equal(whole.covers(request, pending), true);
  assert.equal(plan.digest(request, pending), pending.digest);
  const changed = messages.slice();
  changed[0] = { ...changed[0], parts: [{ type: "text", text: "changed" }] };
  assert.equal(plan.covers({ ...request, messages: changed }, pending), false);
  assert.equal(whole.covers({ ...request, messages: changed }, pending), false);
  assert.throws(() => plan.covers(request, { ...pending, previousDigest: 7 }), (e) => e.code === "invalid_request" && /draft\.previousDigest/.test(e.message));
  const preview = new ChatPreview(OPTIONS);
  for (const bad of ["text", { ...pending, digest: "nope" }, { ...pending, previousDigest: undefined }, { ...pending, summary: 1 }]) {
    assert.throws(() => preview.update(messages, null, { pending: bad }), (e) => e instanceof CompactionError && e.code === "invalid_request" && /options\.pending/.test(e.message));
  }
  const hostile = new Proxy({}, { ownKeys: () => { throw new Error("trap"); } });
  assert.throws(() => preview.update(messages, null, { pending: hostile }), (e) => e instanceof CompactionError && e.code === "invalid_request" && /trap/.test(e.message));
  // A pending summary whose cut cannot be found covers nothing; pending() does not throw.
  preview.update(messages, null, { pending: { ...pending, firstKeptId: null, usage: "garbage" } });
  assert.equal(preview.pending().covers, false);
  preview.free();
  plan.free();
  whole.free();
});
