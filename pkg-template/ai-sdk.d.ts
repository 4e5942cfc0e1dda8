// `context-compaction/ai-sdk`: the Vercel AI SDK (`ai` 5, 6 and 7). Its functions are passed in
// (`generateText`, `convertToModelMessages`), so these types are structural: the SDK's own
// functions, models and messages fit them without casts.
import type {
  ApplicationSummarizerConfig,
  CompactionError,
  CompactionEvent,
  CompactionRecord,
  CompactorConfig,
  Draft,
  Estimator,
  MaintainReason,
  GeneratorSummarizerConfig,
  HeuristicEstimator,
  Receipt,
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
  /** Quote a split turn's prefix of at most this many estimated tokens instead of a second call (default 1,000; 0 never). */
  quoteTurnPrefixTokens?: number;
  /** The summary model's window: records beyond it are summarized in chunks, oldest first (default: one call, however large). */
  contextWindowTokens?: number;
  temperature?: number;
  headers?: Record<string, string | undefined>;
}

/**
 * A summarizer config over an AI SDK model. Usage is mapped into the record; the SDK's errors
 * decide retries (`isRetryable`, `statusCode`); an aborted signal cancels.
 */
export declare function aiSdkSummarizer<Model extends object | string>(options: AiSdkSummarizerOptions<Model>): GeneratorSummarizerConfig;

/** The usage `messageMetadata` records: what the provider counted for the response's last step. */
export interface ChatUsageMetadata {
  usage: {
    /** The last step's prompt (its request held the steps before it). */
    inputTokens: number;
    outputTokens: number;
    /** Hidden reasoning counted in `outputTokens`, never sent again. */
    reasoningTokens: number;
  };
}

/**
 * For `toUIMessageStreamResponse({ messageMetadata })`: records the usage of each step as it
 * ends (the stream's `finish-step` part) on the response message's `metadata.usage`, the last
 * step's winning, which is what the route's next estimate is anchored to. (The AI SDK's own
 * example records `totalUsage.totalTokens`, summed over every step of a tool loop.) `undefined`
 * for every other part. The parameter is structural: the SDK's `{ part }` of `ai` 5 to 7 fits.
 */
export declare function messageMetadata(options: {
  part: { type: string; usage?: { inputTokens?: number | undefined; outputTokens?: number | undefined; reasoningTokens?: number | undefined; outputTokenDetails?: { reasoningTokens?: number | undefined } } };
}): ChatUsageMetadata | undefined;

/** What a route stores per chat between requests (JSON-serialisable). */
export interface ChatCompactionState {
  /** The summary of everything before the kept messages. */
  summary: string;
  /** The id of the UIMessage the kept messages start at. */
  firstKeptId: string;
  /** The part of that message they start at (a step of a long assistant message; 0: all of it). */
  firstKeptPart: number;
  /** The compaction that produced this state (`kind: "clear"` for a clearing). */
  record: ChatCompactionRecord | null;
  /**
   * The tool results cleared so far (option `clearing`), cleared again on every request so
   * that the model is sent the same messages each turn. Absent when none are.
   */
  cleared?: ClearedToolResult[];
}

export type { Draft } from "./index.js";

/** A chat route's record: its receipt says where in the posted UIMessages a summary starts. */
export interface ChatCompactionRecord extends CompactionRecord {
  receipt: ChatReceipt;
}

/**
 * What a chat's compaction covered. A summary covers the posted UIMessages from `firstId` (its
 * part `firstPart` on) up to the state's `firstKeptId` (its parts before `firstKeptPart`):
 * `summarizedMessages` of them when `prepare` made it (between the steps of a tool loop the
 * count is of model messages). Only the first id is stored, so the state stays the same size
 * however long the chat; the app holds the messages in between.
 */
export interface ChatReceipt extends Receipt {
  /** The first UIMessage a summary covers (absent for a clearing, which summarizes nothing). */
  firstId?: string;
  /** The part of it the summary starts at (a later step of it when an earlier summary ended there). */
  firstPart?: number;
}

/** One cleared tool result of a chat: where it is and what replaced it. */
export interface ClearedToolResult {
  /** The id of the UIMessage that holds the tool part. */
  messageId: string;
  toolCallId: string;
  /**
   * The part where the step holding the tool part starts in the message (a `step-start`
   * part), left out for the first step: a model that numbers its calls per response has
   * `call_0` in every step.
   */
  part?: number;
  /** The placeholder its output was replaced with. */
  text: string;
  /** The call's arguments were cleared too (`clearing.clearArguments`, or large ones by default). */
  arguments?: boolean;
}

/** The `clearing` option: the `Compactor`'s config section (off by default; `true` for the defaults). */
export type ChatClearingOptions = CompactorConfig["clearing"];

