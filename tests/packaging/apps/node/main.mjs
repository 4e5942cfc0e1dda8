// Node, as an ES module: the first call loads the WebAssembly module (no `ready()` needed).
import { Compactor } from "context-compaction";
import { planSummary } from "./scenario.js";

console.log(JSON.stringify(planSummary({ Compactor })));
