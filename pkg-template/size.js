// The cheap pass of an anchored plan over a long history (src/wasm/tail.rs): the size of each
// message, the UTF-16 length of the strings the format's reader would read (keys and values),
// without copying anything. Only the tail of the history is then read exactly; the size of the
// messages before it stands in for their estimate, scaled by the tokens per character of the
// tail. It also names the messages always read exactly: system messages (never cut) and failed
// attempts (which a calibrated estimate counts 0, so a size would be wrong). Like the walker,
// it lets nothing a message does while it is read (a throwing getter, a revoked Proxy) escape.

import { Fault } from "./host.js";

// Nesting deeper than this is not counted (the exact reader refuses it anyway).
const MAX_DEPTH = 120;

// Whether something made a property of Object.prototype enumerable (then for-in sees inherited
// keys, which JSON.stringify does not).
const inherited = (() => {
  for (const _ in Object.prototype) return true;
  return false;
})();

/**
 * Writes the size of `messages[i]` for i below `sizes.length` into `sizes` (a Float64Array);
 * returns the indices of the messages whose top-level `role` is one of `systemRoles` or whose
 * `failKey` is one of `failValues` (no such key when null), or a `Fault` (host.js) naming the
 * message that threw. `keys`: the top-level keys the format's reader reads (all when null).
 */
export function sizes(messages, sizes, keys, systemRoles, failKey, failValues) {
  let i = 0;
  try {
    const exact = [];
    for (; i < sizes.length; i++) {
      const m = messages[i];
      if (typeof m !== "object" || m === null || Array.isArray(m)) {
        sizes[i] = size(m, 0);
        continue;
      }
      sizes[i] = keys === null ? size(m, 0) : top(m, keys);
      if (systemRoles.length > 0 && systemRoles.includes(m.role)) exact.push(i);
      else if (failKey !== null && failValues.includes(m[failKey])) exact.push(i);
    }
    return exact;
  } catch (cause) {
    return Fault.at(i, cause);
  }
}

// The size of the `keys` of message `m`: its own enumerable keys among them, as
// JSON.stringify sees them. Walking the message's few keys costs less than looking up every
// key the format has (most are missing on any one message).
function top(m, keys) {
  let n = 0;
  if (inherited) {
    for (const key of Object.keys(m)) if (keys.includes(key)) n += key.length + size(m[key], 1);
    return n;
  }
  for (const key in m) {
    if (!keys.includes(key)) continue;
    const v = m[key];
    if (v !== undefined) n += key.length + size(v, 1);
  }
  return n;
}

// Strings, most of the values, are counted without a call.
function size(v, depth) {
  if (typeof v === "string") return v.length;
  if (typeof v !== "object" || v === null || depth >= MAX_DEPTH) return 4;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      n += typeof item === "string" ? item.length : size(item, depth + 1);
    }
    return n;
  }
  // Checked once, not per key: V8 then keeps the plain loop fast (about 15% of the pass).
  if (inherited) return sizeOwn(v, depth);
  for (const key in v) {
    const item = v[key];
    n += key.length + (typeof item === "string" ? item.length : size(item, depth + 1));
  }
  return n;
}

// `size` of an object when Object.prototype has enumerable keys: its own keys only.
function sizeOwn(v, depth) {
  let n = 0;
  for (const key of Object.keys(v)) n += key.length + size(v[key], depth + 1);
  return n;
}
