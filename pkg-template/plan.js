// `context-compaction/plan` for browsers, Web Workers, Node and every bundler: the plan-only
// module's bytes are inlined (plan-wasm-inline.js), and compiled on first use.
import bytes, { bytesAsync } from "./plan-wasm-inline.js";
import { provide } from "./load/plan.js";

provide({ bytes, bytesAsync });
export * from "./lib/plan-exports.js";
