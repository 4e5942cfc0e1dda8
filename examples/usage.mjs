import { Compactor, CompactionError } from "context-compaction";

// Any OpenAI-compatible Chat Completions endpoint; the summarizer only needs text back.
const baseURL = process.env.OPENAI_BASE_URL;
const compactor = new Compactor({
  keepRecentTokens: 40,
  triggerRatio: 0.8,
  summarizer: {
    model: "gpt-4.1-mini",
    maxOutputTokens: 4000,
    async generate(req, { signal }) {
      const response = await fetch(`${baseURL}/chat/completions`, {
        method: "POST",
        signal,
        headers: { "content-type": "application/json", authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
        body: JSON.stringify({
          model: req.model,
          max_tokens: req.maxOutputTokens,
          messages: [{ role: "system", content: req.systemPrompt }, ...req.messages],
        }),
      });
      const body = await response.json();
      // A `status` makes 408/409/429/5xx retryable (2 s, then 4 s).
      if (!response.ok) throw Object.assign(new Error(body.error?.message), { status: response.status });
      return { text: body.choices[0].message.content, usage: { input: body.usage.prompt_tokens, output: body.usage.completion_tokens } };
    },
  },
});

let state = {
  systemPrompt: "You are a coding assistant.",
  summary: "",
  messages: [
    { role: "user", content: "Read src/parse.rs and fix the bug in the tokenizer." },
    { role: "assistant", content: [{ type: "toolCall", id: "t1", name: "read", arguments: { path: "src/parse.rs" } }], stopReason: "toolUse" },
    { role: "toolResult", toolCallId: "t1", toolName: "read", content: [{ type: "text", text: "fn tokenize() { /* … */ }\n".repeat(400) }] },
    { role: "assistant", content: [{ type: "text", text: "Fixed: the tokenizer skipped the last byte." }], stopReason: "stop" },
    { role: "user", content: "Thanks! Now add a test for it, and run the whole suite afterwards." },
    { role: "assistant", content: [{ type: "text", text: "Added `tokenize_keeps_the_last_byte` to tests/parse.rs; all 112 tests pass." }], stopReason: "stop" },
    { role: "user", content: "Great. Commit it." },
  ],
};

const request = { ...state, inputTokenBudget: 3000 };
const plan = compactor.plan(request); // pure and cheap: safe to call before every turn
if (plan) {
  console.log(`summarizing ${plan.messagesToSummarize.length} messages, keeping from #${plan.firstKeptIndex}`);
  try {
    const { summary, messages, record } = await compactor.apply(request, plan, { signal: AbortSignal.timeout(60_000) });
    state = { ...state, summary, messages };
    console.log(`estimate ${record.estimateBefore} → ${record.estimateAfter} tokens`);
  } catch (err) {
    if (!(err instanceof CompactionError)) throw err;
    console.log(`compaction failed (${err.code}); the conversation is unchanged`, err.cause);
  }
}
