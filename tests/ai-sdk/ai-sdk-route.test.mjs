// The chat route and its preview plan the same UIMessages (with the usage their metadata
// carries) and decide alike; the usage the route records is the last step's. Against `ai` 5, 6
// and 7's own convertToModelMessages and stream parts. Run by scripts/test-js against the
// packed tarball, with CC_AI_SDK naming the folder where the AI SDK majors are installed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { estimate } from "context-compaction";
import { ChatCompaction, ChatPreview, messageMetadata } from "context-compaction/ai-sdk";

const root = process.env.CC_AI_SDK ?? new URL(".", import.meta.url).pathname;
const require = createRequire(`${root}/package.json`);
const sdk = {};
for (const major of [5, 6, 7]) sdk[major] = await import(pathToFileURL(require.resolve(`ai${major}`)).href);

const SYSTEM = "You are a careful assistant.";
const WINDOW = 16_000;
const RESERVE = 4_000;
const BUDGET = WINDOW - RESERVE;
const OPTIONS = { contextWindowTokens: WINDOW, reserveTokens: RESERVE, keepRecentTokens: 3_000, system: SYSTEM };
/** How much more the fake provider counts than our estimate. */
const OVER = 1.25;

const words = (label, n) => Array.from({ length: n }, (_, i) => `${label}${i % 7} word${i}`).join(" ");
/** What the fake provider counts for a prompt: 25% more than our estimate of it. */
const providerCount = (messages) => Math.ceil(OVER * estimate({ format: "ai-sdk", systemPrompt: SYSTEM, messages }).total);

/** A user turn, an answer; every fifth answer a two-step tool loop (a read, then the text). */
function answer(turn) {
  if (turn % 5 !== 4) return [{ type: "step-start" }, { type: "text", text: words(`a${turn}`, 160), state: "done" }];
  return [
    { type: "step-start" },
    { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `src/m${turn}.rs` }, output: words(`f${turn}`, 220) },
    { type: "step-start" },
    { type: "text", text: words(`a${turn}`, 60), state: "done" },
  ];
}

/** Checks that the stored state of `chat` (with a summary) starts where the messages the route
 * sent after the summary do (the pinned ones aside): at a posted message and one of its parts. */
async function startsWhereSent(turn, messages, chat, convert) {
  const { firstKeptId, firstKeptPart } = chat.state;
  const at = messages.findIndex((m) => m.id === firstKeptId);
  assert.ok(at >= 0 && firstKeptPart < messages[at].parts.length, `turn ${turn}: the state starts at ${firstKeptId}, part ${firstKeptPart}`);
  const from = [{ ...messages[at], parts: messages[at].parts.slice(firstKeptPart) }, ...messages.slice(at + 1)];
  const unpinned = from.filter((m) => m.metadata?.pinned !== true).map(({ id, role, parts }) => ({ id, role, parts }));
  const sent = chat.messages.slice(1).filter((m) => m.providerOptions?.contextCompaction?.pinned !== true);
  assert.deepEqual(sent, await convert(unpinned), `turn ${turn}: the state starts where the messages sent do`);
}

/** Checks that the preview's plan `planned` is what the route did (`chat`) at `turn`; counts in
 * `reasons` the pinned messages the plan shows (when given). */
function agrees(turn, messages, planned, chat, reasons) {
  if (reasons && planned?.kind === "summary") {
    const cut = messages.findIndex((m) => m.id === planned.firstKeptId);
    const before = messages.slice(0, cut).filter((m) => m.metadata?.pinned === true).map((m) => m.id);
    assert.deepEqual(planned.messages.filter((m) => m.fate === "pinned").map((m) => m.id), before, `turn ${turn}: the pinned messages before the cut`);
    reasons.shownPinned = (reasons.shownPinned ?? 0) + before.length;
  }
  assert.equal(chat.compacted, planned !== null, `turn ${turn}: route ${chat.reason}, preview planned ${planned?.kind ?? null}`);
  if (planned?.kind === "clear") assert.equal(chat.reason, "cleared", `turn ${turn}`);
  if (planned?.kind === "summary") assert.deepEqual([chat.reason, chat.state.firstKeptId, chat.state.firstKeptPart], ["compacted", planned.firstKeptId, planned.firstKeptPart], `turn ${turn}`);
}

