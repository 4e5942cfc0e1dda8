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

/**
 * `n` canonical messages; every repetition of the session gets its own tool-call ids. With
 * `flatIds`, the ids are flat strings, as `JSON.parse` makes them; otherwise they are made by
 * `+=`, which V8 keeps as two joined strings until something reads their characters and
 * flattens them (a walk of 100k messages does: about 4 MB of JavaScript heap).
 */
export function history(n, { flatIds = false } = {}) {
  const id = flatIds ? (text, round) => [text, "#", round].join("") : (text, round) => (text += `#${round}`);
  const out = [];
  for (let round = 0; out.length < n; round++) {
    for (const message of base) {
      if (out.length === n) break;
      const copy = structuredClone(message);
      if (copy.role === "assistant") for (const block of copy.content) if (block.type === "toolCall") block.id = id(block.id, round);
      if (copy.role === "toolResult") copy.toolCallId = id(copy.toolCallId, round);
      out.push(copy);
    }
  }
  return out;
}

/** A canonical content as one text: a string as it is, text blocks joined by newlines. */
const text = (content) => (typeof content === "string" ? content : (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n"));

/** The same history as OpenAI Chat Completions messages (texts joined, arguments as JSON text). */
export function openAIChat(messages) {
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

/** The same history as Anthropic Messages (consecutive tool results in one user message). */
export function anthropic(messages) {
  const blocks = (content) =>
    typeof content === "string"
      ? content
      : (content ?? []).map((b) => (b.type === "text" ? { type: "text", text: b.text } : { type: "image", source: { type: "base64", media_type: b.mimeType, data: b.data } }));
  const out = [];
  for (const m of messages) {
    if (m.role === "toolResult") {
      const block = { type: "tool_result", tool_use_id: m.toolCallId, is_error: m.isError, content: blocks(m.content) };
      const last = out[out.length - 1];
      if (last?.results) last.content.push(block);
      else out.push({ role: "user", content: [block], results: true });
    } else if (m.role === "user") {
      out.push({ role: "user", content: blocks(m.content) });
    } else {
      const content = (m.content ?? []).map((b) =>
        b.type === "toolCall" ? { type: "tool_use", id: b.id, name: b.name, input: b.arguments ?? {} } : b.type === "thinking" ? { type: "thinking", thinking: b.thinking, signature: "" } : { type: "text", text: b.text },
      );
      out.push({ role: "assistant", content });
    }
  }
  for (const m of out) delete m.results;
  return out;
}

/** The same history as AI SDK ModelMessages (consecutive tool results in one tool message). */
export function aiSdk(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role === "toolResult") {
      const part = { type: "tool-result", toolCallId: m.toolCallId, toolName: m.toolName, output: { type: m.isError ? "error-text" : "text", value: text(m.content) } };
      const last = out[out.length - 1];
      if (last?.role === "tool") last.content.push(part);
      else out.push({ role: "tool", content: [part] });
    } else if (m.role === "user") {
      out.push({ role: "user", content: text(m.content) });
    } else {
      const content = (m.content ?? []).map((b) =>
        b.type === "toolCall" ? { type: "tool-call", toolCallId: b.id, toolName: b.name, input: b.arguments ?? {} } : b.type === "thinking" ? { type: "reasoning", text: b.thinking } : { type: "text", text: b.text },
      );
      out.push({ role: "assistant", content });
    }
  }
  return out;
}

/**
 * The same history as AI SDK UIMessages, as `useChat` holds it: a turn's assistant messages and
 * tool results are one assistant UIMessage, a `step-start` and a tool part per model call.
 */
export function aiSdkUi(messages) {
  const out = [];
  const calls = new Map();
  let assistant = null;
  for (const [i, m] of messages.entries()) {
    if (m.role === "user") {
      assistant = null;
      out.push({ id: `m${i}`, role: "user", parts: [{ type: "text", text: text(m.content) }] });
    } else if (m.role === "toolResult") {
      const part = calls.get(m.toolCallId);
      if (part && m.isError) Object.assign(part, { state: "output-error", errorText: text(m.content) });
      else if (part) Object.assign(part, { state: "output-available", output: text(m.content) });
    } else {
      if (assistant === null) out.push((assistant = { id: `m${i}`, role: "assistant", parts: [] }));
      assistant.parts.push({ type: "step-start" });
      for (const b of m.content ?? []) {
        if (b.type === "text") assistant.parts.push({ type: "text", text: b.text, state: "done" });
        if (b.type === "thinking") assistant.parts.push({ type: "reasoning", text: b.thinking, state: "done" });
        if (b.type !== "toolCall") continue;
        const part = { type: `tool-${b.name}`, toolCallId: b.id, state: "input-available", input: b.arguments ?? {} };
        calls.set(b.id, part);
        assistant.parts.push(part);
      }
    }
  }
  return out;
}

/** The same history as OpenAI Responses input items (one item per text, reasoning or call). */
export function openAIResponses(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role === "user") out.push({ type: "message", role: "user", content: [{ type: "input_text", text: text(m.content) }] });
    else if (m.role === "toolResult") out.push({ type: "function_call_output", call_id: m.toolCallId, output: text(m.content) });
    else {
      for (const b of m.content ?? []) {
        if (b.type === "thinking") out.push({ type: "reasoning", summary: [{ type: "summary_text", text: b.thinking }] });
        if (b.type === "text") out.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: b.text, annotations: [] }] });
        if (b.type === "toolCall") out.push({ type: "function_call", call_id: b.id, name: b.name, arguments: JSON.stringify(b.arguments ?? {}) });
      }
    }
  }
  return out;
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

/**
 * `history(n)` with usage on every answer as a provider would report it for this history
 * (`estimate`: the package's, for our estimate of each message): its request at the session's measured ratio (1.22 ×
 * our estimate), failed attempts left out (a provider never sees them). The session's own
 * recorded usage restarts at each repetition, so it cannot anchor a long history.
 */
export function anchoredHistory(n, estimate) {
  const messages = history(n);
  const tokens = estimate({ messages }).messages;
  const failed = (m) => m.role === "assistant" && (m.stopReason === "aborted" || m.stopReason === "error");
  let sum = 0;
  messages.forEach((m, i) => {
    if (m.role === "assistant") m.usage = { input: Math.round(sum * 1.22), output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
    if (!failed(m)) sum += tokens[i];
  });
  return messages;
}

