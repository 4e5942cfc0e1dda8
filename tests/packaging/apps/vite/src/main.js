// A page that plans: `context-compaction/plan` loads the plan-only module (no summarizer, no
// apply; three quarters of the whole one). `ready()` loads it, then planning is synchronous and
// cheap (fine on every keystroke). A module Web Worker does the same off the main thread.
import { Compactor, ready } from "context-compaction/plan";
import { conversation } from "./conversation.js";

ready().then(() => {
  const compactor = new Compactor({ keepRecentTokens: 20_000 });
  const plan = compactor.plan({ messages: conversation(), inputTokenBudget: 128_000 - 16_384 });
  document.querySelector("#plan").textContent = plan
    ? `Summarize ${plan.messagesToSummarize.length} messages, keep from #${plan.firstKeptIndex}: ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens before the summary`
    : "Fits: nothing to compact";
});

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.onmessage = (event) => (document.querySelector("#worker").textContent = event.data);
worker.postMessage(conversation());
