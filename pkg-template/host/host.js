// The one way the package's JavaScript reads caller objects. Any of them may be a Proxy whose
// traps throw or are revoked, or have throwing getters (reactive stores, Immer drafts), so
// each read here either gives plain values of its own or throws a `Fault` naming the place,
// with the caller's exception as `cause`. Nothing the caller owns is changed.
//
// The bindings receive host arrays, records and buffers only through these functions
// (src/wasm/host.rs calls them): a host exception never unwinds through a wasm frame.

/** What a read of a caller's object threw: where (`path`), and the caller's own exception. */
export class Fault {
  constructor(path, message, cause) {
    this.path = path;
    this.message = `${path}: ${message}`;
    this.cause = cause;
  }

  /** A throw while reading message `index` of the array being read (wasm names the path). */
  static at(index, cause) {
    const fault = threw(`messages[${index}]`, cause);
    fault.index = index;
    return fault;
  }
}

function threw(path, cause) {
  return new Fault(path, `reading it threw: ${describe(cause)}`, cause);
}

/** A short description of a thrown value, reading nothing that could throw again. */
export function describe(value) {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) {
    try {
      const message = value.message;
      if (typeof message === "string") return message;
    } catch {
      // A thrown object whose `message` throws too: described by kind below.
    }
    return "a non-Error object was thrown";
  }
  return `a thrown ${typeof value}`;
}

/** Runs `read`; what it throws becomes a `Fault` at `path`. */
export function guarded(path, read) {
  try {
    return read();
  } catch (cause) {
    throw threw(path, cause);
  }
}

/** What `read` returns, or `otherwise` when it throws (for checks where a throw is a no). */
export function guardedOr(read, otherwise) {
  try {
    return read();
  } catch {
    return otherwise;
  }
}

/** Whether `object` is one of the package's objects (from the glue) that has not been freed:
 * those hold a pointer into wasm memory, 0 once freed. */
export function isLive(object) {
  if (typeof object !== "object" || object === null) return false;
  // A Proxy posing as one may throw from its traps: then it is not one.
  const pointer = guardedOr(() => object.__wbg_ptr, 0);
  return typeof pointer === "number" && pointer !== 0;
}

/** A fresh array of `value`'s elements, or `null` when it is not an array. */
export function list(value, path) {
  if (!guarded(path, () => Array.isArray(value))) return null;
  const length = guarded(`${path}.length`, () => value.length);
  if (!Number.isInteger(length) || length < 0 || length > 0xffffffff) {
    throw new Fault(`${path}.length`, `expected an array length, got ${String(length)}`);
  }
  const copy = new Array(length);
  let i = 0;
  try {
    for (; i < length; i++) copy[i] = value[i];
  } catch (cause) {
    throw threw(`${path}[${i}]`, cause);
  }
  return copy;
}

/** A plain copy of `value`'s own enumerable string-keyed properties (what `Object.assign`
 * copies), or `null` when it is not an object. */
export function record(value, path) {
  if (typeof value !== "object" || value === null) return null;
  const keys = guarded(path, () => Object.keys(value));
  const copy = {};
  for (const key of keys) {
    const item = guarded(`${path}.${key}`, () => value[key]);
    // A data property even for `__proto__`: the copy's prototype stays Object.prototype.
    Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

// The prototype getters, called on the value itself: they read internal slots, never a
// caller's own (or a Proxy's) properties.
const typedArray = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayTag = Object.getOwnPropertyDescriptor(typedArray, Symbol.toStringTag).get;
const typedArrayLength = Object.getOwnPropertyDescriptor(typedArray, "length").get;
const typedArrayBuffer = Object.getOwnPropertyDescriptor(typedArray, "buffer").get;
const typedArrayOffset = Object.getOwnPropertyDescriptor(typedArray, "byteOffset").get;
const bufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;

function isArrayBuffer(value) {
  try {
    bufferLength.call(value);
    return true;
  } catch {
    return false;
  }
}

/** A promise of the package's own for what a caller's function returned: a thenable is
 * adopted in a later job, so a throwing `then` (or `constructor`) becomes a rejection. */
export function settle(value) {
  return Promise.resolve().then(() => value);
}

/** A body's bytes: a string as it is, a `Uint8Array` or an `ArrayBuffer` as a `Uint8Array` of
 * the package's own over the same bytes (wasm copies them once, into its memory, with no caller
 * code in between), `null` for anything else. A detached buffer is a `Fault`. */
export function bytes(value, path) {
  if (typeof value === "string") return value;
  const view = typedArrayTag.call(value) === "Uint8Array";
  if (!view && !isArrayBuffer(value)) return null;
  try {
    if (!view) return new Uint8Array(value);
    return new Uint8Array(typedArrayBuffer.call(value), typedArrayOffset.call(value), typedArrayLength.call(value));
  } catch (cause) {
    throw new Fault(path, `cannot be read (a detached buffer?): ${describe(cause)}`, cause);
  }
}
