// What a chat route and its preview plan: one reading of the options both take, and one
// function (`chatInput`) that turns the posted UIMessages and the stored state into the
// UIMessages as the model will be sent them (from the state's first kept part on, with the
// results the state lists as cleared cleared again). Both plan those UIMessages with format
// "ai-sdk-ui", so both read the usage the messages' `metadata` carries and decide alike.
import { CompactionError } from "../lib/error.js";
import { checkState, liveMessages } from "./ui.js";
import { guarded, guardedOr, record } from "../host/host.js";

const DEFAULT_RESERVE = 16_384;
/** The options route and preview both read (the route reads a few more: `CHAT_ONLY_KEYS`). */
const SHARED_KEYS = ["contextWindowTokens", "reserveTokens", "maxOutputTokens", "keepRecentTokens", "triggerRatio", "system", "estimator", "clearing", "trimOversized"];
export const CHAT_ONLY_KEYS = ["summarizer", "onEvent", "convertToModelMessages", "aheadRatio"];

const invalid = (message, cause) => new CompactionError("invalid_config", `invalid config: ${message}`, cause === undefined ? undefined : { cause });

/**
 * `options` of `who` (`ChatCompaction` or `ChatPreview`), read once and checked alike: the
 * window a whole number > 0, the reserve and the output limit whole numbers ≥ 0 when given.
 * Adds `budget`, the input budget maintenance plans against (the window less the larger of
 * the reserve and the output limit, as a `ContextManager` works it out).
 */
export function readChatOptions(options, who, extra = []) {
  if (options === null || typeof options !== "object") throw invalid(`${who} needs an options object with contextWindowTokens`);
  const read = {};
  for (const key of [...SHARED_KEYS, ...extra]) {
    try {
      read[key] = guarded(`options.${key}`, () => options[key]);
    } catch (fault) {
      throw invalid(`${who} ${fault.message}`, fault.cause);
    }
  }
  const window = read.contextWindowTokens;
  if (!(whole(window) && window > 0)) throw invalid(`${who}: options.contextWindowTokens must be a whole number > 0, got ${shown(window)}`);
  for (const key of ["reserveTokens", "maxOutputTokens", "keepRecentTokens"]) {
    const value = read[key];
    if (value !== undefined && value !== null && !whole(value)) throw invalid(`${who}: options.${key} must be a whole number ≥ 0, got ${shown(value)}`);
  }
  read.budget = Math.max(0, window - Math.max(read.reserveTokens ?? DEFAULT_RESERVE, read.maxOutputTokens ?? 0));
  return read;
}

const whole = (value) => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
const shown = (value) => (typeof value === "number" ? String(value) : typeof value);

/** The `Compactor` config both build from their options (`clearing` off when absent). */
export function compactorConfig(read, summarizer) {
  const { keepRecentTokens, triggerRatio, clearing, trimOversized } = read;
  return { keepRecentTokens, triggerRatio, summarizer, trimOversized, ...(clearing === undefined ? {} : { clearing }) };
}

/** The check of stored cleared entries (`chatInput`'s `clearable`) for a compactor and options. */
export function clearableOf(compactor, read) {
  const estimator = read.estimator ?? undefined;
  // The budget: the default protected output is a share of it, as when the route cleared.
  const inputTokenBudget = read.budget;
  return (messages, summary) => compactor.clearableResults({ format: "ai-sdk-ui", messages, systemPrompt: read.system ?? null, summary, inputTokenBudget, ...(estimator ? { estimator } : {}) });
}

/**
 * The chat to plan: `{ state, live, messages, offsets }`. `state` is the stored state when it
 * still applies (null when its first kept message is gone: edited or regenerated history),
 * `live` the posted UIMessages it leaves live (`{ message, from }`, see `liveMessages`),
 * `messages` those UIMessages as sent (trimmed to their first live part, the state's cleared
 * results cleared), and `offsets` maps each of them to the part of the posted message it
 * starts at. `memo` (a `ChatMemo`) keeps the copies made for a message while it stays the
 * same, so that a preview's conversation only appends what is new. `clearable(messages,
 * summary)` is the compactor's `clearableResults` of the UIMessages uncleared: the stored
 * entries are checked against it (see `checkEntries`).
 */
