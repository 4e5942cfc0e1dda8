// A chat route that keeps every chat inside the model's window: `useChat` posts the whole
// history each turn; the compaction state stored per chat says what its summary covers.
import { convertToModelMessages, generateId, generateText, streamText, type UIMessage } from "ai";
import { ChatCompaction, aiSdkSummarizer, messageMetadata } from "context-compaction/ai-sdk";
import { model, summaryModel, system, tools } from "../../model";
import { chats } from "../../store";

const compaction = new ChatCompaction({
  contextWindowTokens: 128_000,
  system,
  summarizer: aiSdkSummarizer({ model: summaryModel, generateText }),
  convertToModelMessages,
});

export async function POST(request: Request) {
  const { id, messages }: { id: string; messages: UIMessage[] } = await request.json();
  const chat = await compaction.prepare(messages, await chats.load(id));
  const result = streamText({ model, system, tools, messages: chat.messages, prepareStep: chat.prepareStep, stopWhen: ({ steps }) => steps.length >= 30 });
  return result.toUIMessageStreamResponse({
    originalMessages: messages,
    generateMessageId: generateId, // stable ids: the stored state refers to them
    messageMetadata, // what the provider counted, read by the next request's prepare
    onFinish: ({ responseMessage }) => chats.save(id, chat.stateAfter(responseMessage)),
  });
}
