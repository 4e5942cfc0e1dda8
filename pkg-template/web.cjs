// CommonJS `require("context-compaction/web")`: the ES module's exports through require(esm)
// (with `default`, which is `init`, and `__esModule`), so both share one instance.
"use strict";
Object.assign(exports, require("./web.js"));
