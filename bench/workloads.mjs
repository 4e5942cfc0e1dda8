// Workloads for bench/run.mjs: histories of n messages built from the real session by
// repeating its messages with fresh tool-call ids, and the baselines the targets refer to.
import { readFileSync } from "node:fs";

const session = new URL("../tests/fixtures/large-session.jsonl", import.meta.url);
const base = readFileSync(session, "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line))
  .filter((entry) => entry.type === "message")
  .map((entry) => entry.message);

/** `n` canonical messages; every repetition of the session gets its own tool-call ids. */
export function history(n) {
  const out = [];
  for (let round = 0; out.length < n; round++) {
    for (const message of base) {
      if (out.length === n) break;
      const copy = structuredClone(message);
      if (copy.role === "assistant") for (const block of copy.content) if (block.type === "toolCall") block.id += `#${round}`;
      if (copy.role === "toolResult") copy.toolCallId += `#${round}`;
      out.push(copy);
    }
  }
  return out;
}

/** The same history as OpenAI Chat Completions messages (texts joined, arguments as JSON text). */
export function openAIChat(messages) {
  const text = (content) =>
    typeof content === "string" ? content : (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
  return messages.map((m) => {
    if (m.role === "user") return { role: "user", content: text(m.content) };
    if (m.role === "toolResult") return { role: "tool", tool_call_id: m.toolCallId, content: text(m.content) };
    const calls = (m.content ?? []).filter((b) => b.type === "toolCall");
    const message = { role: "assistant", content: text(m.content) || null };
    if (calls.length) {
      message.tool_calls = calls.map((b) => ({ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.arguments ?? {}) } }));
    }
    return message;
  });
}

/** Every text-bearing string of the messages (what any estimator must look at). */
export function strings(messages) {
  const out = [];
  for (const m of messages) {
    if (typeof m.content === "string") {
      out.push(m.content);
      continue;
    }
    for (const b of m.content ?? []) {
      if (b.type === "text") out.push(b.text);
      else if (b.type === "thinking") out.push(b.thinking);
      else if (b.type === "toolCall") out.push(b.name, JSON.stringify(b.arguments));
    }
  }
  return out;
}

/** Baseline A: a bare loop summing `.length` of every text-bearing string. */
export function baselineA(messages) {
  let sum = 0;
  for (const m of messages) {
    if (typeof m.content === "string") {
      sum += m.content.length;
      continue;
    }
    for (const b of m.content ?? []) {
      if (b.type === "text") sum += b.text.length;
      else if (b.type === "thinking") sum += b.thinking.length;
      else if (b.type === "toolCall") sum += b.name.length;
    }
  }
  return sum;
}

/** Baseline B: `JSON.parse` of the request body bytes. */
export function baselineB(bytes) {
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** Baseline C: `TextEncoder.encodeInto` of every string into a preallocated wasm memory. */
export function baselineC(list, view) {
  const encoder = new TextEncoder();
  let offset = 0;
  for (const s of list) offset += encoder.encodeInto(s, view.subarray(offset)).written;
  return offset;
}

/**
 * The median time in milliseconds of `runs` calls of `fn`, after three warm-up calls (so that
 * the package's JavaScript, the cold-path walker included, runs optimized, as in a long-lived
 * page or Worker).
 */
export function median(fn, runs = 7) {
  for (let i = 0; i < 3; i++) fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
