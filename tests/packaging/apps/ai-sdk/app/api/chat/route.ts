// A chat route that keeps every chat inside the model's window: `useChat` posts the whole
// history each turn; the compaction state stored per chat says what its summary covers.
import { convertToModelMessages, createUIMessageStreamResponse, generateId, generateText, streamText, toUIMessageStream, type UIMessage } from "ai";
import { ChatCompaction, aiSdkSummarizer, messageMetadata } from "context-compaction/ai-sdk";
import { compactionOptions } from "../../compaction";
import { model, summaryModel, system, tools } from "../../model";
import { chats } from "../../store";

const compaction = new ChatCompaction({
  ...compactionOptions,
  system,
  summarizer: aiSdkSummarizer({ model: summaryModel, generateText }),
  convertToModelMessages,
});

export async function POST(request: Request) {
  const { id, messages }: { id: string; messages: UIMessage[] } = await request.json();
  const chat = await compaction.prepare(messages, await chats.load(id));
  const result = streamText({ model, instructions: system, tools, messages: chat.messages, prepareStep: chat.prepareStep, stopWhen: ({ steps }) => steps.length >= 30 });
  const stream = toUIMessageStream({
    stream: result.stream,
    tools,
    originalMessages: messages,
    generateMessageId: generateId, // stable ids: the stored state refers to them
    messageMetadata, // what the provider counted, read by the next request's prepare
    onEnd: ({ responseMessage }) => chats.save(id, chat.stateAfter(responseMessage)),
  });
  return createUIMessageStreamResponse({ stream });
}

// The chat's stored state, for the page's preview (after a compaction it needs the summary).
export async function GET(request: Request) {
  return Response.json(await chats.load(new URL(request.url).searchParams.get("id") ?? ""));
}
