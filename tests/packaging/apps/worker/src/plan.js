// A Worker that only plans the conversation it is sent: wrangler picks the `workerd` entry of
// `context-compaction/plan`, which imports the plan-only .wasm as a compiled module.
import { Compactor } from "context-compaction/plan";

export default {
  async fetch(request) {
    const compactor = new Compactor({ keepRecentTokens: 20_000 });
    try {
      const plan = compactor.plan({ messages: await request.json(), inputTokenBudget: 128_000 - 16_384 });
      return new Response(
        plan
          ? `Summarize ${plan.messagesToSummarize.length} messages, keep from #${plan.firstKeptIndex}: ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens before the summary`
          : "Fits: nothing to compact",
      );
    } finally {
      compactor.free();
    }
  },
};
