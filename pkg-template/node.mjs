// Node as an ES module: the CommonJS build, so `import` and `require` share one instance.
import api from "./node/index.cjs";

export const { Compactor, HeuristicEstimator, estimate, projectSummary, CompactionError } = api;
