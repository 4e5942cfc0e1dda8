// Loading the preview module (`context-compaction/ai-sdk-preview`: the UIMessage reader, a
// conversation handle, `clearableResults` and `covers`), once per realm, apart from the whole
// module (`whole.js`) and the plan-only one (`plan.js`).
import * as glue from "../context_compaction_preview_bg.js";
import { loader } from "./loader.js";

export const { provide, ensureLoaded, ready } = loader(glue, "./context_compaction_preview_bg.js");
