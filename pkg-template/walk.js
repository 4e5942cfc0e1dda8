// The walker of the cold objects path (src/body/walked.rs reads what it lays out): it reads
// messages of any format (canonical, OpenAI Chat or Responses, Anthropic, AI SDK) as
// JSON.stringify would see them, copies each text-bearing string once into wasm memory with
// encodeInto, and describes the message around it in u32 ops (another format's message as the
// canonical units its format adapter makes of it). Anything it is not sure of becomes OTHER,
// and wasm reads that message the general way.

import { Fault } from "./host.js";

// Keep in step with `op` in src/body/walked.rs.
const USER = 1;
const ASSISTANT = 2;
const TOOL_RESULT = 3;
const TEXT = 4;
const IMAGE = 5;
const CALL = 6;
const RESULT_ID = 7;
const OTHER = 8;
const V_STRING = 9;
const V_NUMBER = 10;
const V_NULL = 11;
const V_TRUE = 12;
const V_FALSE = 13;
const V_ARRAY = 14;
const V_OBJECT = 15;
const V_JSON = 16;
const V_MISSING = 17;
const V_JSON_TEXT = 18;
const UNIT = 19;
const TEXT_VALUE = 20;

// Arguments nested deeper are left to the general reader (serde_json has a nesting limit).
const MAX_DEPTH = 64;

const STOP_REASONS = new Set(["stop", "length", "toolUse", "error", "aborted"]);
const encoder = new TextEncoder();

// What laying out one message gives: done, left to the general reader, or out of room.
const DONE = 0;
const UNSURE = 1;
const FULL = 2;

// The message reader of each format, indexed by the `format` argument (keep in step with
// src/wasm/walk.rs).
const READERS = [canonicalMessage, openAIMessage, anthropicMessage, aiSdkMessage, responsesItem];

/**
 * Lays out `messages[indices[k]]` for k from `from` on into the byte and op buffers (wasm
 * memory) until one is full; returns how many messages it laid out. `ops[0]` gets how many
 * ops follow it.
 */
export function walk(messages, memory, indicesAt, indicesLen, from, bytesAt, bytesCap, opsAt, opsCap, format) {
  const message = READERS[format];
  const buffer = memory.buffer;
  const indices = new Uint32Array(buffer, indicesAt, indicesLen);
  const out = { bytes: new Uint8Array(buffer, bytesAt, bytesCap), ops: new Uint32Array(buffer, opsAt, opsCap), b: 0, o: 1 };
  let k = from;
  // A caller's getter or Proxy trap that throws stops the walk here, as a Fault naming the
  // message (its `index` in the array walked); wasm reports it.
  try {
    for (; k < indicesLen; k++) {
      const b = out.b;
      const o = out.o;
      const read = message(messages[indices[k]], out);
      if (read === DONE) continue;
      out.b = b;
      out.o = o;
      if (read === FULL || !op(out, OTHER)) break;
    }
  } catch (cause) {
    throw Fault.at(indices[k], cause);
  }
  out.ops[0] = out.o - 1;
  return k - from;
}

function canonicalMessage(m, out) {
  if (!plain(m)) return UNSURE;
  const role = m.role;
  if (role === "user") return op(out, USER) ? content(m.content, out, false) : FULL;
  if (role === "assistant") {
    const stop = m.stopReason;
    if (stop !== undefined && stop !== null && !STOP_REASONS.has(stop)) return UNSURE;
    return op(out, ASSISTANT) ? content(m.content, out, true) : FULL;
  }
  if (role === "toolResult") {
    const { isError, toolName, toolCallId } = m;
    if (isError !== undefined && isError !== null && typeof isError !== "boolean") return UNSURE;
    if (toolName !== undefined && toolName !== null && typeof toolName !== "string") return UNSURE;
    if (typeof toolCallId !== "string") return UNSURE;
    if (!op(out, TOOL_RESULT) || !op(out, RESULT_ID) || !string(out, toolCallId)) return FULL;
    return content(m.content, out, false);
  }
  return UNSURE;
}

