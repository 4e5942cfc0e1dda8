// Node, as CommonJS: the same package instance `import` gets.
const { Compactor } = require("context-compaction");

import("./scenario.js").then(({ planSummary }) => console.log(JSON.stringify(planSummary({ Compactor }))));
