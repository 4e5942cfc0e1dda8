// The walker of the cold objects path. It knows nothing of message formats: it lays out each
// message, any JSON-like value, as JSON.stringify would see it, as a tape of nodes over one
// UTF-8 buffer in wasm memory (strings copied once with encodeInto), and the format readers in
// wasm read that tape as they read a scanned body (src/wasm/walk.rs). A message it is not sure
// of (a toJSON, a class instance, a BigInt, nesting serde_json refuses) is marked, and wasm
// reads that one through JSON.stringify instead. Nothing a message does while it is read (a
// throwing getter, a revoked Proxy) escapes: the walk stops and reports which message threw.

import { Fault } from "./host.js";
// A node is four u32s: tag, start and end of its bytes, and the index just past its subtree.
// The tags, and the depth past which containers are left to JSON.stringify, are the scanner's
// (`tape.js` is generated from them).
import * as tape from "./tape.js";

// Copied into constants of this module: V8 folds these into the walk's hot loops, where an
// imported binding read each time made a cold plan 3-6% slower (bench/ab.mjs; 0.99-1.03x
// with these copies).
const NULL = tape.NULL;
const BOOL = tape.BOOL;
const NUMBER = tape.NUMBER;
const STRING = tape.STRING;
const ARRAY = tape.ARRAY;
const OBJECT = tape.OBJECT;
const SKIPPED = tape.SKIPPED;
const MAX_DEPTH = tape.MAX_DEPTH;

// Each walk writes these bytes first, for booleans and nulls to point at.
const LITERALS = "truefalsenull";

// What laying out one value gives: done, not sure, or out of room.
const DONE = 0;
const UNSURE = 1;
const FULL = 2;

const encoder = new TextEncoder();

// Keys and short strings written before, by value: `mark + i`, the first word of the node
// that holds their bytes (`i`) in the walk of that mark. Kept from walk to walk (one read
// calls the walker for each few hundred KB of messages): a new `Map` each time grew again in
// each, 0.6 MB of JavaScript heap over a cold plan of 100k messages. A walk, or a message laid
// out again, takes a new mark, and entries of other marks are not its own: marks are
// multiples of SPAN below 2^29, so that every value stays a small integer.
const seen = new Map();
const SPAN = 1 << 20;
const MARKS = 1 << 9;
// The map is emptied when the marks wrap around, or when it holds this many strings (so it
// does not keep many of a caller's strings alive).
const SEEN_MAX = 1 << 14;
let marks = 0;
// Whether a walk is running: a getter of its messages may plan another history, whose walk
// then keeps its strings in Maps of its own and takes no marks. Sharing `seen` or the marks
// would let it leave entries under the interrupted walk's mark, or turn the marks round to it
// again, with entries pointing at nodes that are not that walk's.
let walking = false;

function newMark() {
  marks = (marks + 1) % MARKS;
  if (marks === 0 || seen.size > SEEN_MAX) seen.clear();
  return marks * SPAN;
}

// Forgets the strings written so far in this walk (its nodes may be overwritten now).
function forget(out) {
  if (out.seen === seen) out.mark = newMark();
  else out.seen = new Map();
}

// Node's (and Bun's) Buffer writes UTF-8 at an offset of a buffer without allocating anything:
// encodeInto needs a view that starts where the string goes and returns a result object, two
// objects a string (about 6 MB of JavaScript heap over a cold plan of 100k messages, which
// made the process's peak memory 4–5 MB higher). Both write a lone surrogate as U+FFFD and
// never split a character. Elsewhere (browsers, workerd, Deno) encodeInto it is; a Buffer
// polyfill (which has no native utf8Write) is not used.
const NodeBuffer =
  typeof globalThis.Buffer === "function" && typeof globalThis.Buffer.prototype?.utf8Write === "function" ? globalThis.Buffer : null;

/**
 * Lays out `messages[indices[k]]` for k from `from` on into the byte and node buffers (wasm
 * memory) until one is full, and returns how many messages it laid out; `header` gets the
 * number of nodes and of bytes used. When reading a message throws, returns a `Fault` instead
 * (host.js: the message's index in `messages`, and what was thrown as its cause).
 */
