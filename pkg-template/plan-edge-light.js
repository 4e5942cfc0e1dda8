// `context-compaction/plan` in Vercel Edge and Next.js edge routes: `?module` asks Next.js for a
// compiled WebAssembly.Module (see edge-light.js).
import wasm from "./context_compaction_plan.wasm?module";
import { provide } from "./load/plan.js";

provide({ module: () => wasm });
export * from "./lib/plan-exports.js";
