// The README's chat route for `ai` 5 and 6, which have no standalone `toUIMessageStream`, no
// `onEnd` and no `instructions`: the result's own method, `onFinish` and `system`.
import { convertToModelMessages, createUIMessageStreamResponse, generateId, generateText, streamText, type UIMessage } from "ai";
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
  const result = streamText({ model, system, tools, messages: chat.messages, prepareStep: chat.prepareStep, stopWhen: ({ steps }) => steps.length >= 30 });
  const stream = result.toUIMessageStream({
    originalMessages: messages,
    generateMessageId: generateId, // stable ids: the stored state refers to them
    messageMetadata, // what the provider counted, read by the next request's prepare
    onFinish: ({ responseMessage }) => chats.save(id, chat.stateAfter(responseMessage)),
  });
  return createUIMessageStreamResponse({ stream });
}

// The chat's stored state, for the page's preview (after a compaction it needs the summary).
export async function GET(request: Request) {
  return Response.json(await chats.load(new URL(request.url).searchParams.get("id") ?? ""));
}
