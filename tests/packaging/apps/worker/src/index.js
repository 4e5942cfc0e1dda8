// A Cloudflare Worker that compacts the conversation it is sent. wrangler picks the package's
// `workerd` entry, which imports the .wasm as a compiled module.
import { Compactor, openAICompatibleGenerator } from "context-compaction";

export default {
  async fetch(request, env) {
    const compactor = new Compactor({
      keepRecentTokens: 20_000,
      summarizer: { model: "gpt-4.1-mini", generate: openAICompatibleGenerator({ baseURL: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY }) },
    });
    try {
      const { summary, messages } = await request.json();
      return Response.json(await compactor.compact({ summary, messages, inputTokenBudget: 128_000 - 16_384 }));
    } finally {
      compactor.free();
    }
  },
};
