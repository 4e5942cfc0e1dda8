// The AI SDK chat route as a Cloudflare Worker: `useChat` posts { id, messages } here, and each
// chat's compaction state lives in its own Durable Object (one per chat id), in its storage.
import { DurableObject } from "cloudflare:workers";
import { convertToModelMessages, createUIMessageStreamResponse, generateId, generateText, streamText, toUIMessageStream, type UIMessage } from "ai";
import { ChatCompaction, aiSdkSummarizer, type ChatCompactionState } from "context-compaction/ai-sdk";
import { model, summaryModel, system, tools } from "./model";

export class ChatState extends DurableObject<Env> {
  async load(): Promise<ChatCompactionState | null> {
    return (await this.ctx.storage.get<ChatCompactionState | null>("compaction")) ?? null;
  }
  save(state: ChatCompactionState | null): Promise<void> {
    return this.ctx.storage.put("compaction", state);
  }
}

const compaction = new ChatCompaction({
  contextWindowTokens: 128_000,
  system,
  summarizer: aiSdkSummarizer({ model: summaryModel, generateText }),
  convertToModelMessages,
});

export default {
  async fetch(request, env) {
    const { id, messages }: { id: string; messages: UIMessage[] } = await request.json();
    const store = env.CHAT_STATE.get(env.CHAT_STATE.idFromName(id));
    const chat = await compaction.prepare(messages, await store.load());
    const result = streamText({ model, instructions: system, tools, messages: chat.messages, prepareStep: chat.prepareStep, stopWhen: ({ steps }) => steps.length >= 30 });
    const stream = toUIMessageStream({
      stream: result.stream,
      tools,
      originalMessages: messages,
      generateMessageId: generateId, // stable ids: the stored state refers to them
      onEnd: ({ responseMessage }) => store.save(chat.stateAfter(responseMessage)),
    });
    return createUIMessageStreamResponse({ stream });
  },
} satisfies ExportedHandler<Env>;
