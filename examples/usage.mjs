import { Compactor, CompactionError, openAICompatibleGenerator } from "context-compaction";

const compactor = new Compactor({
  keepRecentTokens: 20_000, // the latest ~20k tokens stay word for word
  triggerRatio: 0.8, // compact once the history passes 80% of the budget
  summarizer: {
    model: "gpt-4.1-mini",
    maxOutputTokens: 4000,
    contextWindowTokens: 128_000, // the summary model's window: a longer history goes in chunks
    // Any OpenAI-compatible Chat Completions endpoint; retried after 2 s and 4 s on 408/429/5xx.
    generate: openAICompatibleGenerator({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY }),
  },
});

/** Before each model call: your state `{ systemPrompt, summary, messages }`, fitted to the window. */
export async function fitToWindow(state, { contextWindowTokens = 128_000, reserveTokens = 16_384 } = {}) {
  const request = { ...state, inputTokenBudget: contextWindowTokens - reserveTokens };
  const plan = compactor.plan(request); // pure and cheap: fine before every turn
  if (!plan) return state;
  console.log(`summarizing ${plan.messagesToSummarize.length} messages, keeping from #${plan.firstKeptIndex}`);
  try {
    const { summary, messages, record } = await compactor.apply(request, plan, { signal: AbortSignal.timeout(60_000) });
    console.log(`estimate ${record.estimateBefore} → ${record.estimateAfter} tokens`);
    return { ...state, summary, messages };
  } catch (err) {
    if (!(err instanceof CompactionError)) throw err;
    console.log(`compaction failed (${err.code}); the conversation is unchanged`, err.cause);
    return state;
  }
}
