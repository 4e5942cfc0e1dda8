// Browsers without a bundler: call the default export once before using the rest.
//   import init, { Compactor } from "context-compaction/web"; await init();
import glueInit, * as glue from "./web/context_compaction.js";
import { register } from "./api.js";
import { CompactionError } from "./error.js";
import { defineContextManager } from "./manager.js";

export default async function init(input) {
  await glueInit(input === undefined ? undefined : { module_or_path: input });
  register(glue);
}

export const ContextManager = defineContextManager(glue, CompactionError);
export { Compactor, HeuristicEstimator, estimate, isContextOverflowError, projectSummary } from "./web/context_compaction.js";
export { anthropicGenerator, openAICompatibleGenerator } from "./generators.js";
export { CompactionError } from "./error.js";
