// CommonJS `require("context-compaction/plan")`: the ES module through require(esm), so that
// `import` and `require` share one instance.
"use strict";
module.exports = require("./plan.js");