/** A UIMessage as this entry reads it (the SDK's `UIMessage` of `ai` 5 to 7 fits). */
export interface ChatUIMessage {
  id: string;
  role: "system" | "user" | "assistant";
  parts: ReadonlyArray<{ type: string }>;
}

/**
 * `convertToModelMessages` from `"ai"`, or a function around it (`(messages) =>
 * convertToModelMessages(messages, { tools })`). It is called with UIMessages, one step block at
 * a time; its parameter is typed `never[]` so that the SDK's own (generic) function fits.
 */
export type ConvertToModelMessages<ModelMessage> = (messages: never[]) => ModelMessage[] | PromiseLike<ModelMessage[]>;

/** The summary as the model receives it: one user message in front of the kept ones. */
export interface ProjectedSummary {
  role: "user";
  content: string;
}

export interface ChatCompactionOptions<ModelMessage> {
  /**
   * The summary model (`aiSdkSummarizer`), or an application summarizer: `prepare` plans and
   * summarizes the posted UIMessages (format `ai-sdk-ui`, as `ChatPreview` plans them), so
   * that one is handed UIMessages; between the steps of a request, the steps' model messages.
   */
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
  convertToModelMessages: ConvertToModelMessages<ModelMessage>;
  onEvent?: (event: CompactionEvent) => unknown;
  /** `prepareAhead`'s mark, a fraction of the threshold (above 0, at most 1; default 0.7). */
  aheadRatio?: number;
  /**
   * Clear old tool results before paying for a summary (off by default): `true`, or `{
   * protectRecentTokens, neverClear, clearArguments }` as in the `Compactor` config.
   */
  clearing?: ChatClearingOptions;
  /** Trim the middle of a user message too large for the window instead of failing, as the `Compactor` config's `trimOversized`. */
  trimOversized?: boolean;
}

/** The AI SDK's `prepareStep` options this entry reads. */
export interface StepOptions<ModelMessage> {
  messages: ModelMessage[];
  steps?: ReadonlyArray<unknown>;
  abortSignal?: AbortSignal;
}

/** A `prepareStep` for `streamText`/`generateText`: the step's messages, compacted when due. */
export type PrepareStep<ModelMessage> = (options: StepOptions<ModelMessage>) => Promise<{ messages: Array<ModelMessage | ProjectedSummary> } | undefined>;

export interface PreparedChat<ModelMessage> {
  /** What to send: the summary's projection first, then the kept messages. */
  messages: Array<ModelMessage | ProjectedSummary>;
  /** The chat's state after this request's compaction (`null`: nothing compacted yet). */
  state: ChatCompactionState | null;
  compacted: boolean;
  /** What maintenance did: `"cleared"` when clearing old tool results was enough, `"compacted"` for a summary. */
  reason: MaintainReason;
  record: ChatCompactionRecord | null;
  /** Why a due compaction failed (the messages are then the uncompacted ones). */
  error?: CompactionError;
  /** What became of `options.pending` when it was due: committed (no summary waited for) or discarded (stale). */
  pending?: "committed" | "discarded";
  /** Compacts between the steps of this request's tool loop. */
  prepareStep: PrepareStep<ModelMessage>;
  /**
   * The state to store once the response is complete (`onFinish`'s `responseMessage`; give the
   * route `generateMessageId` so that its id is the one the client keeps).
   */
  stateAfter(responseMessage?: ChatUIMessage): ChatCompactionState | null;
  /**
   * `compaction.prepareAhead` for the chat once the response is complete: the posted messages
   * with `responseMessage`, `stateAfter(responseMessage)`, and the `pending` summary given to
   * `prepare` while it was not due. Run it off the request path (`after()`, `ctx.waitUntil`).
   */
  prepareAhead(responseMessage?: ChatUIMessage, options?: { signal?: AbortSignal; focus?: string }): Promise<PendingSummary | null>;
}

/**
 * A summary made ahead of time (`prepareAhead`), to store beside the chat's state and hand to
 * the next `prepare`: its cut is a UIMessage id and a part, as the state's is.
 */
export interface PendingSummary extends Draft {
  firstKeptId: string | null;
}

/** The options of `prepare` and `prepareAhead`. */
export interface ChatCallOptions {
  signal?: AbortSignal;
  /** What a summary made by this call should focus on. */
  focus?: string | null;
  /** The pending summary `prepareAhead` made for this chat (a stale one is discarded, harmless). */
  pending?: PendingSummary | null;
}

