// Loading the whole WebAssembly module (every entry but `context-compaction/plan`), once per
// realm (loader.js).
import * as glue from "../context_compaction_bg.js";
import { sizer } from "../host/size.js";
import { loader } from "./loader.js";

export const { provide, ensureLoaded, ready } = loader(glue, "./context_compaction_bg.js", sizer);
