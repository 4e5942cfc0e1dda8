// The facts cache's two crossings (src/wasm/cache.rs): a lookup of many messages in one call,
// and a store of many in one. Per message, a lookup and a store each took several crossings
// between wasm and JavaScript (the message, the WeakMap, the text), and a TextDecoder call per
// stored text: a first plan with the cache on cost 1.5 times the uncached one (bench/README.md).
// `messages` is the package's own copy of the caller's array, and a WeakMap reads nothing of
// its keys (no getter or Proxy trap runs): nothing here runs the caller's code.

// An end that marks a message the cache does not hold.
const MISS = 0xffffffff;

// Only objects are cached (the same test as wasm-bindgen's `is_object`).
const cacheable = (m) => typeof m === "object" && m !== null;

/**
 * Looks up `messages[indices[k]]` in `map` for each k (`indices`: `count` u32s at `indicesAt`
 * of `memory`, the message `open` skipped) and returns the texts found, joined; `ends[k]` (at
 * `endsAt`) gets where message k's text ends in them (UTF-16 units), or MISS.
 */
export function cacheGet(map, messages, memory, indicesAt, count, open, endsAt) {
  const indices = new Uint32Array(memory.buffer, indicesAt, count);
  const ends = new Uint32Array(memory.buffer, endsAt, count);
  let joined = "";
  for (let k = 0; k < count; k++) {
    const i = indices[k];
    const m = i === open ? undefined : messages[i];
    const text = cacheable(m) ? map.get(m) : undefined;
    if (typeof text === "string") {
      joined += text;
      ends[k] = joined.length;
    } else {
      ends[k] = MISS;
    }
  }
  return joined;
}

/**
 * Stores in `map` text k of `texts` (a JSON array of strings) under `messages[indices[k]]`
 * (`indices`: `count` u32s at `indicesAt` of `memory`) for each k.
 */
export function cacheSet(map, messages, memory, indicesAt, count, texts) {
  const indices = new Uint32Array(memory.buffer, indicesAt, count);
  // A string of its own each: slices of one string (2.5x faster to make) kept all of it alive
  // while any lived, and took 10% more heap in all at 100k messages (bench/README.md).
  const list = JSON.parse(texts);
  for (let k = 0; k < count; k++) {
    const m = messages[indices[k]];
    if (cacheable(m)) map.set(m, list[k]);
  }
}
