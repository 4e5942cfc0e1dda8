// Clearing old tool results in a chat route (`ChatCompaction`'s `clearing` option). `useChat`
// posts the history uncleared every turn, so the chat state lists what was cleared: per result
// the UIMessage that holds it, its call id and the placeholder that replaced it. Every request
// clears those results again, through the compactor's own rewrite (a clear plan applied as
// given), so the model is sent the same bytes each turn: the provider's prompt cache holds and
// the estimate does not jump back up. Model messages are read here through guards: a custom
// `convertToModelMessages` may hand back anything.
import { CompactionError } from "../lib/error.js";
import { guardedOr, list, record } from "../host/host.js";

const bad = (message, cause) => new CompactionError("invalid_request", `invalid request: ${message}`, cause === undefined ? undefined : { cause });

/** What `copy` returns; a `Fault` it throws (a caller's getter or Proxy) as a CompactionError. */
function copied(copy) {
  try {
    return copy();
  } catch (fault) {
    throw bad(fault.message, fault.cause);
  }
}

/**
 * `state.cleared`, checked (it comes from the application's store): `[]` when absent, else
 * `{ messageId, toolCallId, part?, text, arguments? }` entries (`part`: where the result's step
 * starts in the message, left out for the first step). (Inside one
 * request an entry's `messageId` may be null: a result of the request's own step `step`, whose
 * UIMessage id comes with the response; `stateAfter` names it or leaves it out.)
 */
export function checkCleared(value) {
  if (value === undefined || value === null) return [];
  const entries = copied(() => list(value, "state.cleared"));
  if (entries === null) throw bad("state.cleared must be an array of { messageId, toolCallId, text } as prepare returned it");
  return entries.map((item, index) => {
    const entry = copied(() => record(item, `state.cleared[${index}]`));
    const ok =
      entry !== null &&
      typeof entry === "object" &&
      typeof entry.messageId === "string" &&
      typeof entry.toolCallId === "string" &&
      typeof entry.text === "string" &&
      (entry.part === undefined || (Number.isInteger(entry.part) && entry.part >= 0)) &&
      (entry.arguments === undefined || typeof entry.arguments === "boolean");
    if (!ok) throw bad(`state.cleared[${index}] must be { messageId, toolCallId, part?, text, arguments? } as prepare returned it`);
    const { messageId, toolCallId, part, text } = entry;
    return { messageId, toolCallId, ...(part === undefined ? {} : { part }), text, ...(entry.arguments ? { arguments: true } : {}) };
  });
}

/** The parts of a model message of `role` (an empty list for anything else). */
function partsOf(message, role) {
  return guardedOr(() => (message.role === role && Array.isArray(message.content) ? [...message.content] : []), []);
}

const field = (part, key) => guardedOr(() => part?.[key], undefined);
const isPart = (part, type) => field(part, "type") === type && typeof field(part, "toolCallId") === "string";

/** The text a cleared tool-result part carries (an output's `value`; a pre-v5 `result`). */
function clearedText(part) {
  const value = guardedOr(() => part.output?.value, undefined);
  if (typeof value === "string") return value;
  const result = field(part, "result");
  return typeof result === "string" ? result : null;
}

const json = (value) => guardedOr(() => JSON.stringify(value), null);

/**
 * The entry for result `id` in a model message from `origin`: the step of a posted UIMessage
 * (`{ id, part }`) or of this request (`{ id: null, step }`). Ids name a result only with its
 * step (a model that numbers its calls per response sends `call_0` in every step); a message
 * of unknown origin (a copy the SDK made) takes any entry with the id.
 */
function entryFor(entries, id, origin) {
  if (origin === undefined) return entries.find((e) => e.toolCallId === id);
  const same = (e) => (origin.id === null ? e.step === undefined || origin.step === undefined || e.step === origin.step : (e.part ?? 0) === origin.part);
  return entries.find((e) => e.toolCallId === id && e.messageId === origin.id && same(e));
}

/** Where an entry made from a model message of `origin` points (see `entryFor`). */
const placeOf = (origin) => (origin === undefined ? {} : origin.id === null ? (origin.step === undefined ? {} : { step: origin.step }) : origin.part > 0 ? { part: origin.part } : {});

