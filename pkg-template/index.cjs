// CommonJS: the ES module build, through require(esm) (Node ^20.19 or >= 22.12, and every
// bundler), so `import` and `require` share one instance of the package.
"use strict";
module.exports = require("./index.js");
