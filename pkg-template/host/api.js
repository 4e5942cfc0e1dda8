// Registers the error class, the guarded host readers, the cold-path walker, the facts cache's
// lookup and store and (for the modules that size messages lazily) the sizer with the glue once
// it is instantiated, and guards the glue classes against use after free() and re-entry.
import { CompactionError } from "../lib/error.js";
import { cacheGet, cacheSet } from "./cache.js";
import { bytes, isLive, list, record, settle } from "./host.js";
import { walk } from "./walk.js";

/**
 * What every entry does once the glue is initialised; `sizer(glue)` gives the sizer's functions
 * (`size.js`) to the modules that plan whole requests (the preview module has none: its loader
 * passes nothing, so its pages do not carry `size.js`).
 */
export function register(glue, sizer) {
  glue.__register({ errorClass: CompactionError, list, record, bytes, settle, walk, cacheGet, cacheSet, ...sizer?.(glue) });
  // The plan-only module has no ContextManagerCore.
  for (const name of ["Compactor", "Conversation", "HeuristicEstimator", "ContextManagerCore"]) {
    if (glue[name]) guardFreed(glue[name], name);
  }
}

// Methods that return a promise: after free() they reject rather than throw.
const ASYNC = new Set(["apply", "compact", "draft", "maintain", "run"]);
// Classes whose methods hold their object exclusively while they run (wasm `&mut self`).
const EXCLUSIVE = new Set(["Conversation"]);
const guarded = Symbol("context-compaction guarded");
// How many calls into each object are running: a caller's getter or Proxy trap may call back
// into the package while it reads their messages.
const running = new WeakMap();

// Calls wasm could only refuse by throwing from inside its frames ("null pointer passed to
// rust" after free(), "recursive use of an object" for a call back into a busy object) are
// refused here first, with a CompactionError (a rejection for the async methods).
function guardFreed(Class, name) {
  const proto = Class.prototype;
  if (proto[guarded]) return;
  proto[guarded] = true;
  const refusal = (self, key) => {
    const what = `invalid request: ${name}.${key}: this ${name}`;
    if (!isLive(self)) return new CompactionError("invalid_request", `${what} was freed (free() was called) and cannot be used`);
    const busy = (running.get(self) ?? 0) > 0;
    if (busy && (key === "free" || EXCLUSIVE.has(name))) {
      return new CompactionError("invalid_request", `${what} is in use: called back from a getter or Proxy of the messages it is reading`);
    }
    return null;
  };
  const wrap = (key, call) =>
    ({
      [key](...args) {
        const error = refusal(this, key);
        if (error !== null) {
          if (ASYNC.has(key)) return Promise.reject(error);
          throw error;
        }
        running.set(this, (running.get(this) ?? 0) + 1);
        try {
          return call(this, args);
        } finally {
          running.set(this, running.get(this) - 1);
        }
      },
    })[key];
  // A second free() is a no-op.
  const free = proto.free;
  const guardedFree = wrap("free", (self) => free.call(self));
  proto.free = function free_() {
    if (isLive(this)) guardedFree.call(this);
  };
  if (Symbol.dispose && proto[Symbol.dispose]) proto[Symbol.dispose] = proto.free;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === "constructor" || key === "free" || key.startsWith("__")) continue;
    const descriptor = Object.getOwnPropertyDescriptor(proto, key);
    if (typeof descriptor.value === "function") {
      const method = descriptor.value;
      descriptor.value = wrap(key, (self, args) => method.apply(self, args));
    } else if (descriptor.get) {
      const get = descriptor.get;
      descriptor.get = wrap(key, (self) => get.call(self));
    }
    Object.defineProperty(proto, key, descriptor);
  }
}
