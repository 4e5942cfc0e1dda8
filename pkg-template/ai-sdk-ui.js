// UIMessages (what `useChat` holds and posts) as the model messages the route sends, with where
// each model message came from: the UIMessage's id and the part its step block starts at. An
// assistant UIMessage holds a whole tool loop, one block per step (`step-start` parts);
// `convertToModelMessages` turns each block into an assistant message and its tool results, so
// converting block by block gives the same messages and lets a cut map back to (id, part).
import { CompactionError } from "context-compaction";
import { checkCleared } from "./ai-sdk-clearing.js";
import { describe, guardedOr } from "./host.js";

const bad = (message, cause) => new CompactionError("invalid_request", `invalid request: ${message}`, cause === undefined ? undefined : { cause });

/** `{ id, role, parts }` of a UIMessage, read once (its getters may throw). */
export function readUiMessage(message, path) {
  try {
    if (message === null || typeof message !== "object") throw bad(`${path} must be a UIMessage object`);
    const { id, role, parts } = message;
    if (typeof id !== "string") throw bad(`${path}.id must be a string (useChat gives every message one)`);
    if (!Array.isArray(parts)) throw bad(`${path}.parts must be an array`);
    return { id, role, parts: [...parts], source: message };
  } catch (error) {
    if (error instanceof CompactionError) throw error;
    throw bad(`${path}: reading it threw: ${describe(error)}`, error);
  }
}

/** Where the step blocks of `parts` start: 0 and every `step-start` part. */
export function blockStarts(parts) {
  const starts = [0];
  parts.forEach((part, index) => {
    if (index > 0 && guardedOr(() => part.type === "step-start", false)) starts.push(index);
  });
  return starts;
}

/** A stored compaction state, checked (it comes from the application's store). */
export function checkState(state) {
  if (state === null || state === undefined) return null;
  const ok =
    typeof state === "object" &&
    typeof state.summary === "string" &&
    typeof state.firstKeptId === "string" &&
    Number.isInteger(state.firstKeptPart) &&
    state.firstKeptPart >= 0;
  if (!ok) throw bad("state must be null or { summary, firstKeptId, firstKeptPart, record, cleared? } as prepare returned it");
  checkCleared(state.cleared);
  return state;
}

/**
 * The UIMessages still live under `state`: `{ message, from }` from the first kept one (system
 * messages before it stay: they are never cut). `null` when the state's first kept message is
 * gone (the client edited or regenerated the history before it): the state no longer applies.
 */
export function liveMessages(messages, state) {
  if (!Array.isArray(messages)) throw bad("messages must be an array of UIMessages");
  const read = messages.map((message, index) => readUiMessage(message, `messages[${index}]`));
  if (!state) return read.map((message) => ({ message, from: 0 }));
  const at = read.findIndex((message) => message.id === state.firstKeptId);
  if (at < 0) return null;
  const systems = read.slice(0, at).filter((message) => message.role === "system");
  return [...systems.map((message) => ({ message, from: 0 })), { message: read[at], from: state.firstKeptPart }, ...read.slice(at + 1).map((message) => ({ message, from: 0 }))];
}

/**
 * Converts live UIMessages block by block; returns the model messages and a map from each to
 * `{ id, part, role }` (the UIMessage and the part its block starts at).
 */
export async function convertLive(convert, live) {
  const messages = [];
  const origins = new Map();
  for (const { message, from } of live) {
    for (const block of await convertMessage(convert, message)) {
      if (block.part < from) continue;
      for (const model of block.messages) {
        origins.set(model, { id: message.id, part: block.part, role: message.role });
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
    if (!Array.isArray(converted)) throw bad("convertToModelMessages must return an array of model messages");
    blocks.push({ part: starts[i], messages: converted });
  }
  return blocks;
}
