// The same route handler on the edge runtime: only the `runtime` line differs.
import { Compactor, openAICompatibleGenerator, type Message } from "context-compaction";

export const runtime = "edge";

const compactor = new Compactor({
  keepRecentTokens: 20_000,
  summarizer: {
    model: "gpt-4.1-mini",
    generate: openAICompatibleGenerator({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY }),
  },
});

export async function POST(request: Request) {
  const { summary, messages }: { summary?: string; messages: Message[] } = await request.json();
  return Response.json(await compactor.compact({ summary, messages, inputTokenBudget: 128_000 - 16_384 }));
}
