// A page: `ready()` loads the WebAssembly module, then planning is synchronous and cheap
// (fine on every keystroke). The summarizer is never called by `plan`.
import { Compactor, ready } from "context-compaction";
import { conversation } from "./conversation.js";

ready().then(() => {
  const compactor = new Compactor({ keepRecentTokens: 20_000, summarizer: { summarize: async () => "" } });
  const plan = compactor.plan({ messages: conversation(), inputTokenBudget: 128_000 - 16_384 });
  document.querySelector("#plan").textContent = plan
    ? `Summarize ${plan.messagesToSummarize.length} messages, keep from #${plan.firstKeptIndex}: ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens before the summary`
    : "Fits: nothing to compact";
});