// An object JSON.stringify writes as the properties read here: a plain object of this realm
// (no getters on a prototype, no toJSON).
function plain(value) {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype && value.toJSON === undefined;
}

// Content: a string, or blocks (text and image blocks for user and tool-result messages; text,
// thinking and tool-call blocks for assistant ones).
function content(value, out, assistant) {
  // Missing content is the general reader's to refuse (null is empty content).
  if (value === undefined) return UNSURE;
  if (value === null) return DONE;
  if (typeof value === "string") return text(out, value);
  if (!Array.isArray(value) || value.toJSON !== undefined) return UNSURE;
  for (let i = 0; i < value.length; i++) {
    const read = contentBlock(value[i], out, assistant);
    if (read !== DONE) return read;
  }
  return DONE;
}

function contentBlock(block, out, assistant) {
  if (!plain(block)) return UNSURE;
  const type = block.type;
  if (type === "text") return required(out, block.text);
  if (!assistant) return type === "image" ? (op(out, IMAGE) ? DONE : FULL) : UNSURE;
  if (type === "thinking") return required(out, block.thinking);
  if (type === "toolCall") return call(out, block.id, block.name, block.arguments);
  return UNSURE;
}

function call(out, id, name, args) {
  if (typeof id !== "string" || typeof name !== "string") return UNSURE;
  if (!op(out, CALL) || !string(out, id) || !string(out, name)) return FULL;
  // JSON.stringify leaves such a property out: the arguments are missing.
  if (args === undefined || typeof args === "function" || typeof args === "symbol") return op(out, V_MISSING) ? DONE : FULL;
  return value(out, args, 0);
}

// Whether JSON.stringify writes the property (and the adapters see it as there).
function present(value) {
  return value !== undefined && value !== null && typeof value !== "function" && typeof value !== "symbol";
}

// A JSON value laid out as JSON.stringify would write it (src/body/walked.rs scores it as
// serde_json writes it back); anything but plain objects and arrays goes as JSON text.
function value(out, v, depth) {
  switch (typeof v) {
    case "string":
      return op(out, V_STRING) && string(out, v) ? DONE : FULL;
    case "number":
      if (!Number.isFinite(v)) return op(out, V_NULL) ? DONE : FULL;
      return op(out, V_NUMBER) && string(out, String(v)) ? DONE : FULL;
    case "boolean":
      return op(out, v ? V_TRUE : V_FALSE) ? DONE : FULL;
    case "object":
      if (v === null) return op(out, V_NULL) ? DONE : FULL;
      // serde_json's nesting limit is left to the general reader.
      if (depth >= MAX_DEPTH) return UNSURE;
      if (Array.isArray(v) && v.toJSON === undefined) return array(out, v, depth);
      if (plain(v)) return object(out, v, depth);
      return json(out, v);
    case "bigint":
      return UNSURE;
    default:
      // undefined, a function or a symbol in an array: written as null.
      return op(out, V_NULL) ? DONE : FULL;
  }
}

function array(out, v, depth) {
  if (!op(out, V_ARRAY) || !op(out, v.length)) return FULL;
  for (let i = 0; i < v.length; i++) {
    const read = value(out, v[i], depth + 1);
    if (read !== DONE) return read;
  }
  return DONE;
}

function object(out, v, depth) {
  if (!op(out, V_OBJECT) || !op(out, 0)) return FULL;
  const count = out.o - 1;
  let entries = 0;
  for (const key of Object.keys(v)) {
    const item = v[key];
    if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    if (!string(out, key)) return FULL;
    const read = value(out, item, depth + 1);
    if (read !== DONE) return read;
    entries++;
  }
  out.ops[count] = entries;
  return DONE;
}

// A value only JSON.stringify knows how to write (toJSON, a class instance, a Date).
function json(out, v) {
  let text;
  try {
    text = JSON.stringify(v);
  } catch {
    return UNSURE;
  }
  if (text === undefined) return op(out, V_NULL) ? DONE : FULL;
  return op(out, V_JSON) && string(out, text) ? DONE : FULL;
}

