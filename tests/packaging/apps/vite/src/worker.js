// A module Web Worker that plans: no `ready()` needed, the first call loads the plan-only module.
import { Compactor } from "context-compaction/plan";

const compactor = new Compactor({ keepRecentTokens: 20_000 });

onmessage = (event) => {
  const plan = compactor.plan({ messages: event.data, inputTokenBudget: 128_000 - 16_384 });
  postMessage(
    plan
      ? `Summarize ${plan.messagesToSummarize.length} messages, keep from #${plan.firstKeptIndex}: ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens before the summary`
      : "Fits: nothing to compact",
  );
};
