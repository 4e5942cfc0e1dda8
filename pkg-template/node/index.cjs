// Node (CommonJS): the nodejs glue loads the .wasm synchronously from disk.
"use strict";
const glue = require("./context_compaction.js");
const { CompactionError } = require("./error.cjs");

glue.__registerErrorClass(CompactionError);

module.exports = {
  Compactor: glue.Compactor,
  HeuristicEstimator: glue.HeuristicEstimator,
  estimate: glue.estimate,
  projectSummary: glue.projectSummary,
  CompactionError,
};
