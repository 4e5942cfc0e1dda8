// Browsers without a bundler (or serving the `.wasm` yourself): nothing is inlined; the default
// export fetches and instantiates the module once.
//   import init, { Compactor } from "context-compaction/web"; await init();
import { provide, ready } from "./load/whole.js";

export * from "./lib/exports.js";

/** Loads the module from `input` (default: the `.wasm` next to this file); resolves when ready. */
export default function init(input = new URL("./context_compaction.wasm", import.meta.url)) {
  provide({ input });
  return ready();
}
