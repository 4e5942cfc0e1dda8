// Vercel Edge and Next.js edge routes (the `edge-light` condition): the edge runtime does not
// compile WebAssembly from bytes either; `?module` asks Next.js for a compiled WebAssembly.Module.
import wasm from "./context_compaction.wasm?module";
import { provide } from "./load/whole.js";

provide({ module: () => wasm });
export * from "./lib/exports.js";
