// Node (CommonJS): the nodejs glue loads the .wasm synchronously from disk.
"use strict";
const glue = require("./context_compaction.js");
const { setup } = require("./api.cjs");
const { CompactionError } = require("./error.cjs");
const { anthropicGenerator, openAICompatibleGenerator } = require("./generators.cjs");

const { ContextManager } = setup(glue);

module.exports = {
  Compactor: glue.Compactor,
  ContextManager,
  HeuristicEstimator: glue.HeuristicEstimator,
  estimate: glue.estimate,
  isContextOverflowError: glue.isContextOverflowError,
  projectSummary: glue.projectSummary,
  CompactionError,
  anthropicGenerator,
  openAICompatibleGenerator,
};