/**
 * The model messages with the stored clearing applied again: resolves to `{ messages, entries }`,
 * new objects for the messages rewritten (their origins mapped too), and the entries whose
 * results are in `messages` (the others are gone: summarized or edited away). A result that
 * already carries its placeholder (the SDK kept what prepareStep returned) is left as it is.
 */
export async function reapply(compactor, request, entries, origins) {
  const { messages } = request;
  if (entries.length === 0) return { messages, entries };
  const results = [];
  const present = new Set();
  messages.forEach((message, index) => {
    for (const part of partsOf(message, "tool")) {
      if (!isPart(part, "tool-result")) continue;
      const entry = entryFor(entries, field(part, "toolCallId"), origins.get(message));
      if (!entry) continue;
      present.add(entry);
      if (clearedText(part) !== entry.text) results.push({ index, toolCallId: entry.toolCallId, text: entry.text });
    }
  });
  // The calls whose arguments went: each by its own step's entry (an id alone may name a call
  // of every step).
  const argumentMessages = [];
  messages.forEach((message, index) => {
    const calls = partsOf(message, "assistant").filter((part) => isPart(part, "tool-call"));
    const cleared = (part) => entryFor(entries, field(part, "toolCallId"), origins.get(message))?.arguments === true;
    if (calls.some((part) => cleared(part) && json(field(part, "input")) !== "{}")) argumentMessages.push(index);
  });
  const kept = entries.filter((entry) => present.has(entry));
  if (results.length === 0 && argumentMessages.length === 0) return { messages, entries: kept };
  // A clear plan is applied as given (no estimate over a trigger, no summarizer): the same
  // rewrite the first clearing made, so the same bytes.
  const plan = { kind: "clear", clearedResults: results, argumentMessages };
  const applied = await compactor.apply({ ...request, format: "ai-sdk" }, plan);
  mapOrigins(messages, applied.messages, origins);
  return { messages: applied.messages, entries: kept };
}

/** The new objects of `after` (a rewrite of `before`, index for index) come from where theirs did. */
export function mapOrigins(before, after, origins) {
  after.forEach((message, index) => {
    const origin = origins.get(before[index]);
    if (message !== before[index] && origin) origins.set(message, origin);
  });
}

/**
 * What a clearing of `before` into `after` cleared, as entries: the tool results whose output
 * changed in the rewritten messages (new objects), with the id of the UIMessage each came from
 * (`null` when it came from this request's steps) and whether its call's arguments went too.
 */
export function newlyCleared(before, after, origins) {
  const entries = [];
  // The ids of the calls whose arguments went, of the latest assistant message: its results
  // follow it (an id alone may name a call of every step).
  let argumentIds = new Set();
  after.forEach((message, index) => {
    const old = before[index];
    if (guardedOr(() => message.role === "assistant", false)) argumentIds = new Set();
    if (message === old) return;
    const oldParts = (role) => new Map(partsOf(old, role).map((part) => [field(part, "toolCallId"), part]));
    const calls = oldParts("assistant");
    for (const part of partsOf(message, "assistant")) {
      const id = field(part, "toolCallId");
      if (isPart(part, "tool-call") && calls.has(id) && json(field(part, "input")) !== json(field(calls.get(id), "input"))) argumentIds.add(id);
    }
    const results = oldParts("tool");
    for (const part of partsOf(message, "tool")) {
      const id = field(part, "toolCallId");
      if (!isPart(part, "tool-result") || !results.has(id)) continue;
      const was = results.get(id);
      const text = clearedText(part);
      if (text === null || (json(field(part, "output")) === json(field(was, "output")) && json(field(part, "result")) === json(field(was, "result")))) continue;
      const origin = origins.get(old);
      entries.push({ messageId: origin?.id ?? null, toolCallId: id, ...placeOf(origin), text, ...(argumentIds.has(id) ? { arguments: true } : {}) });
    }
  });
  return entries;
}

/** The entries whose results are among `messages` (after a summary: those it kept). */
export function presentIn(entries, messages, origins) {
  if (entries.length === 0) return entries;
  const present = new Set();
  for (const message of messages) {
    for (const part of partsOf(message, "tool")) {
      const entry = isPart(part, "tool-result") && entryFor(entries, field(part, "toolCallId"), origins.get(message));
      if (entry) present.add(entry);
    }
  }
  return entries.filter((entry) => present.has(entry));
}
