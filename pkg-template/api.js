// Shared by the entries: registers the error class, the guarded host readers and the
// cold-path walker with an initialised glue module, and builds the classes written in
// JavaScript.
import { CompactionError } from "./error.js";
import { bytes, guardedOr, list, record } from "./host.js";
import { defineContextManager } from "./manager.js";
import { walk } from "./walk.js";

/** What every entry does once the glue is initialised. */
export function register(glue) {
  glue.__registerErrorClass(CompactionError);
  glue.__registerHost(list, record, bytes);
  glue.__registerWalker(walk);
  for (const name of ["Compactor", "Conversation", "HeuristicEstimator", "ContextManagerCore"]) {
    guardFreed(glue[name], name);
  }
}

export function setup(glue) {
  register(glue);
  return { ContextManager: defineContextManager(glue, CompactionError) };
}

// Methods that return a promise: after free() they reject rather than throw.
const ASYNC = new Set(["apply", "compact", "maintain", "run"]);
const guarded = Symbol("context-compaction guarded");

// A glue object after free() (or a method called on something else) has no pointer: wasm
// would throw "null pointer passed to rust" from inside its frames. Each method and getter
// checks first and gives a CompactionError (a rejection for the async ones) instead.
function guardFreed(Class, name) {
  const proto = Class.prototype;
  if (proto[guarded]) return;
  proto[guarded] = true;
  // A second free() is a no-op (wasm would throw from inside its frames otherwise).
  const free = proto.free;
  proto.free = function free_() {
    if (isLive(this)) free.call(this);
  };
  if (Symbol.dispose && proto[Symbol.dispose]) proto[Symbol.dispose] = proto.free;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === "constructor" || key === "free" || key.startsWith("__")) continue;
    const descriptor = Object.getOwnPropertyDescriptor(proto, key);
    const check = (self) => {
      if (isLive(self)) return null;
      return new CompactionError("invalid_request", `invalid request: ${name}.${key}: this ${name} was freed (free() was called) and cannot be used`);
    };
    if (typeof descriptor.value === "function") {
      const method = descriptor.value;
      descriptor.value = {
        [key](...args) {
          const error = check(this);
          if (error !== null) {
            if (ASYNC.has(key)) return Promise.reject(error);
            throw error;
          }
          return method.apply(this, args);
        },
      }[key];
    } else if (descriptor.get) {
      const get = descriptor.get;
      descriptor.get = function () {
        const error = check(this);
        if (error) throw error;
        return get.call(this);
      };
    }
    Object.defineProperty(proto, key, descriptor);
  }
}

/** Whether `object` is a glue object that has not been freed. */
export function isLive(object) {
  if (typeof object !== "object" || object === null) return false;
  // A Proxy posing as one may throw from its traps: then it is not one.
  const pointer = guardedOr(() => object.__wbg_ptr, 0);
  return typeof pointer === "number" && pointer !== 0;
}