export function walk(messages, memory, indicesAt, indicesLen, from, bytesAt, bytesCap, nodesAt, nodesCap, keys) {
  let k = from;
  const nested = walking;
  walking = true;
  try {
    const buffer = memory.buffer;
    const indices = new Uint32Array(buffer, indicesAt, indicesLen);
    const header = new Uint32Array(buffer, nodesAt, 4);
    const out = {
      bytes: new Uint8Array(buffer, bytesAt, bytesCap),
      // The same bytes as a Buffer, where there is one (see NodeBuffer).
      buffer: NodeBuffer === null ? null : NodeBuffer.from(buffer, bytesAt, bytesCap),
      nodes: new Uint32Array(buffer, nodesAt + 16, nodesCap - 4),
      b: 0,
      n: 0,
      seen: nested ? new Map() : seen,
      mark: nested ? 0 : newMark(),
      inherited: enumerates(Object.prototype),
      // The top-level keys the format's reader reads (all when null).
      only: keys === null ? null : new Set(keys),
    };
    if (ascii(out, LITERALS) < 0) return 0;
    for (; k < indicesLen; k++) {
      const b = out.b;
      const n = out.n;
      const read = message(out, messages[indices[k]]);
      if (read === DONE) continue;
      out.b = b;
      out.n = n;
      // Keys written since may be overwritten now.
      forget(out);
      if (read === FULL || node(out, SKIPPED, 0, 0) < 0) break;
    }
    header[0] = out.n >> 2;
    header[1] = out.b;
    return k - from;
  } catch (cause) {
    return Fault.at(k < indicesLen ? new Uint32Array(memory.buffer, indicesAt, indicesLen)[k] : 0, cause);
  } finally {
    walking = nested;
  }
}

// Whether `for (const key in {})` would see anything.
function enumerates(proto) {
  for (const key in proto) return true;
  return false;
}

// A message is written by JSON.stringify only when it is an object or an array; of a plain
// object, only the keys the reader reads are laid out.
function message(out, m) {
  if (typeof m !== "object" || m === null) return UNSURE;
  if (out.only === null || Array.isArray(m)) return value(out, m, 0);
  return plain(m) ? object(out, m, 0, out.only) : UNSURE;
}

function value(out, v, depth) {
  switch (typeof v) {
    case "string":
      return v.length <= REPEATED ? name(out, v) : string(out, v);
    case "number":
      if (!Number.isFinite(v)) return literal(out, NULL, 9, 13);
      return number(out, v);
    case "boolean":
      return v ? literal(out, BOOL, 0, 4) : literal(out, BOOL, 4, 9);
    case "object":
      if (v === null) return literal(out, NULL, 9, 13);
      if (depth >= MAX_DEPTH) return UNSURE;
      if (Array.isArray(v)) return v.toJSON === undefined ? array(out, v, depth) : UNSURE;
      return plain(v) ? object(out, v, depth, null) : UNSURE;
    case "bigint":
      return UNSURE;
    default:
      // undefined, a function or a symbol in an array: written as null.
      return literal(out, NULL, 9, 13);
  }
}

// An object JSON.stringify writes as its own enumerable properties: a plain object of this
// realm (or one without a prototype), with no toJSON.
function plain(v) {
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && v.toJSON === undefined;
}

function array(out, v, depth) {
  const at = node(out, ARRAY, 0, 0);
  if (at < 0) return FULL;
  for (let i = 0; i < v.length; i++) {
    const read = value(out, v[i], depth + 1);
    if (read !== DONE) return read;
  }
  out.nodes[at + 3] = out.n >> 2;
  return DONE;
}

function object(out, v, depth, only = null) {
  const at = node(out, OBJECT, 0, 0);
  if (at < 0) return FULL;
  // for-in sees what Object.keys sees, in the same order, without making an array, unless
  // something made an inherited property enumerable.
  for (const key in v) {
    if (out.inherited && !Object.hasOwn(v, key)) continue;
    if (only !== null && !only.has(key)) continue;
    const item = v[key];
    // JSON.stringify leaves such a property out.
    if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    if (name(out, key) !== DONE) return FULL;
    const read = value(out, item, depth + 1);
    if (read !== DONE) return read;
  }
  out.nodes[at + 3] = out.n >> 2;
  return DONE;
}