// OpenAI Chat Completions (src/formats/openai_chat.rs): user, assistant and tool messages; system
// and developer ones (joined texts), legacy function calls and anything unexpected are OTHER.
const USER_PARTS = { text: new Set(["text"]), attachments: new Set(["image_url", "input_audio", "file"]) };
const ASSISTANT_PARTS = { text: new Set(["text", "refusal"]), attachments: new Set() };
const TOOL_PARTS = { text: new Set(["text"]), attachments: new Set() };

function openAIMessage(m, out) {
  if (!plain(m)) return UNSURE;
  const role = m.role;
  if (role === "user") return op(out, USER) ? parts(m.content, out, USER_PARTS) : FULL;
  if (role === "assistant") return openAIAssistant(m, out);
  if (role === "tool") {
    const id = m.tool_call_id;
    if (typeof id !== "string") return UNSURE;
    if (!op(out, TOOL_RESULT) || !op(out, RESULT_ID) || !string(out, id)) return FULL;
    return parts(m.content, out, TOOL_PARTS);
  }
  return UNSURE;
}

// Its content parts, then a refusal, then each tool call.
function openAIAssistant(m, out) {
  const { refusal, tool_calls: calls, function_call: legacy } = m;
  if (legacy !== undefined && legacy !== null) return UNSURE;
  if (!optionalString(refusal)) return UNSURE;
  if (calls !== undefined && calls !== null && (!Array.isArray(calls) || calls.toJSON !== undefined)) return UNSURE;
  if (!op(out, ASSISTANT)) return FULL;
  let read = parts(m.content, out, ASSISTANT_PARTS);
  if (read === DONE && typeof refusal === "string") read = text(out, refusal);
  for (let i = 0; read === DONE && calls && i < calls.length; i++) read = openAICall(calls[i], out);
  return read;
}

function openAICall(call, out) {
  if (!plain(call) || !plain(call.function)) return UNSURE;
  return textCall(out, call.id, call.function.name, call.function.arguments);
}

// The arguments are JSON text: wasm scores the value it holds (or the text as a string when it
// is not JSON), as the format adapter parses it.
function textCall(out, id, name, args) {
  if (typeof id !== "string" || typeof name !== "string" || !optionalString(args)) return UNSURE;
  if (!op(out, CALL) || !string(out, id) || !string(out, name)) return FULL;
  return op(out, V_JSON_TEXT) && string(out, args ?? "") ? DONE : FULL;
}

// Anthropic Messages (src/formats/anthropic.rs). One host message may hold several units, each
// framed: a user message's runs of text and attachments and each of its tool results, an
// assistant message and the results of server tools in it.
const ANTHROPIC_ATTACHMENTS = new Set(["image", "document", "search_result"]);
const ANTHROPIC_RESULT_PARTS = { text: new Set(["text"]), attachments: ANTHROPIC_ATTACHMENTS };

function anthropicMessage(m, out) {
  if (!plain(m)) return UNSURE;
  if (m.role === "user") return anthropicUser(m.content, out);
  if (m.role === "assistant") return anthropicAssistant(m.content, out);
  return UNSURE;
}

// A user message of only tool results does not start a turn; one without blocks (no units) is
// left to the general reader.
function anthropicUser(blocks, out) {
  if (typeof blocks === "string") return op(out, USER) ? text(out, blocks) : FULL;
  if (!Array.isArray(blocks) || blocks.toJSON !== undefined || blocks.length === 0) return UNSURE;
  // The role is known after the blocks: its op is written now and set then.
  const start = out.o;
  if (!op(out, TOOL_RESULT)) return FULL;
  let inUserUnit = false;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    if (!plain(block)) return UNSURE;
    const result = block.type === "tool_result";
    // The first unit is framed by the message's own op.
    if ((result || !inUserUnit) && i > 0 && !op(out, UNIT)) return FULL;
    inUserUnit = !result;
    if (!result) out.ops[start] = USER;
    const read = result ? anthropicResult(block, out) : userBlock(block, out);
    if (read !== DONE) return read;
  }
  return DONE;
}

