// A consumer of the package's public types: it must type-check, and every @ts-expect-error
// line proves that a wrong use is rejected.
import {
  Compactor,
  ContextManager,
  anthropicGenerator,
  isContextOverflowError,
  openAICompatibleGenerator,
  type CompactionEvent,
  type MaintainResult,
  type MessageOrigin,
  type AiSdkMessage,
  type AiSdkUIMessage,
  type OpenAIChatMessage,
  type OpenAIResponsesItem,
  CompactionError,
  HeuristicEstimator,
  estimate,
  projectSummary,
  type CompactionResult,
  type Message,
  type Plan,
} from "context-compaction";
import init from "context-compaction/web";

interface StoredMessage {
  role: "user";
  content: string;
  id: number;
}

async function main(): Promise<void> {
  await init();
  const compactor = new Compactor({
    keepRecentTokens: 2000,
    triggerRatio: 0.8,
    summarizer: {
      model: "gpt-4.1-mini",
      generate: async (req, { signal }) => {
        const purpose: "history" | "turnPrefix" = req.purpose;
        void signal;
        return { text: `summary of ${req.messages[0].content.length} chars for ${purpose}`, usage: { input: 1 } };
      },
      retry: { delaysMs: [2000, 4000] },
      quoteTurnPrefixTokens: 500,
    },
  });
  const messages: StoredMessage[] = [{ role: "user", content: "hi", id: 1 }];
  const plan: Plan<StoredMessage> | null = compactor.plan({ messages, inputTokenBudget: 100_000 });
  if (plan) {
    const first: StoredMessage | undefined = plan.messagesToSummarize[0];
    void first?.id;
  }
  const result: CompactionResult<StoredMessage> = await compactor.apply({ messages }, plan, {
    signal: new AbortController().signal,
  });
  const kept: number[] = result.messages.map((m) => m.id);
  void kept;
  const usage = result.record?.usage?.totalTokens;
  void usage;

  const clearing = new Compactor({
    clearing: { protectRecentTokens: 40_000, neverClear: ["memory"], clearArguments: true },
    summarizer: { summarize: () => "summary" },
  });
  const clearPlan = clearing.plan({ messages, inputTokenBudget: 100_000 });
  if (clearPlan?.kind === "clear") {
    const cleared: string | undefined = clearPlan.clearedResults?.[0]?.toolCallId;
    const next: StoredMessage[] | undefined = clearPlan.messages;
    void cleared, next;
  }
  const freed: number | undefined = (await clearing.apply({ messages }, clearPlan)).record?.tokensFreed;
  void freed;
  // @ts-expect-error clearing is a boolean or an object
  new Compactor({ clearing: 3, summarizer: { summarize: () => "" } });

  const app = new Compactor({ summarizer: { summarize: (req) => `${req.messages.length} messages` } });
  await app.compact({ messages: [] as Message[], requireReduction: true });

  const total: number = estimate({ messages, estimator: new HeuristicEstimator({ imageTokens: 85 }) }).total;
  void total;
  const projected = projectSummary("s");
  if (projected) {
    const role: "user" = projected.role;
    void role;
  }
  try {
    compactor.plan({ messages });
  } catch (e) {
    if (e instanceof CompactionError) {
      const code: "invalid_config" | "invalid_request" | "summarization" | "empty_summary" | "no_reduction" | "too_large" | "stale" | "declined" | "aborted" | "not_ready" | "load_failed" = e.code;
      void code;
    }
  }
  const events: CompactionEvent[] = [];
  const manager = new ContextManager({
    compactor,
    contextWindowTokens: 128_000,
    reserveTokens: 16_384,
    onEvent: (event) => {
      events.push(event);
      if (event.type === "compactionEnd") void event.record?.estimateAfter;
      else void event.plan.firstKeptIndex;
    },
  });
  const state = { systemPrompt: "s", summary: "", messages, tools: [], userId: 7 };
  const maintained: MaintainResult<typeof state> = await manager.maintain(state, { maxOutputTokens: 4096, skillTokens: 0 });
  void maintained.state.userId;
  // Ahead of time: a pending draft made after a turn, committed by the next maintenance when due.
  const pending = await manager.prepareAhead(state, { maxOutputTokens: 4096, focus: "the open bugs" });
  const due = await manager.maintain(state, { pending, focus: "the open bugs" });
  const used: "committed" | "discarded" | undefined = due.pending;
  void [used, pending?.digest, pending?.firstKeptIndex];
  // Where each message of the new state came from in the state given.
  const origins: MessageOrigin[] | undefined = due.origins;
  void origins?.map(({ index, part }) => due.state.messages[index] ?? part);
  new ContextManager({ compactor, contextWindowTokens: 128_000, aheadRatio: 0.7 });
  const ran = await manager.run(maintained.state, async (s) => s.messages.length, { isContextOverflow: isContextOverflowError, focus: "the plan" });
  const answer: number = ran.response;
  void answer;
  new Compactor({ summarizer: { model: "m", generate: openAICompatibleGenerator({ baseURL: "http://127.0.0.1:1/v1", apiKey: "k" }) } });
  new Compactor({ summarizer: { model: "m", generate: anthropicGenerator({ apiKey: "k", fetch }) } });
  // @ts-expect-error the manager needs a compactor
  new ContextManager({ contextWindowTokens: 1 });
  // @ts-expect-error state needs messages
  await manager.maintain({ summary: "" });
  // Formats: the request's format says what its messages are.
  const anthropic = [
    { role: "user" as const, content: [{ type: "text" as const, text: "hi" }] },
    { role: "assistant" as const, content: [{ type: "tool_use" as const, id: "t", name: "read", input: { path: "a" } }] },
  ];
  const anthropicPlan = compactor.plan({ format: "anthropic", systemPrompt: [{ type: "text", text: "sys" }], messages: anthropic });
  const firstAnthropic: "user" | "assistant" | undefined = anthropicPlan?.messagesToSummarize[0]?.role;
  void firstAnthropic;
  const chat: OpenAIChatMessage[] = [{ role: "developer", content: "be brief" }, { role: "tool", tool_call_id: "x", content: "ok" }];
  compactor.plan({ format: "openai-chat", messages: chat });
  const items: OpenAIResponsesItem[] = [{ type: "function_call", call_id: "c", name: "bash", arguments: "{}" }, { role: "user", content: "hi" }];
  compactor.plan({ format: "openai-responses", messages: items });
  const ai: AiSdkMessage[] = [{ role: "tool", content: [{ type: "tool-result", toolCallId: "c", toolName: "bash", output: { type: "json", value: { ok: true } } }] }];
  await compactor.compact({ format: "ai-sdk", messages: ai });
  // UIMessages (useChat's): a cut may fall inside one, at `firstKeptPart` (the SDK's own types
  // from ai 5, 6 and 7 are checked in tests/ai-sdk/types.ts).
  const ui: AiSdkUIMessage[] = [
    { id: "u1", role: "user", parts: [{ type: "text", text: "weather?" }], metadata: { at: 1 } },
    {
      id: "a1",
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-weather", toolCallId: "c", state: "output-available", input: { city: "Oslo" }, output: "rain" },
        { type: "data-progress", data: { done: 1 } },
        { type: "dynamic-tool", toolName: "mcp", toolCallId: "d", state: "approval-requested", input: {}, approval: { id: "p" } },
      ],
    },
  ];
  const uiPlan = compactor.plan({ format: "ai-sdk-ui", messages: ui });
  const cutAt: [string | null, number] | undefined = uiPlan ? [uiPlan.firstKeptId, uiPlan.firstKeptPart] : undefined;
  void cutAt;
  const uiSummary = projectSummary("s", "ai-sdk-ui");
  if (uiSummary) ui.unshift(uiSummary);
  // @ts-expect-error a UIMessage needs its parts
  compactor.plan({ format: "ai-sdk-ui", messages: [{ id: "x", role: "user", content: "hi" }] });
  const item = projectSummary("s", "openai-responses");
  if (item) void item.content[0].text;
  // @ts-expect-error an Anthropic request takes Anthropic messages, not canonical tool results
  compactor.plan({ format: "anthropic", messages: [{ role: "toolResult", toolCallId: "x", content: "" }] });
  // @ts-expect-error canonical messages have no tool role
  compactor.plan({ messages: [{ role: "tool", tool_call_id: "x", content: "" }] });
  // @ts-expect-error an unknown format
  compactor.plan({ format: "xml", messages: [] });
  const history = compactor.conversation({ format: "anthropic" });
  history.append({ role: "user", content: "hi" });
  const historyPlan = history.plan({ inputTokenBudget: 1000 });
  const tokens: Float64Array | undefined = historyPlan?.messageTokens;
  void tokens;
  // @ts-expect-error an Anthropic conversation takes Anthropic messages
  history.append({ role: "toolResult", toolCallId: "x", content: "" });
  history.free();
  manager.free();
  compactor.free();
  compactor[Symbol.dispose]();

  // @ts-expect-error a summarizer is required
  new Compactor({ keepRecentTokens: 1 });
  // @ts-expect-error keepRecentTokens is a number
  new Compactor({ keepRecentTokens: "2000", summarizer: { summarize: () => "" } });
  // @ts-expect-error generate and summarize are exclusive
  new Compactor({ summarizer: { model: "m", generate: () => "", summarize: () => "" } });
  // @ts-expect-error a generator summarizer needs a model
  new Compactor({ summarizer: { generate: () => "" } });
  // @ts-expect-error messages are required
  compactor.plan({ inputTokenBudget: 1 });
  // @ts-expect-error messages must be messages
  compactor.plan({ messages: [{ role: "robot", content: "x" }] });
  // @ts-expect-error generate must return text
  new Compactor({ summarizer: { model: "m", generate: async () => 42 } });
  const body = new TextEncoder().encode(JSON.stringify(messages));
  const bytesPlan = compactor.planBytes(body, { format: "canonical", inputTokenBudget: 1000 });
  const spans: Uint32Array | undefined = bytesPlan?.messageSpans;
  await compactor.apply({ messages }, bytesPlan);
  // @ts-expect-error the body holds the messages
  compactor.planBytes(body, { messages });
  // @ts-expect-error apply's plan must be a plan or null
  await compactor.apply({ messages }, { firstKeptIndex: 1 });
  // @ts-expect-error the code is a known string
  const bad: CompactionError["code"] = "oops";
  void bad;
  // What the provider counted: on an answer, or told explicitly.
  const billed: OpenAIChatMessage[] = [
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello", usage: { prompt_tokens: 12, completion_tokens: 2 } },
  ];
  const anchored = estimate({ format: "openai-chat", messages: billed, reportedUsage: { messages: 1, inputTokens: 12 } });
  const ratio: number | undefined = anchored.ratio;
  void ratio;
  // @ts-expect-error reportedUsage needs the number of messages it covers
  estimate({ messages, reportedUsage: { inputTokens: 12 } });
}

void main;
