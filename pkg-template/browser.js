// Browsers and bundlers: the web glue, initialised here from the .wasm next to it.
import init, * as glue from "./web/context_compaction.js";
import { register } from "./api.js";

await init({ module_or_path: new URL("./web/context_compaction_bg.wasm", import.meta.url) });
register(glue);

export { Compactor, HeuristicEstimator, estimate, projectSummary } from "./web/context_compaction.js";
export { CompactionError } from "./error.js";