/**
 * 70 turns of a chat through the route (`ai` `major`'s convertToModelMessages) and its preview,
 * the provider counting 25% above our estimate and the route recording it with
 * messageMetadata. Checks every request against the budget and the preview against the route
 * every turn (same options, same stored state); returns how often each reason came (and
 * whether the stored state ever listed cleared results or held a summary: a tool loop may
 * compact between its steps, which the next turn's state carries). With `pinned`, the first
 * question and the fifteenth answer (a tool loop) are pinned, and the preview must show the
 * pinned messages before its cut; with `ahead`, the pending summary `prepareAhead` makes after
 * each response is handed to both, as an app stores it beside the state. Every turn, the
 * stored state names a posted message and one of its parts (where the kept messages start).
 */
async function replay(major, options, answerOf = answer, { pinned = false, ahead = false } = {}) {
  const convertToModelMessages = (ui) => sdk[major].convertToModelMessages(ui);
  const summarizer = { summarize: async () => "Summary: the chat so far." };
  const route = new ChatCompaction({ ...options, summarizer, convertToModelMessages });
  const preview = new ChatPreview(options);
  const messages = [];
  const reasons = {};
  let state = null;
  let pending = null;
  let highest = 0;
  for (let turn = 0; turn < 70; turn++) {
    const question = { id: `u${turn}`, role: "user", parts: [{ type: "text", text: words(`q${turn}`, 90) }] };
    if (pinned && turn === 0) question.metadata = { pinned: true };
    messages.push(question);
    preview.update(messages, state, ahead ? { pending } : undefined);
    const planned = preview.plan();
    const chat = await route.prepare(messages, state, ahead ? { pending } : undefined);
    assert.equal(chat.error, undefined);
    reasons[chat.reason] = (reasons[chat.reason] ?? 0) + 1;
    if (chat.pending === "committed") reasons.committed = (reasons.committed ?? 0) + 1;
    // Committed, then compacted further (still over the threshold): a summary of its own, whose
    // one record covers both: it starts at the first live message not pinned.
    if (chat.pending === "committed" && chat.state.summary !== pending.summary) {
      reasons.further = (reasons.further ?? 0) + 1;
      const from = state === null ? 0 : messages.findIndex((m) => m.id === state.firstKeptId);
      const first = messages.slice(from).find((m) => m.metadata?.pinned !== true);
      const part = first.id === state?.firstKeptId ? state.firstKeptPart : 0;
      assert.deepEqual([chat.record.receipt.firstId, chat.record.receipt.firstPart], [first.id, part], `turn ${turn}: where the summary starts`);
    }
    if (chat.state?.summary && !(chat.state.cleared?.length > 0)) await startsWhereSent(turn, messages, chat, convertToModelMessages);
    // The preview decides as the route: compact or not, clear or summarize, where the kept
    // messages start, and which pinned messages before the cut stay.
    agrees(turn, messages, planned, chat, pinned ? reasons : null);
    // The response's steps, as the provider counts their requests.
    const parts = answerOf(turn);
    const blocks = parts.findLastIndex((part) => part.type === "step-start") > 0 ? 2 : 1;
    let sent = chat.messages;
    let usage;
    for (let step = 0; step < blocks; step++) {
      if (step > 0) {
        const done = await convertToModelMessages([{ id: "r", role: "assistant", parts: parts.slice(0, 2) }]);
        // The SDK hands prepareStep the steps so far, with what the provider counted for each.
        const prepared = await chat.prepareStep({ messages: [...chat.messages, ...done], steps: [{ response: { messages: done }, usage }] });
        sent = prepared?.messages ?? [...chat.messages, ...done];
      }
      const count = providerCount(sent);
      highest = Math.max(highest, count);
      assert.ok(count <= BUDGET, `ai ${major}, turn ${turn}, step ${step}: the provider counted ${count} > ${BUDGET}`);
      // Its answer: the step's parts (the last step's are what the next prompt adds).
      const produced = step === blocks - 1 ? parts.slice(blocks === 1 ? 0 : 2) : parts.slice(0, 2);
      const output = Math.ceil(OVER * estimate({ format: "ai-sdk-ui", messages: [{ id: "r", role: "assistant", parts: produced }] }).total);
      usage = { inputTokens: count, outputTokens: output };
    }
    const response = { id: `a${turn}`, role: "assistant", parts };
    // What messageMetadata records at each step's end: the last step's wins.
    response.metadata = messageMetadata({ part: { type: "finish-step", usage } });
    if (pinned && turn === 14) response.metadata.pinned = true;
    messages.push(response);
    state = JSON.parse(JSON.stringify(chat.stateAfter(response)));
    if (ahead) pending = JSON.parse(JSON.stringify((await chat.prepareAhead(response)) ?? null));
    if (state?.cleared) reasons.stateCleared = Math.max(reasons.stateCleared ?? 0, state.cleared.length);
    if (state?.summary) reasons.stateSummarized = true;
  }
  assert.ok(highest > BUDGET * 0.6, `the prompts came near the budget (${highest})`);
  route.free();
  preview.free();
  return reasons;
}

