// The AI SDK's own message types, from `ai` 5, 6 and 7, go into the ai-sdk formats as they are:
// no casts. Type-checked by scripts/test-js against the packed package's types.
import type { ModelMessage as Model5, UIMessage as UI5 } from "ai5";
import type { ModelMessage as Model6, UIMessage as UI6 } from "ai6";
import type { ModelMessage as Model7, UIMessage as UI7 } from "ai7";
import { convertToModelMessages } from "ai7";
import { Compactor, ContextManager, estimate, projectSummary, type BytesPlan, type Plan } from "context-compaction";
import type { StreamTextResult as Result5, ToolSet as Tools5 } from "ai5";
import type { StreamTextResult as Result6, ToolSet as Tools6 } from "ai6";
import type { StreamTextResult as Result7, ToolSet as Tools7 } from "ai7";
import { ChatCompaction, ChatPreview, messageMetadata, type ChatCompactionState, type ClearedToolResult, type PendingSummary } from "context-compaction/ai-sdk";

declare const compactor: Compactor;
declare const model5: Model5[];
declare const model6: Model6[];
declare const model7: Model7[];
declare const ui5: UI5[];
declare const ui6: UI6[];
declare const ui7: UI7[];

// A chat's own UIMessage type: metadata, data parts and tools typed.
type ChatMessage = UI7<{ createdAt: number }, { progress: { done: number } }, { weather: { input: { city: string }; output: string } }>;
declare const chat: ChatMessage[];

export async function models(): Promise<void> {
  compactor.plan({ format: "ai-sdk", messages: model5, inputTokenBudget: 1000 });
  compactor.plan({ format: "ai-sdk", messages: model6, inputTokenBudget: 1000 });
  const plan: Plan<Model7> | null = compactor.plan({ format: "ai-sdk", messages: model7, inputTokenBudget: 1000 });
  const kept: Model7[] = (await compactor.apply({ format: "ai-sdk", messages: model7 }, plan)).messages;
  void kept;
  estimate({ format: "ai-sdk", messages: model6 });
  // Written by hand, with the parts of the newest version.
  compactor.plan({
    format: "ai-sdk",
    messages: [
      { role: "system", content: "Be brief.", providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } },
      { role: "user", content: [{ type: "text", text: "hi", providerOptions: { openai: {} } }, { type: "file", data: "AAAA", mediaType: "image/png" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "look" },
          { type: "custom", kind: "openai.compaction" },
          { type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Oslo" } },
          { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-approval-response", approvalId: "a1", approved: false, reason: "no" },
          { type: "tool-result", toolCallId: "c1", toolName: "weather", output: { type: "execution-denied", reason: "no" } },
        ],
      },
    ],
  });
}

export async function uiMessages(): Promise<void> {
  compactor.plan({ format: "ai-sdk-ui", messages: ui5, inputTokenBudget: 1000 });
  compactor.plan({ format: "ai-sdk-ui", messages: ui6, inputTokenBudget: 1000 });
  const plan: Plan<ChatMessage> | null = compactor.plan({ format: "ai-sdk-ui", messages: chat, inputTokenBudget: 1000 });
  if (plan) {
    const where: [string | null, number] = [plan.firstKeptId, plan.firstKeptPart];
    void where;
  }
  const result = await compactor.compact({ format: "ai-sdk-ui", messages: chat });
  const first: ChatMessage | undefined = result.messages[0];
  void first?.metadata?.createdAt;
  const conversation = compactor.conversation({ format: "ai-sdk-ui", messages: ui7 });
  conversation.append(ui7[0]);
  const bytes: BytesPlan | null = compactor.planBytes(JSON.stringify(ui7), { format: "ai-sdk-ui" });
  void bytes?.firstKeptPart;
  const summary = projectSummary("S", "ai-sdk-ui");
  if (summary) ui7.unshift(summary);
  const manager = new ContextManager({ compactor, contextWindowTokens: 128_000 });
  await manager.maintain({ format: "ai-sdk-ui", messages: chat });
  // @ts-expect-error UIMessages are not ModelMessages (convertToModelMessages turns them into those).
  compactor.plan({ format: "ai-sdk", messages: ui7 });
  // @ts-expect-error ModelMessages have no parts.
  compactor.plan({ format: "ai-sdk-ui", messages: model7 });
}

// The chat entry with clearing on: the option is the Compactor's, the state lists what was cleared.
export async function clearingChat(state: ChatCompactionState | null): Promise<ChatCompactionState | null> {
  const compaction = new ChatCompaction<Model7>({
    contextWindowTokens: 128_000,
    summarizer: { summarize: () => "S" },
    convertToModelMessages,
    clearing: { protectRecentTokens: 20_000, neverClear: ["todo"], clearArguments: true },
  });
  const chat = await compaction.prepare(ui7, state, { pending: null, focus: "the tests" });
  // Ahead of time: the pending summary to store beside the state, by UIMessage id and part.
  const pending: PendingSummary | null = await chat.prepareAhead(ui7.at(-1));
  const again = await compaction.prepareAhead(ui7, chat.stateAfter(ui7.at(-1)), { pending });
  void [pending?.firstKeptId, pending?.firstKeptPart, again?.digest, chat.pending];
  const reason: "cleared" | "compacted" | string = chat.reason;
  const cleared: ClearedToolResult[] = chat.state?.cleared ?? [];
  void [reason, cleared.map((c) => [c.messageId, c.toolCallId, c.text, c.arguments])];
  // @ts-expect-error clearing is a boolean or the policy object.
  new ChatCompaction<Model7>({ contextWindowTokens: 1, summarizer: { summarize: () => "S" }, convertToModelMessages, clearing: "yes" });
  const preview = new ChatPreview({ contextWindowTokens: 128_000, clearing: true });
  preview.update(ui7, chat.state);
  const plan = preview.plan();
  if (plan?.kind === "clear") void [plan.tokensFreed, plan.cleared.map((c) => c.text)];
  else if (plan) void [plan.firstKeptId, plan.firstKeptPart];
  return chat.stateAfter();
}

// `messageMetadata` goes into each major's UIMessage stream as it is, and alongside one's own.
declare const result5: Result5<Tools5, never>;
declare const result6: Result6<Tools6, never>;
declare const result7: Result7<Tools7, never, never>;
export function metadata(): void {
  result5.toUIMessageStreamResponse({ messageMetadata });
  result6.toUIMessageStreamResponse({ messageMetadata });
  result7.toUIMessageStreamResponse({ messageMetadata });
  result7.toUIMessageStreamResponse({ messageMetadata: ({ part }) => ({ createdAt: Date.now(), ...messageMetadata({ part }) }) });
}
