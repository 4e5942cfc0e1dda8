// A Node route handler that compacts (the first call loads the WebAssembly module).
import { Compactor } from "context-compaction";
import { compactSummary, planSummary } from "../../scenario.js";

export async function POST() {
  return Response.json({ plan: planSummary({ Compactor }), compacted: await compactSummary({ Compactor }) });
}
