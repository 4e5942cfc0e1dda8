// Browsers and bundlers: the web glue, initialised here from the .wasm next to it.
import init, * as glue from "./web/context_compaction.js";
import { setup } from "./api.js";

await init({ module_or_path: new URL("./web/context_compaction_bg.wasm", import.meta.url) });
export const { ContextManager } = setup(glue);

export { Compactor, HeuristicEstimator, estimate, isContextOverflowError, projectSummary } from "./web/context_compaction.js";
export { anthropicGenerator, openAICompatibleGenerator } from "./generators.js";
export { CompactionError } from "./error.js";
