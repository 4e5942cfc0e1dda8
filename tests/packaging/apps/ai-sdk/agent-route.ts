// The chat route in the AI SDK's agent form: `createAgentUIStreamResponse` runs the agent on the
// chat that `ChatCompaction` prepared from the posted history and the stored state.
import { convertToModelMessages, createAgentUIStreamResponse, generateId, generateText, type UIMessage } from "ai";
import { ChatCompaction, aiSdkSummarizer, messageMetadata } from "context-compaction/ai-sdk";
import { agent } from "../../agent";
import { compactionOptions } from "../../compaction";
import { summaryModel, system } from "../../model";
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
  return createAgentUIStreamResponse({
    agent,
    uiMessages: messages,
    options: chat,
    generateMessageId: generateId, // stable ids: the stored state refers to them
    messageMetadata, // what the provider counted, read by the next request's prepare
    onEnd: ({ responseMessage }) => chats.save(id, chat.stateAfter(responseMessage)),
  });
}

// The chat's stored state, for the page's preview (after a compaction it needs the summary).
export async function GET(request: Request) {
  return Response.json(await chats.load(new URL(request.url).searchParams.get("id") ?? ""));
}
