// Node, CommonJS, planning only: `require` gives the same package (and instance) as `import`;
// `context-compaction/plan` loads the plan-only module.
const { Compactor } = require("context-compaction/plan");

import("./conversation.js").then(({ conversation }) => {
  const compactor = new Compactor({ keepRecentTokens: 20_000 });
  const plan = compactor.plan({ messages: conversation(), inputTokenBudget: 128_000 - 16_384 });
  console.log(plan ? `Summarize ${plan.messagesToSummarize.length} messages, keep from #${plan.firstKeptIndex}: ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens before the summary` : "Fits: nothing to compact");
});
