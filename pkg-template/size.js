// The cheap pass of an anchored plan over a long history (src/wasm/tail.rs): the size of each
// message, the UTF-16 length of the strings the format's reader would read (keys and values),
// without copying anything. Only the tail of the history is then read exactly; the size of the
// messages before it stands in for their estimate, scaled by the tokens per character of the
// tail. It also names the messages that a size alone would misdescribe: system messages (never
// cut: read exactly) and failed attempts (which a calibrated estimate counts 0: marked so,
// not read). Like the walker, it lets nothing a message does while it is read (a throwing
// getter, a revoked Proxy) escape.

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
 * returns `[system, failed]`: the indices of the messages whose top-level `role` is one of
 * `systemRoles`, and of those whose `role` is `failRole` and whose `failKey` is one of
 * `failValues` (none when `failKey` is null); or a `Fault` (host.js) naming the message that
 * threw. `keys`: the top-level keys the format's reader reads (all when null).
 */
export function sizes(messages, sizes, keys, systemRoles, failRole, failKey, failValues) {
  let i = 0;
  try {
    const system = [];
    const failed = [];
    // A Set: most of a message's keys are not the reader's, and a miss in a Set is cheaper
    // than in an array of them (about 15% of the pass).
    const only = keys === null ? null : new Set(keys);
    const checkSystem = systemRoles.length > 0;
    for (; i < sizes.length; i++) {
      const m = messages[i];
      if (typeof m !== "object" || m === null || Array.isArray(m)) {
        sizes[i] = size(m, 0);
        continue;
      }
      sizes[i] = only === null ? size(m, 0) : top(m, only);
      const role = m.role;
      if (checkSystem && systemRoles.includes(role)) system.push(i);
      else if (failKey !== null && role === failRole && failValues.includes(m[failKey]) && Object.hasOwn(m, failKey)) {
        // Its own key, as JSON.stringify (and so the reader) sees it.
        failed.push(i);
      }
    }
    return [system, failed];
  } catch (cause) {
    return Fault.at(i, cause);
  }
}

// The size of the `keys` (a Set) of message `m`: its own enumerable keys among them, as
// JSON.stringify sees them. Walking the message's few keys costs less than looking up every
// key the format has (most are missing on any one message).
function top(m, keys) {
  let n = 0;
  if (inherited) {
    for (const key of Object.keys(m)) if (keys.has(key)) n += key.length + size(m[key], 1);
    return n;
  }
  for (const key in m) {
    if (!keys.has(key)) continue;
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
