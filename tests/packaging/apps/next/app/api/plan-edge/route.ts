// Planning only, on the edge runtime: the `edge-light` condition of `context-compaction/plan`
// hands it the plan-only .wasm as a compiled module.
import { Compactor, type Message } from "context-compaction/plan";

export const runtime = "edge";

export async function POST(request: Request) {
  const { messages }: { messages: Message[] } = await request.json();
  const compactor = new Compactor({ keepRecentTokens: 20_000 });
  try {
    const plan = compactor.plan({ messages, inputTokenBudget: 128_000 - 16_384 });
    return new Response(
      plan
        ? `Summarize ${plan.messagesToSummarize.length} messages, keep from #${plan.firstKeptIndex}: ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens before the summary`
        : "Fits: nothing to compact",
    );
  } finally {
    compactor.free();
  }
}
