// CommonJS `require("context-compaction/web")`: the ES module, through require(esm).
"use strict";
module.exports = require("./web.js");