for (const major of [5, 6, 7]) {
  test(`ai ${major}: 70 turns with usage 25% above our estimate: the route never sends more than the budget, and the preview agrees every turn`, async () => {
    const reasons = await replay(major, OPTIONS);
    assert.ok(reasons.compacted >= 3, JSON.stringify(reasons));
  });
}

test("ai 7: the same with clearing on: the preview agrees with the route turn by turn on the states its tool loops leave (cleared results, summaries), never over the budget", async () => {
  // Every answer reads a large file first: its second step clears or summarizes when due.
  const reads = (turn) => [
    { type: "step-start" },
    { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `src/m${turn}.rs` }, output: words(`f${turn}`, 300) },
    { type: "step-start" },
    { type: "text", text: words(`a${turn}`, 40), state: "done" },
  ];
  const reasons = await replay(7, { ...OPTIONS, clearing: { protectRecentTokens: 1_500 } }, reads);
  assert.ok(reasons.stateCleared > 0 && reasons.stateSummarized, JSON.stringify(reasons));
});

test("ai 7: the same with pinned messages (a question, a tool loop's answer): the preview agrees with the route turn by turn and shows them kept", async () => {
  const reasons = await replay(7, OPTIONS, answer, { pinned: true });
  assert.ok(reasons.compacted >= 3 && reasons.shownPinned > 0, JSON.stringify(reasons));
});

test("ai 7: the same with the pending summary made after each response handed to both: they agree turn by turn, and the route commits it", async () => {
  const reasons = await replay(7, OPTIONS, answer, { ahead: true });
  assert.ok(reasons.committed >= 3, JSON.stringify(reasons));
});

test("ai 7: a pending summary committed and then compacted further (a tool loop read a large file since it was made): the preview shows the further cut turn by turn, with the pinned messages, the stored state starts where the route's kept messages do, and the receipt where the summary does", async () => {
  // Every ninth answer reads a large file: the chat outruns the pending summary made before it.
  const reads = (turn) => (turn % 9 !== 7 ? answer(turn) : [
    { type: "step-start" },
    { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `src/big${turn}.rs` }, output: words(`f${turn}`, 600) },
    { type: "step-start" },
    { type: "text", text: words(`a${turn}`, 60), state: "done" },
  ]);
  const reasons = await replay(7, OPTIONS, reads, { pinned: true, ahead: true });
  assert.ok(reasons.further > 0 && reasons.shownPinned > 0, JSON.stringify(reasons));
});

test("usage read from the messages' metadata moves the trigger: without it the route sends more than the budget", async () => {
  // The same replay with no usage recorded: the estimate alone is 25% low, and some prompt
  // goes over. (What the route did when it planned the converted messages, which drop metadata.)
  let over = 0;
  const summarizer = { summarize: async () => "Summary." };
  const route = new ChatCompaction({ ...OPTIONS, summarizer, convertToModelMessages: (ui) => sdk[7].convertToModelMessages(ui) });
  const messages = [];
  let state = null;
  for (let turn = 0; turn < 70; turn++) {
    messages.push({ id: `u${turn}`, role: "user", parts: [{ type: "text", text: words(`q${turn}`, 90) }] });
    const chat = await route.prepare(messages, state);
    if (providerCount(chat.messages) > BUDGET) over++;
    const response = { id: `a${turn}`, role: "assistant", parts: answer(turn % 5 === 4 ? 0 : turn) };
    messages.push(response);
    state = chat.stateAfter(response);
  }
  assert.ok(over > 0, "some prompt over the budget without usage");
  route.free();
});

