// Loading the plan-only WebAssembly module (`context-compaction/plan`), once per realm, apart
// from the whole module (`loader.js`).
import * as glue from "../context_compaction_plan_bg.js";
import { sizer } from "../host/size.js";
import { loader } from "./loader.js";

export const { provide, ensureLoaded, ready } = loader(glue, "./context_compaction_plan_bg.js", sizer);
