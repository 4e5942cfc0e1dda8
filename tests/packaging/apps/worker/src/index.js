// A Cloudflare Worker: the package's `workerd` entry imports the .wasm, which wrangler uploads
// as a compiled module; the first call instantiates it.
import { Compactor } from "context-compaction";
import { compactSummary, planSummary } from "./scenario.js";

export default {
  async fetch() {
    return Response.json({ plan: planSummary({ Compactor }), compacted: await compactSummary({ Compactor }) });
  },
};
