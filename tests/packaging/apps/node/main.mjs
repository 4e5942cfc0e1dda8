// Node: compact a stored conversation before the next model call. No `ready()` needed: the
// first call loads the WebAssembly module.
import { Compactor, openAICompatibleGenerator } from "context-compaction";
import { conversation } from "./conversation.js";

const compactor = new Compactor({
  keepRecentTokens: 20_000,
  summarizer: {
    model: "gpt-4.1-mini",
    generate: openAICompatibleGenerator({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY }),
  },
});

const request = { messages: conversation(), inputTokenBudget: 128_000 - 16_384 };
const plan = compactor.plan(request);
console.log(plan ? `Summarize ${plan.messagesToSummarize.length} messages, keep from #${plan.firstKeptIndex}: ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens before the summary` : "Fits: nothing to compact");
const { record } = await compactor.apply(request, plan);
console.log(JSON.stringify(record));