export function chatInput(messages, state, { memo = new ChatMemo(), clearable } = {}) {
  let valid = checkState(state);
  let live = liveMessages(messages, valid);
  if (live === null) [valid, live] = [null, liveMessages(messages, null)];
  if (valid?.cleared && clearable) valid = checkEntries(valid, live, memo, clearable);
  const cleared = entriesByMessage(valid?.cleared);
  const offsets = new Map();
  const sent = live.map(({ message, from }) => {
    const entries = cleared.get(message.id);
    const copy = entries ? memo.cleared(message, from, entries) : from === 0 ? message.source : memo.trimmed(message, from);
    offsets.set(copy, { id: message.id, from, length: message.parts.length - from });
    return copy;
  });
  return { state: valid, live, messages: sent, offsets };
}

/**
 * `state` with only the cleared entries a clearing of these messages may have made: a stored
 * list (a corrupt or foreign state, or one of another configuration) never replaces a result
 * the route protects (the newest output, the kept suffix, calls in flight, `neverClear` tools,
 * a provider's results). The compactor decides which those are, on the messages as posted.
 */
function checkEntries(state, live, memo, clearable) {
  const uncleared = live.map(({ message, from }) => (from === 0 ? message.source : memo.trimmed(message, from)));
  const allowed = new Set(clearable(uncleared, state.summary).map((r) => `${live[r.index]?.message.id}\u0000${r.toolCallId}`));
  const kept = state.cleared.filter((entry) => allowed.has(`${entry.messageId}\u0000${entry.toolCallId}`));
  if (kept.length === state.cleared.length) return state;
  const { cleared: _, ...rest } = state;
  return kept.length > 0 ? { ...rest, cleared: kept } : rest;
}

/**
 * `record` (a summary's) with where its summary starts in the posted UIMessages, so that an app
 * can name what was summarized without the state listing every id: `receipt.firstId` and
 * `receipt.firstPart`, the first message (and part) it covers; it covers everything from there
 * up to the state's `firstKeptId` and `firstKeptPart`. `messages` are the ones the compaction
 * was given, `originOf(message)` the `{ id, part }` one came from (or nothing when not known:
 * the record is returned as it is, as for a clearing, which summarized nothing).
 */
export function withFirstSummarized(record, messages, originOf) {
  const receipt = record?.receipt;
  if (!receipt || receipt.summarizedMessages === 0) return record;
  const pinned = new Set(receipt.pinned);
  const at = messages.findIndex((message, index) => index <= record.firstKeptIndex && !pinned.has(index) && guardedOr(() => message.role !== "system", false));
  const origin = at < 0 ? undefined : originOf(messages[at]);
  if (!origin || typeof origin.id !== "string") return record;
  return { ...record, receipt: { ...receipt, firstId: origin.id, firstPart: origin.part ?? 0 } };
}

/**
 * Where a pending draft cuts the live UIMessages `live` (as `chatInput` gives them), in the terms
 * of the messages as sent: `{ firstKeptIndex, firstKeptPart }`. The draft is located by its
 * `firstKeptId` and `firstKeptPart` (a part of the posted message, as the state's); a cut that
 * cannot be (its first kept message is gone, or the live messages start after its cut) is placed
 * past their end, where the core finds that the draft covers nothing (`covers` false, `stale`).
 */
export function pendingCut(live, pending) {
  const { firstKeptId: id, firstKeptPart: part } = pending;
  const at = typeof id === "string" && Number.isSafeInteger(part) && part >= 0 ? live.findIndex(({ message }) => message.id === id) : -1;
  if (at < 0 || part < live[at].from) return { firstKeptIndex: live.length + 1, firstKeptPart: 0 };
  return { firstKeptIndex: at, firstKeptPart: part - live[at].from };
}

/** The copies `chatInput` makes, one per posted message while it stays the same. */
export class ChatMemo {
  #trimmed = new WeakMap();
  #cleared = new WeakMap();

  /** The posted message from part `from` on (its `metadata` left out: it counted all of it). */
  trimmed(message, from) {
    const known = this.#trimmed.get(message.source);
    if (known && known.from === from && known.length === message.parts.length) return known.copy;
    const copy = { id: message.id, role: message.role, parts: message.parts.slice(from) };
    this.#trimmed.set(message.source, { from, length: message.parts.length, copy });
    return copy;
  }

