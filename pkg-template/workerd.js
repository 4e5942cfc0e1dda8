// Cloudflare Workers (workerd, as wrangler bundles it): the `.wasm` import arrives as a compiled
// WebAssembly.Module, because workerd does not compile WebAssembly from bytes at run time.
import wasm from "./context_compaction.wasm";
import { provide } from "./load/whole.js";

provide({ module: () => wasm });
export * from "./lib/exports.js";
