// Node, CommonJS: `require` gives the same package (and instance) as `import`.
const { Compactor } = require("context-compaction");

import("./conversation.js").then(({ conversation }) => {
  const compactor = new Compactor({ keepRecentTokens: 20_000, summarizer: { summarize: async () => "" } });
  const plan = compactor.plan({ messages: conversation(), inputTokenBudget: 128_000 - 16_384 });
  console.log(plan ? `Summarize ${plan.messagesToSummarize.length} messages, keep from #${plan.firstKeptIndex}: ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens before the summary` : "Fits: nothing to compact");
});
