// CommonJS: `context-compaction/ai-sdk` through require(esm), sharing the ES module instance.
"use strict";
module.exports = require("./ai-sdk.js");
