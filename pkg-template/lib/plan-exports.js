// The export list of `context-compaction/plan` (`export * from "./lib/plan-exports.js"` in each of
// its entries): planning and estimating on the plan-only module (`load/plan.js`), loaded on first
// use like the whole one. The whole API is `exports.js`.
import * as glue from "../context_compaction_plan_bg.js";
import { ensureLoaded, ready } from "../load/plan.js";
import { CompactionError } from "./error.js";

// What a compactor that never summarizes is given for the summarizer the module's config needs.
const NEVER_SUMMARIZES = Object.freeze({ summarize: async () => "" });

/**
 * A `Compactor` that plans (`plan`, `planBytes`, `clearableResults`, `conversation`) and never
 * summarizes: it takes the config of the whole one, whose `summarizer` it does not read.
 */
export class Compactor extends glue.Compactor {
  constructor(config) {
    ensureLoaded();
    // The caller's config behind an own `summarizer`: every other key is read from it as given.
    const given = config ?? {};
    super(typeof given === "object" ? Object.create(given, { summarizer: { value: NEVER_SUMMARIZES } }) : given);
  }
}

export class HeuristicEstimator extends glue.HeuristicEstimator {
  constructor(options) {
    ensureLoaded();
    super(options);
  }
}

export function estimate(request) {
  ensureLoaded();
  return glue.estimate(request);
}

export { ready, CompactionError };