function userBlock(block, out) {
  if (block.type === "text") return required(out, block.text);
  return ANTHROPIC_ATTACHMENTS.has(block.type) ? image(out) : UNSURE;
}

function anthropicResult(block, out) {
  const { tool_use_id: id, is_error: isError } = block;
  if (typeof id !== "string" || !optionalBoolean(isError)) return UNSURE;
  if (!op(out, RESULT_ID) || !string(out, id)) return FULL;
  return parts(block.content, out, ANTHROPIC_RESULT_PARTS);
}

function anthropicAssistant(blocks, out) {
  return op(out, ASSISTANT) ? eachBlock(blocks, out, anthropicBlock) : FULL;
}

function anthropicBlock(block, out) {
  const type = block.type;
  if (typeof type !== "string") return UNSURE;
  if (type === "text") return required(out, block.text);
  if (type === "thinking") return required(out, block.thinking);
  if (type === "redacted_thinking") return optionalText(out, block.data);
  if (type === "tool_use" || type.endsWith("_tool_use")) return call(out, block.id, block.name, block.input);
  if (type.endsWith("_tool_result")) {
    const id = block.tool_use_id;
    if (typeof id !== "string") return UNSURE;
    if (!op(out, UNIT) || !op(out, RESULT_ID) || !string(out, id)) return FULL;
    return jsonText(out, block.content);
  }
  return UNSURE;
}

// Vercel AI SDK ModelMessages (src/formats/ai_sdk.rs); system messages are read the general way.
const AI_SDK_USER_PARTS = { text: new Set(["text"]), attachments: new Set(["image", "file"]) };
const AI_SDK_MEDIA = new Set(["media", "image-data", "image-url", "file-data", "file-url"]);

function aiSdkMessage(m, out) {
  if (!plain(m)) return UNSURE;
  const role = m.role;
  if (role === "user") return op(out, USER) ? parts(m.content, out, AI_SDK_USER_PARTS) : FULL;
  if (role === "assistant") return op(out, ASSISTANT) ? eachBlock(m.content, out, aiSdkPart) : FULL;
  if (role === "tool") return aiSdkTool(m.content, out);
  return UNSURE;
}

function aiSdkPart(part, out) {
  const type = part.type;
  if (type === "text" || type === "reasoning") return required(out, part.text);
  // `input` since AI SDK 5, `args` before.
  if (type === "tool-call") return call(out, part.toolCallId, part.toolName, present(part.input) ? part.input : part.args);
  if (type === "tool-result") return op(out, UNIT) ? aiSdkResult(part, out) : FULL;
  if (type === "file") return optionalText(out, part.mediaType);
  return UNSURE;
}

// Tool results, one unit each; a tool message without any (no units) is left to the general
// reader.
function aiSdkTool(content, out) {
  if (!Array.isArray(content) || content.toJSON !== undefined || content.length === 0) return UNSURE;
  if (!op(out, TOOL_RESULT)) return FULL;
  for (let i = 0; i < content.length; i++) {
    const part = content[i];
    if (!plain(part) || part.type !== "tool-result") return UNSURE;
    if (i > 0 && !op(out, UNIT)) return FULL;
    const read = aiSdkResult(part, out);
    if (read !== DONE) return read;
  }
  return DONE;
}