for (const major of [5, 6, 7]) {
  test(`ai ${major}: messageMetadata records the last step's usage from the stream's finish-step parts`, async () => {
    const ai = sdk[major];
    const { MockLanguageModelV2, MockLanguageModelV3 } = await import(pathToFileURL(require.resolve(`ai${major}/test`)).href);
    const Mock = major === 5 ? MockLanguageModelV2 : MockLanguageModelV3;
    const usageOf = (input, output) =>
      major === 5
        ? { inputTokens: input, outputTokens: output, totalTokens: input + output }
        : { inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: output, text: output, reasoning: 0 } };
    const finish = (reason, input, output) => ({ type: "finish", finishReason: major === 5 ? reason : { unified: reason, raw: reason }, usage: usageOf(input, output) });
    let step = 0;
    const stream = (chunks) => ({ stream: ai.simulateReadableStream({ chunks }) });
    const model = new Mock({
      doStream: async () =>
        ++step === 1
          ? stream([{ type: "stream-start", warnings: [] }, { type: "tool-call", toolCallId: "c1", toolName: "read", input: "{}" }, finish("tool-calls", 5_000, 40)])
          : stream([{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "done" }, { type: "text-end", id: "t" }, finish("stop", 6_000, 30)]),
    });
    const tools = { read: ai.tool({ description: "read", inputSchema: ai.jsonSchema({ type: "object" }), execute: async () => "file text" }) };
    const result = ai.streamText({ model, tools, prompt: "read it", stopWhen: ai.stepCountIs(2) });
    let responseMessage;
    const response = result.toUIMessageStreamResponse({ messageMetadata, onFinish: (event) => (responseMessage = event.responseMessage) });
    await response.text();
    assert.equal(step, 2);
    // The second request's prompt, not the sum over both steps (11,070).
    assert.deepEqual(responseMessage.metadata, { usage: { inputTokens: 6_000, outputTokens: 30, reasoningTokens: 0 } });
    assert.equal(messageMetadata({ part: { type: "start" } }), undefined);
    assert.equal(messageMetadata(null), undefined);
  });
}

test("a two-step answer's recorded usage gives the next estimate; the documented totalTokens over two steps is not read as one request", () => {
  const ui = [
    { id: "u1", role: "user", parts: [{ type: "text", text: words("q", 200) }] },
    {
      id: "a1",
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-read", toolCallId: "c1", state: "output-available", input: { path: "a" }, output: words("f", 300) },
        { type: "step-start" },
        { type: "text", text: words("a", 100), state: "done" },
      ],
    },
    { id: "u2", role: "user", parts: [{ type: "text", text: words("n", 50) }] },
  ];
  const ours = estimate({ format: "ai-sdk-ui", messages: ui });
  const [, answer, next] = ours.messages;
  // The provider counts 25% more: the last step's request held the user message and step one.
  const lastInput = Math.round(OVER * (ours.messages[0] + answer * 0.8));
  const recorded = messageMetadata({ part: { type: "finish-step", usage: { inputTokens: lastInput, outputTokens: 90 } } });
  ui[1].metadata = recorded;
  const anchored = estimate({ format: "ai-sdk-ui", messages: ui }).total;
  // The report, then the new message at the learned ratio.
  const ratio = (lastInput + 90) / (ours.messages[0] + answer);
  assert.ok(Math.abs(anchored - (lastInput + 90 + ratio * next)) <= 3, `${anchored}`);
  // The AI SDK's documented metadata: the sum over both steps (about twice the request).
  ui[1].metadata = { totalTokens: 2 * lastInput + 120 };
  assert.equal(estimate({ format: "ai-sdk-ui", messages: ui }).total, ours.total, "a total over two steps is not a count of one request");
  // Over one step it is that step's request and answer.
  const single = [ui[0], { id: "a1", role: "assistant", parts: [{ type: "step-start" }, { type: "text", text: words("a", 100) }], metadata: { totalTokens: 900 } }, ui[2]];
  assert.notEqual(estimate({ format: "ai-sdk-ui", messages: single }).total, estimate({ format: "ai-sdk-ui", messages: single.map(({ metadata, ...m }) => m) }).total);
});
