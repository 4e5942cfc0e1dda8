// CommonJS `require("context-compaction/ai-sdk-preview")`: the ES module through require(esm),
// sharing its instance.
"use strict";
module.exports = require("./ai-sdk-preview.js");
