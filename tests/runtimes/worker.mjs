// A module Web Worker using the package's default entry without ready(): a worker compiles
// WebAssembly synchronously on first use.
import * as api from "/node_modules/context-compaction/index.js";
import { run } from "/scenario.mjs";

run(api).then(
  (result) => postMessage(result),
  (e) => postMessage({ error: String(e && e.stack || e) }),
);