// Strings this short are looked up among those written before, as keys are: most are type
// tags, roles, names and small numbers' worth of text that repeat from message to message
// (a walk 5–7% faster than copying each).
const REPEATED = 16;

// A key (or a short string): the bytes of the same string written before in this walk, or
// new ones.
function name(out, key) {
  const at = (out.seen.get(key) ?? -1) - out.mark;
  if (at >= 0 && at < SPAN) return literal(out, STRING, out.nodes[at + 1], out.nodes[at + 2]);
  const node = out.n;
  const read = string(out, key);
  if (read === DONE && node < SPAN) out.seen.set(key, out.mark + node);
  return read;
}

function literal(out, tag, start, end) {
  return node(out, tag, start, end) < 0 ? FULL : DONE;
}

// A node with no children; returns the index of its first word, or -1 when out of room.
function node(out, tag, start, end) {
  const at = out.n;
  const nodes = out.nodes;
  if (at + 4 > nodes.length) return -1;
  nodes[at] = tag;
  nodes[at + 1] = start;
  nodes[at + 2] = end;
  nodes[at + 3] = (at >> 2) + 1;
  out.n = at + 4;
  return at;
}

function string(out, v) {
  const start = out.b;
  if (put(out, v) < 0) return FULL;
  return literal(out, STRING, start, out.b);
}

function number(out, v) {
  const start = out.b;
  if (Number.isSafeInteger(v) && v >= 0 && !Object.is(v, -0)) {
    if (digits(out, v) < 0) return FULL;
  } else if (ascii(out, String(v)) < 0) {
    return FULL;
  }
  return literal(out, NUMBER, start, out.b);
}

// A non-negative integer's digits, as String writes them, without making the string.
function digits(out, v) {
  let length = 1;
  for (let rest = v; rest >= 10; rest = Math.floor(rest / 10)) length++;
  const { bytes, b } = out;
  if (length > bytes.length - b) return -1;
  for (let i = b + length - 1, rest = v; i >= b; i--, rest = Math.floor(rest / 10)) bytes[i] = 48 + (rest % 10);
  out.b = b + length;
  return length;
}

// Where there is no Buffer, strings up to this long (ids, names, types, paths, short texts) are
// copied here when they are ASCII: as fast as encodeInto, without the view and the result object
// it allocates for each string (a cold plan of 100k messages allocated 33 MB of JavaScript heap
// with 32 here, 12 MB with 128; the time is the same within noise, and slower from about 512).
// Buffer's utf8Write allocates nothing and, a call for every string longer than 16 units, made
// summarizerInput and a cold plan from objects 3-5% faster than copying them here
// (bench/ab.mjs, bench/README.md).
const SHORT = 128;

// Copies the string into the byte buffer; its UTF-8 length, or -1 when it does not fit.
function put(out, v) {
  const length = v.length;
  // UTF-8 takes at least one byte per UTF-16 unit.
  if (length > out.bytes.length - out.b) return -1;
  if (out.buffer !== null) return utf8Write(out, v);
  if (length <= SHORT) {
    const written = ascii(out, v);
    if (written >= 0) return written;
  }
  const { read, written } = encoder.encodeInto(v, out.bytes.subarray(out.b));
  if (read < length) return -1;
  out.b += written;
  return written;
}

// put through Node's Buffer: a UTF-16 unit takes at most 3 bytes, so a string fits when there is
// room for 3 bytes a unit or for its UTF-8 length.
function utf8Write(out, v) {
  const room = out.bytes.length - out.b;
  if (v.length * 3 > room && NodeBuffer.byteLength(v, "utf8") > room) return -1;
  const written = out.buffer.utf8Write(v, out.b, room);
  out.b += written;
  return written;
}

// Copies an ASCII string byte by byte; -1 (nothing copied) when it is not ASCII or does not fit.
function ascii(out, v) {
  const { bytes, b } = out;
  if (v.length > bytes.length - b) return -1;
  for (let i = 0; i < v.length; i++) {
    const unit = v.charCodeAt(i);
    if (unit >= 0x80) return -1;
    bytes[b + i] = unit;
  }
  out.b += v.length;
  return v.length;
}
