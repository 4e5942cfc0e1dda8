// Cloudflare Workers (workerd): the .wasm import arrives as a compiled WebAssembly.Module,
// because workerd does not compile wasm from bytes at run time.
import * as glue from "./web/context_compaction.js";
import wasm from "./web/context_compaction_bg.wasm";
import { setup } from "./api.js";

glue.initSync({ module: wasm });
export const { ContextManager } = setup(glue);

export { Compactor, HeuristicEstimator, estimate, isContextOverflowError, projectSummary } from "./web/context_compaction.js";
export { anthropicGenerator, openAICompatibleGenerator } from "./generators.js";
export { CompactionError } from "./error.js";
