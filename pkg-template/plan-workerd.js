// `context-compaction/plan` in Cloudflare Workers: the `.wasm` import arrives compiled (see
// workerd.js).
import wasm from "./context_compaction_plan.wasm";
import { provide } from "./load/plan.js";

provide({ module: () => wasm });
export * from "./lib/plan-exports.js";
