// An ES module consumer: your own message type comes back from plan and compact, `using`
// works where the lib has Symbol.dispose, and the format narrows what messages may hold.
import { Compactor, ContextManager, ready, type AnthropicMessage, type Message, type Plan } from "context-compaction";
import { ChatCompaction, aiSdkSummarizer, type ChatCompactionState, type ChatUIMessage } from "context-compaction/ai-sdk";

type MyMessage = Message & { id: string };

export async function preview(messages: readonly MyMessage[]): Promise<string | undefined> {
  await ready();
  const compactor = new Compactor({ keepRecentTokens: 20_000, summarizer: { summarize: async ({ messages }) => `${messages.length} messages` } });
  const plan: Plan<MyMessage> | null = compactor.plan({ messages, inputTokenBudget: 100_000 });
  const first: MyMessage | undefined = plan?.messagesToSummarize[0];
  const result = await compactor.compact({ messages, inputTokenBudget: 100_000 });
  const kept: MyMessage[] = result.messages;
  compactor.free();
  return first?.id ?? kept[0]?.id;
}

type Stored = AnthropicMessage & { createdAt: number };

export function anthropic(messages: Stored[]): number | undefined {
  const compactor = new Compactor({ summarizer: { model: "claude", generate: async () => "summary" } });
  const manager = new ContextManager({ compactor, contextWindowTokens: 200_000 });
  const plan = compactor.plan({ format: "anthropic", messages, systemPrompt: [{ type: "text", text: "You are helpful." }] });
  manager.free();
  return plan?.turnPrefixMessages[0]?.createdAt;
}

export const literal = (compactor: Compactor) =>
  compactor.plan({
    format: "openai-chat",
    messages: [
      { role: "user", content: "hello" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "done" },
    ],
  });

// The AI SDK entry without `ai` installed (an optional peer): its types stand alone.
export async function aiSdk(messages: ChatUIMessage[], state: ChatCompactionState | null): Promise<ChatCompactionState | null> {
  const summarizer = aiSdkSummarizer({ model: "gpt-4.1-mini", generateText: async (call) => ({ text: call.system }) });
  const compaction = new ChatCompaction({ contextWindowTokens: 128_000, summarizer, convertToModelMessages: () => [{ role: "user", content: "hi" }] });
  const chat = await compaction.prepare(messages, state);
  const first: { role: string } | undefined = chat.messages[0];
  compaction.free();
  return first ? chat.stateAfter(messages.at(-1)) : chat.state;
}
