// The models, system prompt and tools of the chat route. In this app the AI SDK's mock model
// (`ai/test`) stands in for a provider such as `openai("gpt-4.1")`: it answers every turn.
import { simulateReadableStream, type LanguageModel, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";

const usage = { inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 10, text: 10, reasoning: 0 } };

export const model: LanguageModel = new MockLanguageModelV3({
  doStream: async () => ({
    stream: simulateReadableStream({
      chunks: [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hello from the mock model." },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ],
    }),
  }),
});

export const summaryModel: LanguageModel = new MockLanguageModelV3({
  doGenerate: async () => ({ content: [{ type: "text", text: "## Goal\nA summary." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
});

export const system = "You are a helpful assistant.";
export const tools: ToolSet = {};
