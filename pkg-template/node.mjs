// Node as an ES module: the CommonJS build, so `import` and `require` share one instance.
import api from "./node/index.cjs";

export const {
  Compactor,
  ContextManager,
  HeuristicEstimator,
  estimate,
  isContextOverflowError,
  projectSummary,
  CompactionError,
  anthropicGenerator,
  openAICompatibleGenerator,
} = api;
