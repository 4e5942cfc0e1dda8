// `context-compaction/ai-sdk`: the Vercel AI SDK (`ai` 5, 6 and 7). Its functions are passed in
// (`generateText`, `convertToModelMessages`), so these types are structural: the SDK's own
// functions, models and messages fit them without casts.
import type {
  ApplicationSummarizerConfig,
  CompactionError,
  CompactionEvent,
  CompactionRecord,
  Estimator,
  GeneratorSummarizerConfig,
  HeuristicEstimator,
} from "./index.js";

// `[Symbol.dispose]` where the consumer's lib declares `Symbol.dispose` (as in index.d.ts).
type DisposeSymbol = SymbolConstructor extends { readonly dispose: infer K extends symbol } ? K : never;
type Disposer = { [K in DisposeSymbol]: () => void };

/** What the summarizer passes to `generateText` (its retries off: the package retries). */
export interface AiSdkGenerateCall<Model> {
  model: Model;
  system: string;
  messages: Array<{ role: "user"; content: string }>;
  maxOutputTokens?: number;
  abortSignal?: AbortSignal;
  maxRetries: number;
  temperature?: number;
  headers?: Record<string, string | undefined>;
}

export interface AiSdkSummarizerOptions<Model> {
  /** A language model (`openai("gpt-4.1-mini")`, a mock from `ai/test`) or a model id string. */
  model: Model;
  /** `generateText` from `"ai"`. */
  generateText: (call: AiSdkGenerateCall<Model>) => PromiseLike<{ readonly text: string }>;
  maxOutputTokens?: number;
  systemPrompt?: string;
  /** Waits before each retry (default 2 s, 4 s). */
  retry?: { delaysMs?: readonly number[] };
  temperature?: number;
  headers?: Record<string, string | undefined>;
}

/**
 * A summarizer config over an AI SDK model. Usage is mapped into the record; the SDK's errors
 * decide retries (`isRetryable`, `statusCode`); an aborted signal cancels.
 */
export declare function aiSdkSummarizer<Model extends object | string>(options: AiSdkSummarizerOptions<Model>): GeneratorSummarizerConfig;

/** What a route stores per chat between requests (JSON-serialisable). */
export interface ChatCompactionState {
  /** The summary of everything before the kept messages. */
  summary: string;
  /** The id of the UIMessage the kept messages start at. */
  firstKeptId: string;
  /** The part of that message they start at (a step of a long assistant message; 0: all of it). */
  firstKeptPart: number;
  /** The compaction that produced this state. */
  record: CompactionRecord | null;
}

/** The parts of a UIMessage this entry reads (the SDK's `UIMessage` fits). */
export interface ChatUIMessage {
  id: string;
  role: "system" | "user" | "assistant";
  parts: ReadonlyArray<{ type: string }>;
}

/** `convertToModelMessages` from `"ai"` (or a function around it, e.g. one passing `{ tools }`). */
export type ConvertToModelMessages<UI, ModelMessage> = (messages: UI[]) => ModelMessage[] | PromiseLike<ModelMessage[]>;

export interface ChatCompactionOptions<UI, ModelMessage> {
  summarizer: GeneratorSummarizerConfig | ApplicationSummarizerConfig;
  /** The model's context window; compaction starts above `triggerRatio` of it minus the reserve. */
  contextWindowTokens: number;
  /** Tokens kept free for the answer (default 16,384); a larger `maxOutputTokens` wins. */
  reserveTokens?: number;
  maxOutputTokens?: number;
  /** The latest tokens kept word for word (default 20,000). */
  keepRecentTokens?: number;
  triggerRatio?: number;
  /** The route's system prompt (it counts towards the window). */
  system?: string;
  estimator?: Estimator | HeuristicEstimator;
  convertToModelMessages: ConvertToModelMessages<UI, ModelMessage>;
  onEvent?: (event: CompactionEvent) => unknown;
}

/** The AI SDK's `prepareStep` options this entry reads. */
export interface StepOptions<ModelMessage> {
  messages: ModelMessage[];
  steps?: ReadonlyArray<unknown>;
  abortSignal?: AbortSignal;
}

export type PrepareStep<ModelMessage> = (options: StepOptions<ModelMessage>) => Promise<{ messages: ModelMessage[] } | undefined>;

export interface PreparedChat<UI, ModelMessage> {
  /** What to send: the summary's projection first, then the kept messages. */
  messages: Array<ModelMessage | { role: "user"; content: string }>;
  /** The chat's state after this request's compaction (`null`: nothing compacted yet). */
  state: ChatCompactionState | null;
  compacted: boolean;
  record: CompactionRecord | null;
  /** Why a due compaction failed (the messages are then the uncompacted ones). */
  error?: CompactionError;
  /** For `streamText`/`generateText`: compacts between the steps of this request's tool loop. */
  prepareStep: PrepareStep<ModelMessage>;
  /** The state to store once the response is complete (with a compaction made between steps). */
  stateAfter(responseMessage?: UI & { id: string }): ChatCompactionState | null;
}

export interface ChatCompaction<UI = ChatUIMessage, ModelMessage = unknown> extends Disposer {}
/** Compaction for an AI SDK chat route: stored state per chat, compaction between steps. */
export declare class ChatCompaction<UI = ChatUIMessage, ModelMessage = unknown> {
  constructor(options: ChatCompactionOptions<UI, ModelMessage>);
  /** The model messages to send for the UIMessages the client posted and the chat's stored state. */
  prepare(messages: ReadonlyArray<UI & { id: string }>, state: ChatCompactionState | null | undefined, options?: { signal?: AbortSignal }): Promise<PreparedChat<UI, ModelMessage>>;
  /** A `prepareStep` for one tool loop with no stored chat state (a fresh one per loop). */
  prepareStep(options?: { signal?: AbortSignal }): PrepareStep<ModelMessage>;
  free(): void;
}

export interface ChatPreviewOptions<UI, ModelMessage> {
  contextWindowTokens: number;
  reserveTokens?: number;
  maxOutputTokens?: number;
  keepRecentTokens?: number;
  triggerRatio?: number;
  system?: string;
  estimator?: Estimator | HeuristicEstimator;
  convertToModelMessages: ConvertToModelMessages<UI, ModelMessage>;
}

/** One UIMessage in a preview. */
export interface PreviewMessage {
  id: string;
  role: string;
  /** Estimated tokens of what it sends. */
  tokens: number;
  /** `split`: summarized up to `firstKeptPart`, kept from there. */
  fate: "summarized" | "kept" | "split";
  firstKeptPart?: number;
}

export interface ChatPreviewPlan {
  firstKeptId: string | null;
  firstKeptPart: number;
  splitTurn: boolean;
  estimateBefore: number;
  estimateAfterWithoutSummary: number;
  messages: PreviewMessage[];
}

export interface ChatPreview<UI = ChatUIMessage, ModelMessage = unknown> extends Disposer {}
/** What the route would compact, from `useChat`'s messages; `plan()` is cheap (every keystroke). */
export declare class ChatPreview<UI = ChatUIMessage, ModelMessage = unknown> {
  constructor(options: ChatPreviewOptions<UI, ModelMessage>);
  /** Takes the current messages (and the chat's state, if the page has it); converts what changed. */
  update(messages: ReadonlyArray<UI & { id: string }>, state?: ChatCompactionState | null): Promise<void>;
  /** `null` when nothing would be compacted. */
  plan(): ChatPreviewPlan | null;
  free(): void;
}