export interface ChatCompaction<ModelMessage = unknown> extends Disposer {}
/** Compaction for an AI SDK chat route: stored state per chat, compaction between steps. */
export declare class ChatCompaction<ModelMessage = unknown> {
  constructor(options: ChatCompactionOptions<ModelMessage>);
  /**
   * The model messages to send for the UIMessages the client posted and the chat's stored
   * state: the summary first, the compacted prefix dropped, compacting when maintenance says so.
   */
  prepare(messages: readonly ChatUIMessage[], state: ChatCompactionState | null | undefined, options?: ChatCallOptions): Promise<PreparedChat<ModelMessage>>;
  /**
   * Ahead-of-time compaction after a response, off the request path: above the ahead mark
   * (`aheadRatio` of the threshold, default 0.7), the summary the next compaction would make,
   * to store beside the chat's state; `options.pending` while it still covers the chat; else
   * `null`. Rejects when the summary fails or is aborted: keep what you stored.
   */
  prepareAhead(messages: readonly ChatUIMessage[], state: ChatCompactionState | null | undefined, options?: ChatCallOptions): Promise<PendingSummary | null>;
  /** A `prepareStep` for one tool loop with no stored chat state (make one per loop). */
  prepareStep(options?: { signal?: AbortSignal }): PrepareStep<ModelMessage>;
  free(): void;
}

export interface ChatPreviewOptions {
  /** The same window, reserve and thresholds as the route's `ChatCompaction`. */
  contextWindowTokens: number;
  reserveTokens?: number;
  maxOutputTokens?: number;
  keepRecentTokens?: number;
  triggerRatio?: number;
  system?: string;
  estimator?: Estimator | HeuristicEstimator;
  /** The route's `clearing` option. */
  clearing?: ChatClearingOptions;
  /** The route's `trimOversized` option (a preview does not trim). */
  trimOversized?: boolean;
}

/** One UIMessage in a preview. */
export interface PreviewMessage {
  id: string;
  role: "system" | "user" | "assistant";
  /** Estimated tokens of what it sends. */
  tokens: number;
  /**
   * `split`: summarized up to `firstKeptPart`, kept from there; `cleared`: holds results a clear
   * plan clears; `pinned`: before the cut but pinned (`metadata.pinned`), sent after the summary.
   */
  fate: "summarized" | "kept" | "split" | "cleared" | "pinned";
  firstKeptPart?: number;
}

/** A tool result a clear plan of the preview would clear. */
export interface PreviewClearedResult {
  /** The UIMessage that holds it. */
  id: string | null;
  toolCallId: string;
  toolName: string | null;
  /** Its estimated tokens before. */
  tokens: number;
  /** The placeholder that would replace it. */
  text: string;
}

export type ChatPreviewPlan = ChatPreviewSummaryPlan | ChatPreviewClearPlan;

/** Clearing old tool results is enough (option `clearing`): nothing is summarized. */
export interface ChatPreviewClearPlan {
  kind: "clear";
  firstKeptId: null;
  firstKeptPart: 0;
  splitTurn: false;
  estimateBefore: number;
  estimateAfterWithoutSummary: number;
  estimateAfter: number;
  tokensFreed: number;
  cleared: PreviewClearedResult[];
  messages: PreviewMessage[];
}

export interface ChatPreviewSummaryPlan {
  kind: "summary";
  /** Where the kept messages would start: a message id and a part index in it. */
  firstKeptId: string | null;
  firstKeptPart: number;
  splitTurn: boolean;
  estimateBefore: number;
  estimateAfterWithoutSummary: number;
  /** The messages still live (after the stored summary), in order. */
  messages: PreviewMessage[];
}

/**
 * A summary made ahead of time and not applied, as the app stores it beside the chat state: a
 * draft as `compactor.draft` gives it, located in the posted UIMessages by `firstKeptId` and
 * `firstKeptPart` (a part of that message as posted, as the state's).
 */
export type ChatPendingDraft = Pick<Draft, "summary" | "firstKeptId" | "firstKeptPart" | "digest" | "previousDigest">;

/** A pending summary as the preview shows it. */
export interface ChatPreviewPending {
  summary: string;
  firstKeptId: string | null;
  firstKeptPart: number;
  /**
   * Whether it still covers the messages: the state's summary is the one it replaces and
   * nothing it summarizes changed (what the route's commit of it checks). `false`: it would
   * be discarded and the ordinary compaction run.
   */
  covers: boolean;
}

export interface ChatPreview extends Disposer {}
/** What the route would compact, from `useChat`'s messages; `plan()` is cheap (every keystroke). */
export declare class ChatPreview {
  constructor(options: ChatPreviewOptions);
  /**
   * Takes the current messages (and the chat's state, if the page has it, and the pending
   * summary stored beside it); reads only what is new. An update without `pending` drops it.
   */
  update(messages: readonly ChatUIMessage[], state?: ChatCompactionState | null, options?: { pending?: ChatPendingDraft | null }): void;
  /** `null` when nothing would be compacted; with a pending summary that covers the messages, what the route does with it: its cut, or, when the chat outran it, the cut of the summary the route makes next over what the commit left. */
  plan(): ChatPreviewPlan | null;
  /** The pending summary given to `update`, and whether it still covers the messages; `null` without one. */
  pending(): ChatPreviewPending | null;
  free(): void;
}