  /**
   * The posted message from part `from` on with `entries` cleared (its `metadata` left out: it
   * counted the results uncleared; later answers count them cleared).
   */
  cleared(message, from, entries) {
    const key = JSON.stringify(entries);
    const known = this.#cleared.get(message.source);
    if (known && known.from === from && known.length === message.parts.length && known.key === key) return known.copy;
    const steps = stepStarts(message.parts);
    const copy = { id: message.id, role: message.role, parts: message.parts.slice(from).map((part, i) => clearPart(part, entries, steps[from + i])) };
    this.#cleared.set(message.source, { from, length: message.parts.length, key, copy });
    return copy;
  }
}

/** The state's cleared results by UIMessage id. */
function entriesByMessage(list) {
  const by = new Map();
  for (const entry of list ?? []) by.set(entry.messageId, [...(by.get(entry.messageId) ?? []), entry]);
  return by;
}

/**
 * For each of `parts` (a UIMessage's parts from part `from` on), the part its step starts at in
 * the message (0, or a `step-start` part): with a model that numbers its calls per response
 * (`call_0` in every step), a call id names a tool part only together with its step.
 */
export function stepStarts(parts, from = 0) {
  let start = from;
  return parts.map((part, i) => {
    if (from + i > 0 && guardedOr(() => part?.type === "step-start", false)) start = from + i;
    return start;
  });
}

/** Whether cleared entry `entry` names the result `id` of the step starting at part `step` (`part` is left out for the first step). */
export const names = (entry, id, step) => entry.toolCallId === id && (entry.part ?? 0) === step;

/**
 * A tool part of a UIMessage, in the step starting at part `step`, cleared as the compactor
 * clears it (its output, or its error text, the placeholder; its input `{}` when the arguments
 * went too). Results a provider ran (`providerExecuted`) are never cleared: their shape is the
 * provider's.
 */
export function clearPart(part, entries, step) {
  const id = guardedOr(() => part?.toolCallId, undefined);
  const entry = typeof id === "string" && entries.find((e) => names(e, id, step));
  if (!entry || guardedOr(() => part.providerExecuted === true, true)) return part;
  const copy = guardedOr(() => record(part, "part"), null);
  // A part that throws when read is left as it is: planning names it.
  if (copy === null) return part;
  copy[copy.state === "output-error" ? "errorText" : "output"] = entry.text;
  if (entry.arguments) copy.input = {};
  return copy;
}

/**
 * The results a clearing of UIMessages `before` into `after` (index for index, part for part)
 * cleared, as the state's entries: per tool part whose output or error text changed, its
 * message's id, its call's id, the part its step starts at (`offsets` gives where each sent
 * message starts in the posted one), the new text, and whether its input went too.
 */
export function clearedBetween(before, after, offsets) {
  const entries = [];
  after.forEach((message, index) => {
    const old = before[index];
    if (message === old) return;
    const oldParts = partsOf(old);
    const steps = stepStarts(oldParts, offsets?.get(old)?.from ?? 0);
    partsOf(message).forEach((part, i) => {
      const id = field(part, "toolCallId");
      const was = oldParts[i];
      if (typeof id !== "string" || was === undefined || field(was, "toolCallId") !== id) return;
      const key = field(part, "state") === "output-error" ? "errorText" : "output";
      const text = field(part, key);
      if (typeof text !== "string" || text === field(was, key)) return;
      const entry = { messageId: field(message, "id"), toolCallId: id, ...atPart(steps[i]), text };
      if (json(field(part, "input")) !== json(field(was, "input"))) entry.arguments = true;
      entries.push(entry);
    });
  });
  return entries;
}

/** The entries whose results are among UIMessages `messages` (after a summary: those it kept). */
export function presentIn(entries, messages) {
  if (entries.length === 0) return entries;
  const held = new Set();
  for (const message of messages) {
    const id = field(message, "id");
    for (const part of partsOf(message)) held.add(`${id}\u0000${field(part, "toolCallId")}`);
  }
  return entries.filter((entry) => held.has(`${entry.messageId}\u0000${entry.toolCallId}`));
}

/** An entry's `part`: left out for the first step (a state that never saw a later step keeps its shape). */
export const atPart = (part) => (part > 0 ? { part } : {});

const field = (value, key) => guardedOr(() => value?.[key], undefined);
const partsOf = (message) => guardedOr(() => (Array.isArray(message?.parts) ? [...message.parts] : []), []);
const json = (value) => guardedOr(() => JSON.stringify(value), null);
