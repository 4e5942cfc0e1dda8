// An edge route handler: the same code; the package's `edge-light` entry imports the .wasm.
import { Compactor } from "context-compaction";
import { compactSummary, planSummary } from "../../scenario.js";

export const runtime = "edge";

export async function POST() {
  return Response.json({ plan: planSummary({ Compactor }), compacted: await compactSummary({ Compactor }) });
}
