// The cheap reads of an anchored plan over a long history (src/tail/, src/wasm/sizer.rs): the
// size of a message as the core defines it (src/tail/size.rs: the UTF-16 length of the keys and
// strings the format's reader would read, as JSON.stringify would write them), without copying
// anything; the indices of the system messages by their role alone;
// and the plan's `messageTokens` of the messages it did not read, sized when first read. Only
// the tail of the history is read exactly; the size of the messages before it stands in for
// their estimate, scaled by the tokens per character of the tail. The size pass also names the
// messages that a size alone would misdescribe: system messages (never cut: read exactly) and
// failed attempts (which a calibrated estimate counts 0: marked so, not read). Like the walker,
// it lets nothing a message does while it is read (a throwing getter, a revoked Proxy) escape.

import { CompactionError } from "../lib/error.js";
import { Fault } from "./host.js";
// Nesting deeper than MAX_DEPTH is not counted (the exact reader refuses it anyway).
import { MAX_DEPTH } from "./tape.js";

// Whether something made a property of Object.prototype enumerable (then for-in sees inherited
// keys, which JSON.stringify does not).
const inherited = (() => {
  for (const _ in Object.prototype) return true;
  return false;
})();

/**
 * Writes the size of `messages[i]` for i below `sizes.length` into `sizes` (a Float64Array);
 * returns `[system, failed]`: the indices of the messages whose top-level `role` is one of
 * `systemRoles` or whose value at `pinPath` (keys from the message down) is `true` (the
 * host pinned them; none when `pinPath` is null), and of those whose `role` is `failRole` and whose `failKey` is one of
 * `failValues` (none when `failKey` is null); or a `Fault` (host.js) naming the message that
 * threw, or with `skipThrows`, NaN for its size. `keys`: the top-level keys the format's
 * reader reads (all when null).
 */
export function sizes(messages, sizes, keys, systemRoles, failRole, failKey, failValues, skipThrows = false, pinPath = null) {
  const system = [];
  const failed = [];
  // A Set: most of a message's keys are not the reader's, and a miss in a Set is cheaper
  // than in an array of them (about 15% of the pass).
  const only = keys === null ? null : new Set(keys);
  const checkSystem = systemRoles.length > 0;
  let i = 0;
  // The try is around the loop, not in it, and the loop resumes after a skipped message.
  for (;;) {
    try {
      for (; i < sizes.length; i++) {
        const m = messages[i];
        if (typeof m !== "object" || m === null || Array.isArray(m)) {
          sizes[i] = size(m, 0);
          continue;
        }
        sizes[i] = only === null ? size(m, 0) : top(m, only);
        const role = m.role;
        if ((checkSystem && systemRoles.includes(role)) || (pinPath !== null && pinnedAt(m, pinPath))) system.push(i);
        else if (failKey !== null && role === failRole && failValues.includes(m[failKey]) && Object.hasOwn(m, failKey)) {
          // Its own key, as JSON.stringify (and so the reader) sees it.
          failed.push(i);
        }
      }
      return [system, failed];
    } catch (cause) {
      if (!skipThrows) return Fault.at(i, cause);
      sizes[i++] = NaN;
    }
  }
}

// The size of the `keys` (a Set) of message `m`: its own enumerable keys among them, as
// JSON.stringify sees them. Walking the message's few keys costs less than looking up every
// key the format has (most are missing on any one message).
function top(m, keys) {
  let n = 0;
  if (inherited) {
    for (const key of Object.keys(m)) if (keys.has(key) && m[key] !== undefined) n += key.length + size(m[key], 1);
    return n;
  }
  for (const key in m) {
    if (!keys.has(key)) continue;
    const v = m[key];
    if (v !== undefined) n += key.length + size(v, 1);
  }
  return n;
}

// The size of a message as the core defines it (src/tail/size.rs): the UTF-16 length of its
// keys and strings, 4 for any other value or a container nested MAX_DEPTH deep. A key whose
// value is `undefined` is left out, as JSON.stringify (and so the walker) leaves it out; in an
// array it counts as the `null` written there. (A function or symbol, which no message read
// from JSON holds, counts as a scalar: checking for them cost 1-4% of the pass.) Strings, most
// of the values, are counted without a call.
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
    if (typeof item === "string") n += key.length + item.length;
    else if (item !== undefined) n += key.length + size(item, depth + 1);
  }
  return n;
}

// `size` of an object when Object.prototype has enumerable keys: its own keys only.
function sizeOwn(v, depth) {
  let n = 0;
  for (const key of Object.keys(v)) if (v[key] !== undefined) n += key.length + size(v[key], depth + 1);
  return n;
}

/** Whether the own property at `path` of `m` (keys from the message down) is `true`, as the reader sees it. */
function pinnedAt(m, path) {
  let at = m;
  for (const key of path) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key)) return false;
    at = at[key];
  }
  return at === true;
}

/**
 * The indices of `messages` whose top-level `role` is one of `systemRoles` or whose value at
 * `pinPath` is `true` (no other key is read), or a `Fault` naming the message that threw.
 */
export function roles(messages, systemRoles, pinPath = null) {
  let i = 0;
  try {
    const found = [];
    for (const count = messages.length; i < count; i++) {
      const m = messages[i];
      if (typeof m !== "object" || m === null) continue;
      if (systemRoles.includes(m.role) || (pinPath !== null && pinnedAt(m, pinPath))) found.push(i);
    }
    return found;
  } catch (cause) {
    return Fault.at(i, cause);
  }
}

/**
 * The sizer's deferred read, with `fill` (the module's `__fillDeferred`) to fill in the tokens:
 * makes `plan.messageTokens` (a Float64Array over `messages`) fill in the messages before
 * `start` that the plan did not read (all but the indices `read`) when it is first read. This
 * only measures the messages, as they are then; `fill` decides their tokens from the sizes
 * (src/tail/unread.rs). A message that throws makes that read throw a `CompactionError` naming
 * it. Setting the property replaces it, as for any other field.
 */
export function deferTokensWith(fill) {
  return function deferTokens(plan, messages, start, read, keys, systemRoles, failRole, failKey, failValues) {
    const tokens = plan.messageTokens;
    const settle = (value) => Object.defineProperty(plan, "messageTokens", { value, writable: true, enumerable: true, configurable: true });
    let filled = false;
    Object.defineProperty(plan, "messageTokens", {
      enumerable: true,
      configurable: true,
      get() {
        if (!filled) {
          const all = new Float64Array(tokens.length);
          const found = sizes(messages, all, keys, systemRoles, failRole, failKey, failValues);
          if (found instanceof Fault) throw new CompactionError("invalid_request", `invalid request: ${found.message}`, { cause: found.cause });
          fill(tokens, all, start, [read, found[1]]);
          filled = true;
          // A frozen plan (a store that freezes what it holds) keeps the accessor.
          if (Object.isExtensible(plan)) settle(tokens);
        }
        return tokens;
      },
      set: settle,
    });
  };
}

/** The sizer's functions as the module takes them (`__register`, host/api.js), for `glue`. */
export const sizer = (glue) => ({ sizes, roles, deferTokens: deferTokensWith(glue.__fillDeferred) });
