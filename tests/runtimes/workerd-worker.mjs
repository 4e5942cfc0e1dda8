// A Cloudflare Worker using the package's workerd entry (the .wasm arrives as a compiled module).
import * as api from "./node_modules/context-compaction/workerd.js";
import { run } from "./scenario.mjs";

export default {
  async fetch() {
    try {
      return Response.json(await run(api));
    } catch (e) {
      return Response.json({ error: String(e && e.stack || e) });
    }
  },
};