function aiSdkResult(part, out) {
  const { toolCallId: id, toolName: name, output } = part;
  if (typeof id !== "string" || !optionalString(name)) return UNSURE;
  if (!op(out, RESULT_ID) || !string(out, id)) return FULL;
  // AI SDK 4: `result` and `isError`.
  if (!present(output)) return optionalBoolean(part.isError) ? jsonText(out, part.result) : UNSURE;
  if (!plain(output)) return UNSURE;
  const { type, value: v } = output;
  if (type === "text" || type === "error-text") return jsonText(out, v);
  if (type === "json" || type === "error-json") return compactJson(out, v);
  if (type !== "content") return UNSURE;
  if (v === undefined || v === null) return DONE;
  if (!Array.isArray(v) || v.toJSON !== undefined) return UNSURE;
  for (let i = 0; i < v.length; i++) {
    const item = v[i];
    if (!plain(item)) return UNSURE;
    const read = item.type === "text" ? required(out, item.text) : AI_SDK_MEDIA.has(item.type) ? image(out) : UNSURE;
    if (read !== DONE) return read;
  }
  return DONE;
}

// OpenAI Responses input items (src/formats/openai_responses.rs): messages (system and developer
// ones are read the general way), function calls and other `*_call` items, their outputs,
// reasoning, and any other item as its own compact JSON.
const RESPONSES_TEXTS = new Set(["input_text", "output_text", "refusal"]);
const RESPONSES_ATTACHMENTS = new Set(["input_image", "input_file", "input_audio"]);
const RESPONSES_PARTS = { text: RESPONSES_TEXTS, attachments: RESPONSES_ATTACHMENTS };
const RESPONSES_ASSISTANT_PARTS = { text: RESPONSES_TEXTS, attachments: RESPONSES_ATTACHMENTS, images: false };

function responsesItem(m, out) {
  if (!plain(m)) return UNSURE;
  let type = m.type;
  // An "easy" input message: `{ role, content }` without a type.
  if ((type === undefined || type === null) && m.role !== undefined && m.role !== null) type = "message";
  if (typeof type !== "string") return UNSURE;
  if (type === "message") return responsesMessage(m, out);
  if (type === "function_call") return op(out, ASSISTANT) ? textCall(out, m.call_id, m.name, m.arguments) : FULL;
  if (type === "reasoning") return op(out, ASSISTANT) ? reasoning(m, out) : FULL;
  if (m.call_id !== undefined && m.call_id !== null) {
    if (type.endsWith("_output")) return responsesOutput(m, out);
    if (type.endsWith("_call")) {
      const name = m.name ?? type.slice(0, -"_call".length);
      const args = [m.input, m.action, m.arguments].find(present);
      return op(out, ASSISTANT) ? call(out, m.call_id, name, args) : FULL;
    }
  }
  // Any other item counts as its own compact JSON.
  return op(out, ASSISTANT) ? compactJson(out, m) : FULL;
}

// Attachments in an assistant message do not count (the adapter leaves them out).
function responsesMessage(m, out) {
  if (m.role === "user") return op(out, USER) ? parts(m.content, out, RESPONSES_PARTS) : FULL;
  if (m.role === "assistant") return op(out, ASSISTANT) ? parts(m.content, out, RESPONSES_ASSISTANT_PARTS) : FULL;
  return UNSURE;
}

// The summary's texts joined into one thinking text, then the encrypted content.
function reasoning(m, out) {
  const { summary, encrypted_content: encrypted } = m;
  if (!optionalString(encrypted)) return UNSURE;
  if (summary !== undefined && summary !== null) {
    if (!Array.isArray(summary) || summary.toJSON !== undefined) return UNSURE;
    const texts = [];
    for (const item of summary) {
      if (!plain(item) || typeof item.text !== "string") return UNSURE;
      texts.push(item.text);
    }
    if (texts.length > 0 && text(out, texts.join("\n")) !== DONE) return FULL;
  }
  return typeof encrypted === "string" ? text(out, encrypted) : DONE;
}

function responsesOutput(m, out) {
  const id = m.call_id;
  if (typeof id !== "string") return UNSURE;
  if (!op(out, TOOL_RESULT) || !op(out, RESULT_ID) || !string(out, id)) return FULL;
  const output = m.output;
  if (!present(output)) return DONE;
  return Array.isArray(output) ? parts(output, out, RESPONSES_PARTS) : jsonText(out, output);
}

