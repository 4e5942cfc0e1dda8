// A Web Worker: the first call loads the WebAssembly module synchronously (no `ready()` needed).
import { Compactor } from "context-compaction";
import { planSummary } from "./scenario.js";

postMessage(planSummary({ Compactor }));
