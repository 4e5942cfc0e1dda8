// UIMessages (what `useChat` holds and posts) as the model messages the route sends, with where
// each model message came from: the UIMessage's id and the part its step block starts at. An
// assistant UIMessage holds a whole tool loop, one block per step (`step-start` parts);
// `convertToModelMessages` turns each block into an assistant message and its tool results, so
// converting block by block gives the same messages and lets a cut map back to (id, part).
import { CompactionError } from "../lib/error.js";
import { checkCleared } from "./clearing.js";
import { describe, guardedOr, list, record } from "../host/host.js";

const bad = (message, cause) => new CompactionError("invalid_request", `invalid request: ${message}`, cause === undefined ? undefined : { cause });

/** `{ id, role, parts, pinned }` of a UIMessage, read once (its getters may throw). */
export function readUiMessage(message, path) {
  try {
    if (message === null || typeof message !== "object") throw bad(`${path} must be a UIMessage object`);
    const { id, role, parts } = message;
    if (typeof id !== "string") throw bad(`${path}.id must be a string (useChat gives every message one)`);
    if (!Array.isArray(parts)) throw bad(`${path}.parts must be an array`);
    return { id, role, parts: [...parts], source: message, pinned: pinnedMark(message) };
  } catch (error) {
    if (error instanceof CompactionError) throw error;
    throw bad(`${path}: reading it threw: ${describe(error)}`, error);
  }
}

/**
 * Whether a UIMessage carries the pin marker, `metadata.pinned === true` (own properties, as
 * the compactor's reader sees the message): never cut, so kept before the state's first kept
 * message as system messages are.
 */
function pinnedMark(message) {
  const metadata = Object.hasOwn(message, "metadata") ? message.metadata : undefined;
  return metadata !== null && typeof metadata === "object" && Object.hasOwn(metadata, "pinned") && metadata.pinned === true;
}

/** `providerOptions` of a model message with the package's pin marker added (a copy). */
export function withPinMark(model) {
  const options = guardedOr(() => record(model.providerOptions, "providerOptions"), null) ?? {};
  const own = guardedOr(() => record(options.contextCompaction, "contextCompaction"), null) ?? {};
  return { ...model, providerOptions: { ...options, contextCompaction: { ...own, pinned: true } } };
}

/** Whether a model message carries the pin marker (`providerOptions.contextCompaction.pinned`). */
export const isPinnedModel = (model) => guardedOr(() => model.providerOptions.contextCompaction.pinned === true, false);

/** Where the step blocks of `parts` start: 0 and every `step-start` part. */
export function blockStarts(parts) {
  const starts = [0];
  parts.forEach((part, index) => {
    if (index > 0 && guardedOr(() => part.type === "step-start", false)) starts.push(index);
  });
  return starts;
}

/**
 * A stored compaction state, checked (it comes from the application's store): a copy of the
 * package's own, read once (a Proxy or a getter that throws is an error naming it).
 */
export function checkState(state) {
  if (state === null || state === undefined) return null;
  const copy = read(() => record(state, "state"));
  const ok =
    copy !== null &&
    typeof copy.summary === "string" &&
    typeof copy.firstKeptId === "string" &&
    Number.isInteger(copy.firstKeptPart) &&
    copy.firstKeptPart >= 0;
  if (!ok) throw bad("state must be null or { summary, firstKeptId, firstKeptPart, record, cleared? } as prepare returned it");
  const cleared = checkCleared(copy.cleared);
  const { cleared: _, ...rest } = copy;
  return cleared.length > 0 ? { ...rest, cleared } : rest;
}

/** What `copy` returns; a `Fault` it throws (a caller's getter or Proxy) as a CompactionError. */
export function read(copy) {
  try {
    return copy();
  } catch (fault) {
    if (fault instanceof CompactionError) throw fault;
    throw bad(fault?.message ?? describe(fault), fault?.cause ?? fault);
  }
}

/**
 * The UIMessages still live under `state`: `{ message, from }` from the first kept one (system
 * and pinned messages before it stay: they are never cut). `null` when the state's first kept
 * message is gone (the client edited or regenerated the history before it): the state no
 * longer applies.
 */
export function liveMessages(messages, state) {
  const copy = read(() => list(messages, "messages"));
  if (copy === null) throw bad("messages must be an array of UIMessages");
  const all = copy.map((message, index) => readUiMessage(message, `messages[${index}]`));
  if (!state) return all.map((message) => ({ message, from: 0 }));
  const at = all.findIndex((message) => message.id === state.firstKeptId);
  if (at < 0) return null;
  const systems = all.slice(0, at).filter((message) => message.role === "system" || message.pinned);
  // A pinned message is never split: a state past its end (nothing else kept) still sends it.
  const from = all[at].pinned ? 0 : state.firstKeptPart;
  return [...systems.map((message) => ({ message, from: 0 })), { message: all[at], from }, ...all.slice(at + 1).map((message) => ({ message, from: 0 }))];
}

/**
 * Converts live UIMessages block by block; returns the model messages and a map from each to
 * `{ id, part, role }` (the UIMessage and the part its block starts at, counted from `base`:
 * where the message given starts in the posted one).
 */
export async function convertLive(convert, live) {
  const messages = [];
  const origins = new Map();
  for (const { message, from, base = 0 } of live) {
    for (const block of await convertMessage(convert, message)) {
      if (block.part < from) continue;
      for (const converted of block.messages) {
        // A pinned UIMessage's model messages carry the ModelMessage pin marker: maintenance
        // between a request's steps keeps them too.
        const model = message.pinned ? withPinMark(converted) : converted;
        origins.set(model, { id: message.id, part: base + block.part, role: message.role });
        messages.push(model);
      }
    }
  }
  return { messages, origins };
}

async function convertMessage(convert, message) {
  const starts = blockStarts(message.parts);
  const blocks = [];
  for (let i = 0; i < starts.length; i++) {
    const parts = message.parts.slice(starts[i], starts[i + 1]);
    let converted;
    try {
      converted = await convert([{ id: message.id, role: message.role, parts }]);
    } catch (error) {
      throw bad(`convertToModelMessages rejected message ${message.id}: ${describe(error)}`, error);
    }
    blocks.push({ part: starts[i], messages: modelMessages(converted, message.id) });
  }
  return blocks;
}

/**
 * What `convertToModelMessages` returned for a block of message `id`: plain copies of its model
 * messages (a custom function may hand back anything; what it holds is read through guards).
 */
function modelMessages(converted, id) {
  const what = `convertToModelMessages(message ${id})`;
  const items = read(() => list(converted, what));
  if (items === null) throw bad(`${what} must return an array of model messages`);
  return items.map((item, index) => {
    const copy = read(() => record(item, `${what}[${index}]`));
    if (copy === null || typeof copy.role !== "string") throw bad(`${what}[${index}] must be a model message ({ role, content })`);
    return copy;
  });
}