// A string content, or blocks each read by `block` (after the plain-object check).
function eachBlock(blocks, out, block) {
  if (blocks === undefined) return UNSURE;
  if (blocks === null) return DONE;
  if (typeof blocks === "string") return text(out, blocks);
  if (!Array.isArray(blocks) || blocks.toJSON !== undefined) return UNSURE;
  for (let i = 0; i < blocks.length; i++) {
    const read = plain(blocks[i]) ? block(blocks[i], out) : UNSURE;
    if (read !== DONE) return read;
  }
  return DONE;
}

// A value as a text: a string as it is, anything else as its compact JSON.
function jsonText(out, v) {
  if (typeof v === "string") return text(out, v);
  // A toJSON might write a string, which would then be the text itself.
  if (typeof v === "object" && v !== null && !Array.isArray(v) && !plain(v)) return UNSURE;
  if (Array.isArray(v) && v.toJSON !== undefined) return UNSURE;
  return compactJson(out, v);
}

function compactJson(out, v) {
  return op(out, TEXT_VALUE) ? value(out, v, 0) : FULL;
}

function optionalText(out, value) {
  return optionalString(value) ? text(out, value ?? "") : UNSURE;
}

function optionalBoolean(value) {
  return value === undefined || value === null || typeof value === "boolean";
}

function image(out) {
  return op(out, IMAGE) ? DONE : FULL;
}

// A string, or an array of parts: text parts (their `text`, else their `refusal`) and
// attachments (counted as images), as the adapters' `Reader::content` reads them.
function parts(value, out, kinds) {
  // Missing content is the general reader's to refuse (null is empty content).
  if (value === undefined) return UNSURE;
  if (value === null) return DONE;
  if (typeof value === "string") return text(out, value);
  if (!Array.isArray(value) || value.toJSON !== undefined) return UNSURE;
  for (let i = 0; i < value.length; i++) {
    const part = value[i];
    if (!plain(part)) return UNSURE;
    if (kinds.attachments.has(part.type)) {
      // Some messages leave their attachments out (`images: false`).
      if (kinds.images !== false && !op(out, IMAGE)) return FULL;
      continue;
    }
    const { text: words, refusal } = part;
    if (!kinds.text.has(part.type) || !optionalString(words) || !optionalString(refusal)) return UNSURE;
    if (text(out, words ?? refusal ?? "") !== DONE) return FULL;
  }
  return DONE;
}

// What the format adapter reads as an optional string (JSON has no undefined: it is missing).
function optionalString(value) {
  return value === undefined || value === null || typeof value === "string";
}

function required(out, value) {
  return typeof value === "string" ? text(out, value) : UNSURE;
}

function text(out, value) {
  return op(out, TEXT) && string(out, value) ? DONE : FULL;
}

function op(out, code) {
  if (out.o >= out.ops.length) return false;
  out.ops[out.o++] = code;
  return true;
}

// The string's UTF-8 length op, then its bytes.
function string(out, value) {
  if (out.o >= out.ops.length) return false;
  const len = put(out, value);
  if (len < 0) return false;
  out.ops[out.o++] = len;
  return true;
}

// Copies the string into the byte buffer; its UTF-8 length, or -1 when it does not fit.
function put(out, value) {
  const length = value.length;
  // UTF-8 takes at least one byte per UTF-16 unit.
  if (length > out.bytes.length - out.b) return -1;
  if (length <= SHORT && ascii(out, value)) return length;
  const { read, written } = encoder.encodeInto(value, out.bytes.subarray(out.b));
  if (read < value.length) return -1;
  out.b += written;
  return written;
}

// Short strings (ids, names, keys) are copied here when they are ASCII: cheaper than a view and
// an encodeInto call each.
const SHORT = 32;

function ascii(out, value) {
  const { bytes, b } = out;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0x80) return false;
    bytes[b + i] = unit;
  }
  out.b += value.length;
  return true;
}
