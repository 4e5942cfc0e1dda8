// A module Web Worker using the package's default (browser) entry.
import * as api from "/node_modules/context-compaction/browser.js";
import { run } from "/scenario.mjs";

run(api).then(
  (result) => postMessage(result),
  (e) => postMessage({ error: String(e && e.stack || e) }),
);
