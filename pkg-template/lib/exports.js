// The one export list every entry shares (`export * from "./lib/exports.js"`). Each value loads the
// WebAssembly module on first use (`load/whole.js`), so importing the package costs nothing.
import * as glue from "../context_compaction_bg.js";
import { ensureLoaded, ready } from "../load/whole.js";
import { CompactionError } from "./error.js";
import { defineContextManager } from "./manager.js";

export class Compactor extends glue.Compactor {
  constructor(config) {
    ensureLoaded();
    super(config);
  }
}

export class HeuristicEstimator extends glue.HeuristicEstimator {
  constructor(options) {
    ensureLoaded();
    super(options);
  }
}

// Its constructor needs a Compactor, so the module is loaded by then.
export const ContextManager = defineContextManager(glue, CompactionError);

export function estimate(request) {
  ensureLoaded();
  return glue.estimate(request);
}

export function isContextOverflowError(error) {
  ensureLoaded();
  return glue.isContextOverflowError(error);
}

export function projectSummary(summary, format) {
  ensureLoaded();
  return glue.projectSummary(summary, format);
}

export { ready, CompactionError };
export { anthropicGenerator, openAICompatibleGenerator } from "./generators.js";
