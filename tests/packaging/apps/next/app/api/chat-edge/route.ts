// The chat route on the edge runtime. The edge has no file system, so the state lives where the
// edge reaches it: a Map here (one instance), a KV store such as Upstash Redis in production.
import { convertToModelMessages, generateId, generateText, streamText, type UIMessage } from "ai";
import { ChatCompaction, aiSdkSummarizer, type ChatCompactionState } from "context-compaction/ai-sdk";
import { model, summaryModel, system, tools } from "../../model";

export const runtime = "edge";

const states = new Map<string, ChatCompactionState | null>();
const compaction = new ChatCompaction({
  contextWindowTokens: 128_000,
  system,
  summarizer: aiSdkSummarizer({ model: summaryModel, generateText }),
  convertToModelMessages,
});

export async function POST(request: Request) {
  const { id, messages }: { id: string; messages: UIMessage[] } = await request.json();
  const chat = await compaction.prepare(messages, states.get(id));
  const result = streamText({ model, system, tools, messages: chat.messages, prepareStep: chat.prepareStep });
  return result.toUIMessageStreamResponse({
    originalMessages: messages,
    generateMessageId: generateId,
    onFinish: ({ responseMessage }) => void states.set(id, chat.stateAfter(responseMessage)),
  });
}
