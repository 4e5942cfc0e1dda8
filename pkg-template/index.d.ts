// Types of the context-compaction package (hand-kept: the generated glue types say `any`).

// `[Symbol.dispose]` (same as `free()`) where the consumer's TypeScript lib declares
// `Symbol.dispose` (esnext.disposable, or @types/node); without it the key is simply absent, so
// no `lib` setting or `skipLibCheck` is needed.
type DisposeSymbol = SymbolConstructor extends { readonly dispose: infer K extends symbol } ? K : never;
type Disposer = { [K in DisposeSymbol]: () => void };

/** Why an assistant message ended; `error` and `aborted` mark failed attempts. */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface TextBlock {
  type: "text";
  text: string;
}
export interface ImageBlock {
  type: "image";
  data?: string;
  mimeType?: string;
  url?: string;
}
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
}
export interface ToolCallBlock {
  type: "toolCall";
  id: string;
  name: string;
  arguments: unknown;
}

export interface MessageUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
}

/** A message from the person; it starts a turn. Extra fields are kept (results hand back your objects). */
export interface UserMessage {
  role: "user";
  content: string | ReadonlyArray<TextBlock | ImageBlock>;
  /** `true`: never summarized or cleared; kept after the summary, in order (docs/behaviour.md). */
  pinned?: boolean;
}
export interface AssistantMessage {
  role: "assistant";
  content: string | ReadonlyArray<TextBlock | ThinkingBlock | ToolCallBlock>;
  stopReason?: StopReason;
  errorMessage?: string;
  usage?: MessageUsage;
  /** `true` pins the message (never summarized); its tool results must be pinned with it. */
  pinned?: boolean;
}
export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName?: string;
  content: string | ReadonlyArray<TextBlock | ImageBlock>;
  isError?: boolean;
}
/** The canonical message shape (the default `format`; see docs/formats.md). */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON schema of the arguments. */
  parameters?: unknown;
}

/** A tokenizer the host provides; `HeuristicEstimator` is the built-in one. */
export interface Estimator {
  countTokens(text: string): number;
  /** Tokens one image counts (default 1,200). */
  imageTokens?: number;
}

// ---- Other formats (the `format` option): the providers' and frameworks' own shapes. ----

type Part<T extends string, F = {}> = { type: T } & F;

/** OpenAI Chat Completions messages (`format: "openai-chat"`). */
export type OpenAIChatMessage =
  | { role: "system" | "developer"; content: string | ReadonlyArray<Part<"text", { text: string }>>; name?: string }
  | {
      role: "user";
      content:
        | string
        | ReadonlyArray<
            | Part<"text", { text: string }>
            | Part<"image_url", { image_url: { url: string; detail?: string } }>
            | Part<"input_audio", { input_audio: { data: string; format: string } }>
            | Part<"file", { file: Record<string, unknown> }>
          >;
      name?: string;
    }
  | {
      role: "assistant";
      content?: string | null | ReadonlyArray<Part<"text", { text: string }> | Part<"refusal", { refusal: string }>>;
      refusal?: string | null;
      tool_calls?: ReadonlyArray<{ id: string; type?: "function"; function: { name: string; arguments: string } }>;
      function_call?: { name: string; arguments: string } | null;
      /** The participant's name (counted, not summarized). */
      name?: string;
      /** What the provider counted for the request that produced it (anchoring, calibration). */
      usage?: ProviderUsage;
    }
  | { role: "tool"; tool_call_id: string; content: string | ReadonlyArray<Part<"text", { text: string }>> }
  | { role: "function"; name: string; content: string | null };

type ResponsesContent = string | ReadonlyArray<
  | Part<"input_text" | "output_text", { text: string }>
  | Part<"refusal", { refusal: string }>
  | Part<"input_image" | "input_file" | "input_audio", Record<string, unknown>>
>;

/** OpenAI Responses API input items (`format: "openai-responses"`); unknown item types are counted as opaque. */
export type OpenAIResponsesItem =
  | { type?: "message"; role: "user" | "assistant" | "system" | "developer"; content: ResponsesContent; id?: string; status?: string; usage?: ProviderUsage }
  | { type: "function_call"; call_id: string; name: string; arguments: string; id?: string; status?: string }
  | { type: "function_call_output"; call_id: string; output: string | ResponsesContent; id?: string }
  | { type: "reasoning"; summary: ReadonlyArray<Part<"summary_text", { text: string }>>; encrypted_content?: string | null; id?: string }
  /** A provider summary from `/responses/compact` or `context_management`: counted as what it decrypts to, returned as it is. */
  | { type: "compaction"; encrypted_content: string; id?: string; created_by?: string }
  | { type: `${string}_call` | `${string}_output` | `${string}_item`; [key: string]: unknown };

type AnthropicText = Part<"text", { text: string; citations?: unknown }>;
type AnthropicAttachment = Part<"image" | "document" | "search_result", Record<string, unknown>>;

/** Anthropic Messages API messages (`format: "anthropic"`). */
export type AnthropicMessage =
  | {
      role: "user";
      content:
        | string
        | ReadonlyArray<
            | AnthropicText
            | AnthropicAttachment
            | Part<"tool_result", { tool_use_id: string; content?: string | ReadonlyArray<AnthropicText | AnthropicAttachment>; is_error?: boolean }>
          >;
    }
  | {
      role: "assistant";
      content:
        | string
        | ReadonlyArray<
            | AnthropicText
            | Part<"thinking", { thinking: string; signature?: string }>
            | Part<"redacted_thinking", { data: string }>
            /** Server-side compaction's summary (`null` when none was made): counted as text, returned as it is. */
            | Part<"compaction", { content: string | null }>
            | Part<"tool_use" | `${string}_tool_use`, { id: string; name: string; input: unknown }>
            | Part<`${string}_tool_result`, { tool_use_id: string; content: unknown }>
          >;
      /** What the provider counted for the request that produced it (anchoring, calibration). */
      usage?: ProviderUsage;
    };

/** What the AI SDK keeps of a Responses `compaction` item on its `openai.compaction` part. */
type OpenAICompactionOptions = { itemId?: string; encryptedContent?: string; [key: string]: unknown };

// A part of a later AI SDK version (or of your own): counted as its JSON, never an error.
type FuturePart = { type: string; [key: string]: unknown };

/** The `output` of a tool result: text, json, error-text, error-json, execution-denied or content (AI SDK 5 to 7). */
type AiSdkOutput =
  | { type: "text" | "error-text"; value: string; providerOptions?: unknown }
  | { type: "json" | "error-json"; value: unknown; providerOptions?: unknown }
  | { type: "execution-denied"; reason?: string; providerOptions?: unknown }
  | { type: "content"; value: ReadonlyArray<Part<"text", { text: string; providerOptions?: unknown }> | FuturePart>; providerOptions?: unknown }
  | FuturePart;
type AiSdkToolResult = Part<"tool-result", { toolCallId: string; toolName: string; output: AiSdkOutput; providerOptions?: unknown }>;
type AiSdkFile = Part<"file" | "reasoning-file", { data: unknown; mediaType: string; filename?: string; providerOptions?: unknown }>;

/** The package's own `providerOptions` namespace on a ModelMessage: `pinned: true` pins the message (docs/behaviour.md, Pinned messages). */
export interface PinnedProviderOptions {
  contextCompaction?: { pinned?: boolean };
}

/**
 * Vercel AI SDK `ModelMessage`s (`format: "ai-sdk"`), as `ai` 5, 6 and 7 type them: what
 * `convertToModelMessages` returns and `generateText`/`streamText` take. Tool approval requests
 * and responses pair with their calls; `providerOptions` are kept and not counted.
 * `providerOptions: { contextCompaction: { pinned: true } }` on a message pins it
 * ({@link PinnedProviderOptions}; providers ignore a namespace not theirs).
 */
export type AiSdkMessage =
  | { role: "system"; content: string; providerOptions?: unknown }
  | {
      role: "user";
      content:
        | string
        | ReadonlyArray<
            | Part<"text", { text: string; providerOptions?: unknown }>
            | Part<"image", { image: unknown; mediaType?: string; providerOptions?: unknown }>
            | AiSdkFile
            | FuturePart
          >;
      providerOptions?: unknown;
    }
  | {
      role: "assistant";
      content:
        | string
        | ReadonlyArray<
            | Part<"text" | "reasoning", { text: string; providerOptions?: unknown }>
            | Part<"tool-call", { toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean; providerOptions?: unknown }>
            /** A tool call as AI SDK 4 wrote it (`args`, read when there is no `input`). */
            | Part<"tool-call", { toolCallId: string; toolName: string; args: unknown; providerOptions?: unknown }>
            | AiSdkToolResult
            | AiSdkFile
            | Part<"custom", { kind: string; providerOptions?: unknown }>
            /** OpenAI's compaction (a Responses `compaction` item): its `encryptedContent` counts as the sealed summary it is (`docs/formats.md`). */
            | Part<"custom", { kind: "openai.compaction"; providerOptions?: { openai?: OpenAICompactionOptions }; providerMetadata?: { openai?: OpenAICompactionOptions } }>
            | Part<"tool-approval-request", { approvalId: string; toolCallId: string }>
            | FuturePart
          >;
      /** What the provider counted for the request that produced it (anchoring, calibration). */
      usage?: ProviderUsage;
      providerOptions?: unknown;
    }
  | {
      role: "tool";
      content: ReadonlyArray<
        | AiSdkToolResult
        | Part<"tool-approval-response", { approvalId: string; approved: boolean; reason?: string; providerExecuted?: boolean }>
        | FuturePart
      >;
      providerOptions?: unknown;
    };

/** The state of a tool part of a UIMessage: in flight (`input-*`, approvals pending), or answered. */
export type AiSdkToolState =
  | "input-streaming"
  | "input-available"
  | "approval-requested"
  | "approval-responded"
  | "output-available"
  | "output-error"
  | "output-denied";

type AiSdkToolPart = {
  toolCallId: string;
  state: AiSdkToolState;
  input?: unknown;
  /** A failed call's input as the model sent it (`output-error`), read when `input` is absent. */
  rawInput?: unknown;
  output?: unknown;
  errorText?: string;
  providerExecuted?: boolean;
  approval?: { id: string; approved?: boolean; reason?: string };
};

/**
 * A part of a UIMessage: text, reasoning, file, source-url, source-document, step-start (a new
 * model call inside the message), `tool-NAME` and `dynamic-tool` parts in every state,
 * `data-NAME` parts, and (AI SDK 7) custom, reasoning-file and steering-message parts.
 */
export type AiSdkUIPart =
  | Part<"text" | "reasoning", { text: string; state?: "streaming" | "done"; providerMetadata?: unknown }>
  | Part<"step-start">
  | Part<"file", { mediaType: string; url: string; filename?: string; providerMetadata?: unknown }>
  | Part<"source-url", { sourceId: string; url: string; title?: string; providerMetadata?: unknown }>
  | Part<"source-document", { sourceId: string; mediaType: string; title: string; filename?: string; providerMetadata?: unknown }>
  | Part<`tool-${string}`, AiSdkToolPart>
  | Part<"dynamic-tool", AiSdkToolPart & { toolName: string }>
  | Part<`data-${string}`, { id?: string; data: unknown }>
  | FuturePart;

/**
 * Vercel AI SDK `UIMessage`s (`format: "ai-sdk-ui"`): what `useChat` holds and posts, `ai` 5 to
 * 7. They estimate as the `ModelMessage`s `convertToModelMessages` makes of them; a cut may fall
 * between the steps of one assistant message (see `Plan.firstKeptPart`). `metadata` is kept and
 * not counted; `metadata.pinned === true` pins the message (its tool parts with it).
 */
export interface AiSdkUIMessage {
  id: string;
  role: "system" | "user" | "assistant";
  metadata?: unknown;
  parts: ReadonlyArray<AiSdkUIPart>;
}

/** Which message shape `messages` holds. */
export interface MessageFormats {
  canonical: Message;
  "openai-chat": OpenAIChatMessage;
  "openai-responses": OpenAIResponsesItem;
  anthropic: AnthropicMessage;
  "ai-sdk": AiSdkMessage;
  "ai-sdk-ui": AiSdkUIMessage;
}
export type MessageFormat = keyof MessageFormats;
/** Any message of any format. */
export type AnyMessage = MessageFormats[MessageFormat];

/**
 * A provider's usage object, in any of the shapes `usage` on an assistant message and
 * `reportedUsage.usage` are read in (the prompt is the sum of its input keys).
 */
export type ProviderUsage =
  | MessageUsage
  | { input_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number; output_tokens?: number; output_tokens_details?: { reasoning_tokens?: number } }
  | { prompt_tokens?: number; completion_tokens?: number; completion_tokens_details?: { reasoning_tokens?: number } }
  | { inputTokens?: number; outputTokens?: number; reasoningTokens?: number; outputTokenDetails?: { reasoningTokens?: number } };

/**
 * What the provider counted for an earlier request this one extends: "the request made of the
 * first `messages` messages (with this system prompt, summary and tools, by default the
 * request's own) was billed `inputTokens` input tokens" (or the provider's `usage` object).
 * A report for another `summary` is stale (the history was compacted since) and ignored.
 */
export interface ReportedUsage {
  messages: number;
  inputTokens?: number;
  usage?: ProviderUsage;
  systemPrompt?: string | ReadonlyArray<{ type: "text"; text: string }> | null;
  summary?: string | null;
  tools?: readonly ToolDefinition[] | null;
}

/**
 * Messages to pin (never summarized or cleared, sent as they are after the summary, in order):
 * their indices in `messages`, or a predicate called once per message. For formats without a
 * marker on the message (OpenAI, Anthropic), or besides it. `planBytes` takes indices only.
 */
export type PinnedOption = readonly number[] | ((message: any, index: number) => boolean);

interface RequestOptions {
  /** Messages to pin besides those their format's marker pins (see {@link PinnedOption}). */
  pinned?: PinnedOption | null;
  /** What the provider counted for earlier requests (anchoring and calibration; see docs/usage.md). */
  reportedUsage?: ReportedUsage | readonly ReportedUsage[] | null;
  /** A string, or (Anthropic's `system`) an array of text blocks. */
  systemPrompt?: string | ReadonlyArray<{ type: "text"; text: string }> | null;
  summary?: string | null;
  tools?: readonly ToolDefinition[] | null;
  /** The input budget the trigger ratio multiplies; without one only `requireReduction` plans. */
  inputTokenBudget?: number | null;
  /** Bypass the threshold and require a strict estimate decrease. */
  requireReduction?: boolean | null;
  estimator?: Estimator | HeuristicEstimator | null;
  /**
   * What a summary made for this request should focus on (for one compaction, like
   * `/compact <focus>`): added to the built-in summarizer's history prompt, handed to an
   * application summarizer as `focus`. The summary still covers everything.
   */
  focus?: string | null;
  /** A provider's own compaction (`docs/behaviour.md`, "Provider compaction"): `"window"` (the default) counts nothing before the newest one and cuts only after it; `"ignore"` reads it as any message. */
  providerCompaction?: ProviderCompactionMode | null;
}

/** How a provider's own compaction is read: see `RequestOptions.providerCompaction`. */
export type ProviderCompactionMode = "window" | "ignore";

/**
 * A request whose `messages` are in format `F` (`format` may be left out for canonical), typed
 * as your own message type `M`: plans and results hand back `M`s (your objects).
 */
export type RequestIn<F extends MessageFormat, M extends MessageFormats[F] = MessageFormats[F]> = RequestOptions & {
  format?: F | null;
  messages: readonly M[];
};

/** The conversation state to plan or compact; `format` says the shape of `messages` (default canonical). */
export type CompactionRequest<M extends AnyMessage = AnyMessage> = RequestOptions &
  (
    | { format?: "canonical" | null; messages: readonly (M & Message)[] }
    | { format: "openai-chat"; messages: readonly (M & OpenAIChatMessage)[] }
    | { format: "openai-responses"; messages: readonly (M & OpenAIResponsesItem)[] }
    | { format: "anthropic"; messages: readonly (M & AnthropicMessage)[] }
    | { format: "ai-sdk"; messages: readonly (M & AiSdkMessage)[] }
    | { format: "ai-sdk-ui"; messages: readonly (M & AiSdkUIMessage)[] }
  );

/** Where to cut; arrays hold your own message objects. */
export interface Plan<M extends AnyMessage = Message> {
  /** Where the kept suffix starts in `messages`. */
  firstKeptIndex: number;
  /**
   * The part of `messages[firstKeptIndex]` the kept suffix starts at: 0 when it keeps the whole
   * message; otherwise (`format: "ai-sdk-ui"`, a cut between the steps of one assistant
   * UIMessage) the index of the `step-start` part that begins the first kept step. `apply` then
   * returns that message trimmed to `parts.slice(firstKeptPart)`, a new object with the same `id`.
   */
  firstKeptPart: number;
  /** The `id` of `messages[firstKeptIndex]` when it has a string one (UIMessages do), else `null`. */
  firstKeptId: string | null;
  messagesToSummarize: M[];
  /** The start of a split turn; with a `firstKeptPart`, it ends with a copy of that message holding the parts before it. */
  turnPrefixMessages: M[];
  /** Where the turn prefix starts in \`messages\` (the arrays leave out system messages, which are never cut). */
  turnPrefixStart: number;
  splitTurn: boolean;
  estimateBefore: number;
  estimateAfterWithoutSummary: number;
  /**
   * Estimated tokens of each message (framing included), in order. In a plan of a long history
   * from its tail (docs/anchored.md), the messages not read are sized when
   * this field is first read; a message that throws then makes the read throw a `CompactionError`.
   */
  messageTokens: Float64Array;
  /**
   * The messages before `firstKeptIndex` kept because they are pinned (by their marker or the
   * request's `pinned`), in order: `apply` sends them after the summary. Empty in a clear plan.
   */
  pinnedIndices: number[];
  /**
   * `"clear"` for a clear plan (config `clearing`): the tool results in `clearedResults` are
   * replaced by placeholders and nothing is summarized (`firstKeptIndex` is 0, the arrays empty).
   */
  kind?: "clear";
  clearedResults?: ClearedResult[];
  /** Indices of the messages whose calls' arguments are cleared (`clearing.clearArguments`). */
  argumentMessages?: number[];
  estimateAfter?: number;
  tokensFreed?: number;
  /**
   * The messages after clearing: new objects for the rewritten ones, your own for the rest
   * (not in a `planBytes` clear plan: apply it with the messages as objects).
   */
  messages?: M[];
}

/** A tool result a clear plan replaces. */
export interface ClearedResult {
  /** The index of the message that holds it. */
  index: number;
  toolCallId: string;
  toolName: string | null;
  /** Its estimated tokens before. */
  tokens: number;
  /** The placeholder that replaces its content. */
  text: string;
}

/** The request of `planBytes`: everything but `messages` (the body holds them). */
export type BytesRequest = RequestOptions & { format?: MessageFormat | null; messages?: never };

/** A plan from `planBytes`: indices and estimates, and where each message is in the body. */
export interface BytesPlan {
  firstKeptIndex: number;
  /** As `Plan.firstKeptPart`: the part of message `firstKeptIndex` the kept suffix starts at (0: all of it). */
  firstKeptPart: number;
  /** As `Plan.firstKeptId`: the `id` of message `firstKeptIndex` when it is a string, else `null`. */
  firstKeptId: string | null;
  turnPrefixStart: number;
  splitTurn: boolean;
  estimateBefore: number;
  estimateAfterWithoutSummary: number;
  /** Estimated tokens of each message (framing included), in order. */
  messageTokens: Float64Array;
  /** As `Plan.pinnedIndices`. */
  pinnedIndices: number[];
  /** Byte offsets of each message's JSON in the body: start and end, two per message. */
  messageSpans: Uint32Array;
  /** As `Plan.kind` (a clear plan: `apply` it with the messages as objects). */
  kind?: "clear";
  clearedResults?: ClearedResult[];
  argumentMessages?: number[];
  estimateAfter?: number;
  tokensFreed?: number;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
}

export interface CompactionRecord {
  summary: string;
  firstKeptIndex: number;
  /** The part of message `firstKeptIndex` the kept messages start at (a UIMessage cut between its steps), else 0. */
  firstKeptPart: number;
  estimateBefore: number;
  estimateAfter: number;
  usage?: Usage;
  /**
   * `"clear"` when old tool results were cleared instead of summarizing, `"trim"` when overflow
   * recovery trimmed the middle of the newest tool result (the summary is unchanged in both).
   */
  kind?: "clear" | "trim";
  tokensFreed?: number;
  /** How many tool results were cleared. */
  clearedResults?: number;
  /** Exactly what the compaction covered. */
  receipt: Receipt;
}

/**
 * What a compaction covered, so that an app can show it ("these 214 messages were summarized")
 * and a store can check it later: `compactor.digest(request, record)` over the same messages
 * gives `digest` again. Indices are the request's.
 */
export interface Receipt {
  /** Messages the summary covers (pinned and system ones are kept, not counted), with the one a cut falls inside. */
  summarizedMessages: number;
  /** Their estimated tokens. */
  summarizedTokens: number;
  /**
   * 16 hexadecimal digits (FNV-1a, 64 bits) over the content the summarizer was given (roles,
   * texts, thinking, tool calls and arguments, results): changes when any of it changes; ids
   * and other metadata do not enter it. `null` when nothing was summarized (a clearing, a trim).
   */
  digest: string | null;
  /** Pinned (and system) messages before the cut, kept after the summary. */
  pinned: number[];
  /** Messages whose tool results (or calls' arguments) a clearing rewrote, or that a trim rewrote. */
  cleared: number[];
}

/**
 * A summary made and not applied (`compactor.draft`): show it, edit `summary`, then
 * `compactor.commit(request, draft)` onto the same history or one that grew after it; or drop it.
 */
export interface Draft {
  /** The summary commit stores (the file lists appended); edit it freely. */
  summary: string;
  firstKeptIndex: number;
  firstKeptPart: number;
  /** The id of the message the kept messages start in (UIMessages), else `null`. */
  firstKeptId: string | null;
  /** The digest of what it covers (as `Receipt.digest`): commit checks it. */
  digest: string;
  /** The digest of the summary it replaces: commit checks it. */
  previousDigest: string;
  usage?: Usage;
}

export interface CompactionResult<M extends AnyMessage = Message> {
  summary: string;
  /** The kept messages: your own objects. */
  messages: M[];
  /** `null` for a no-op. */
  record: CompactionRecord | null;
}

export interface CallOptions {
  signal?: AbortSignal | null;
}

/** What a summarizer function may return (or resolve to). */
export type SummaryAnswer = string | { text: string; usage?: Partial<Usage> };

/** One model call for one summary. */
export interface GenerateRequest {
  model: string;
  systemPrompt: string;
  messages: [{ role: "user"; content: string }];
  maxOutputTokens?: number;
  tools: [];
  toolChoice: "none";
  purpose: "history" | "turnPrefix";
  /** Which chunk of a part too large for `contextWindowTokens` this call summarizes (absent for a part summarized in one call). */
  chunk?: SummaryChunk;
}

/** One of the calls that summarize a part in chunks, oldest first, each updating the summary so far. */
export interface SummaryChunk {
  /** From 0. */
  index: number;
  /** How many chunks the part has (more than one). */
  count: number;
}

/** The built-in summarizer over your model call, with retries (2 s then 4 s by default). */
export interface GeneratorSummarizerConfig {
  model: string;
  generate(request: GenerateRequest, options: { signal?: AbortSignal }): SummaryAnswer | PromiseLike<SummaryAnswer>;
  maxOutputTokens?: number;
  systemPrompt?: string;
  retry?: { delaysMs?: readonly number[] };
  /**
   * A split turn's prefix estimated at most this many tokens is quoted in the summary instead of
   * summarized by a second call, when a history is summarized beside it. Whole number ≥ 0,
   * default 1,000; 0 always summarizes it.
   */
  quoteTurnPrefixTokens?: number | null;
  /**
   * The summary model's context window, in tokens of the compactor's estimator. Records that do not
   * fit one call beside the instruction, the summary so far and the answer (`maxOutputTokens`, else a
   * quarter of the window) are summarized in chunks, oldest first, each call updating the summary so
   * far. At least three times the answer's limit. Default: one call per part, however large.
   */
  contextWindowTokens?: number | null;
  summarize?: never;
}

export interface SummarizeRequest {
  previousSummary: string;
  /** Your own message objects, in the request's format. */
  messages: AnyMessage[];
  turnPrefixMessages: AnyMessage[];
  /** The request's `focus`, when it has one. */
  focus?: string;
}

/** Your own summarizer: called once, no retries; its text is post-processed like a generated one. */
export interface ApplicationSummarizerConfig {
  summarize(request: SummarizeRequest, options: { signal?: AbortSignal }): SummaryAnswer | PromiseLike<SummaryAnswer>;
  generate?: never;
}

export interface CompactorConfig {
  /**
   * Called once per summary made (by `apply`, `compact`, `draft`, a `ContextManager`), after the
   * summarizer answered and before anything is applied or handed back: return a string to
   * replace the summary, `false` to decline it (`CompactionError` `declined`, nothing changes),
   * or nothing to keep it.
   */
  beforeCommit?: ((draft: Draft, options: { signal?: AbortSignal }) => string | false | true | void | null | PromiseLike<string | false | true | void | null>) | null;
  /** Whole number ≥ 0, default 20,000. */
  keepRecentTokens?: number | null;
  /** > 0, default 1.0, may exceed 1. */
  triggerRatio?: number | null;
  summarizer: GeneratorSummarizerConfig | ApplicationSummarizerConfig;
  /**
   * Cache per-message facts by object identity. Default true. The last message is never cached
   * (you may stream into it); a message with others after it must not change in place.
   */
  cacheFacts?: boolean;
  /** Which tool calls the summary's file lists come from. */
  fileTracking?: {
    /** Default `["read"]`. */
    readTools?: readonly string[];
    /** Default `["write", "edit"]`. */
    modifyTools?: readonly string[];
    /** Argument keys holding the path, tried in order. Default `["path", "file_path", "filePath"]`. */
    pathKeys?: readonly string[];
  } | null;
  /**
   * Clear old tool results before paying for a summary (off by default). `true` uses the
   * defaults; a plan over the trigger that clearing alone brings to the trigger is a clear plan.
   */
  clearing?: boolean | {
    /** Tokens of the newest tool output never cleared. Default a tenth of the input budget, at most 40,000. */
    protectRecentTokens?: number;
    /** Tools whose results are never cleared. */
    neverClear?: readonly string[];
    /** Also replace the arguments of the cleared calls with `{}` (`false`: never). Default: those of 200 tokens or more, with their result however small. */
    clearArguments?: boolean;
  } | null;
  /**
   * Let a `ContextManager` trim the middle of a user message too large for the window (a pasted
   * document) instead of failing with `too_large`: head and tail kept, with a marker saying how
   * much was removed (reason `"trimmed"`, record `kind: "trim"`; your objects are not changed).
   * Off by default.
   */
  trimOversized?: boolean | null;
}

/** A summary request `summarizerInput` previews. */
export interface SummaryPrompt {
  purpose: "history" | "turnPrefix";
  systemPrompt: string;
  prompt: string;
  /** Set when the part is summarized in chunks; a later chunk's prompt shows a placeholder where the summary so far goes. */
  chunk?: SummaryChunk;
}

export interface Compactor extends Disposer {}
export declare class Compactor {
  constructor(config: CompactorConfig);
  /** Pure: estimates, checks the trigger and picks a tool-safe cut. `null` when there is nothing to do. */
  plan<M extends MessageFormats[F], F extends MessageFormat = "canonical">(request: RequestIn<F, M>): Plan<M> | null;
  /**
   * Plans a request whose messages are a body's bytes: a JSON array of messages or JSON lines,
   * read inside wasm with no `JSON.parse`. The same plan `plan` gives on the parsed messages,
   * with `messageSpans` instead of message arrays. `null` when there is nothing to do.
   */
  planBytes(body: Uint8Array | ArrayBuffer | string, request?: BytesRequest | null): BytesPlan | null;
  /** Executes a plan (`null` is a no-op); a given plan is trusted, not re-planned. */
  apply<M extends MessageFormats[F], F extends MessageFormat = "canonical">(
    request: RequestIn<F, M>,
    plan: Plan<M> | BytesPlan | null,
    options?: CallOptions,
  ): Promise<CompactionResult<M>>;
  /**
   * The summary `apply` would store for `plan`, made (the summarizer is called, `beforeCommit`
   * asked) and not applied: show it, let the user edit it, then `commit`. `null` for a `null` plan.
   */
  draft<M extends MessageFormats[F], F extends MessageFormat = "canonical">(
    request: RequestIn<F, M>,
    plan: Plan<M> | BytesPlan | null,
    options?: CallOptions,
  ): Promise<Draft | null>;
  /**
   * Commits a draft onto `request` (the history it was made for, or one that grew since):
   * what `apply` gives with that summary. Throws `CompactionError` `stale` when the request's
   * summary is not the one the draft replaces or a message it covers changed.
   */
  commit<M extends MessageFormats[F], F extends MessageFormat = "canonical">(request: RequestIn<F, M>, draft: Draft): CompactionResult<M>;
  /**
   * Whether `commit(request, draft)` would take the draft (`false` where it throws `stale`),
   * without committing: for a draft kept a while (a pending one), before showing or using it.
   * The plan-only module's `Compactor` has it too.
   */
  covers<M extends MessageFormats[F], F extends MessageFormat = "canonical">(request: RequestIn<F, M>, draft: Draft): boolean;
  /** The digest of what a cut (a record, plan or draft) covers in `request`'s messages: a record's `receipt.digest` again, while they are unchanged. */
  digest<M extends MessageFormats[F], F extends MessageFormat = "canonical">(
    request: RequestIn<F, M>,
    cut: { firstKeptIndex: number; firstKeptPart?: number },
  ): string;
  /**
   * `draft` (of `request`) carried onto `onto`, a request holding the same messages converted
   * (UIMessages sent as model messages, say) whose message at `cut` is where the draft's cut
   * falls: the same draft cut there, its digest taken over `onto`, for `commit(onto, ...)`.
   * Throws `CompactionError` `stale` when the draft does not cover `request`.
   */
  rebase<M extends MessageFormats[F], N extends MessageFormats[G], F extends MessageFormat = "canonical", G extends MessageFormat = "canonical">(
    request: RequestIn<F, M>,
    draft: Draft,
    onto: RequestIn<G, N>,
    cut: { firstKeptIndex: number; firstKeptPart?: number },
  ): Draft;
  /** Plan, then apply. */
  compact<M extends MessageFormats[F], F extends MessageFormat = "canonical">(request: RequestIn<F, M>, options?: CallOptions): Promise<CompactionResult<M>>;
  /** A history to append to and re-plan cheaply (each message is read once, when appended). */
  conversation<F extends MessageFormat = "canonical">(options?: ConversationOptions<F>): Conversation<MessageFormats[F]>;
  /** The summary requests the built-in summarizer would send for `plan` (`null` for an application summarizer). */
  summarizerInput<M extends MessageFormats[F], F extends MessageFormat = "canonical">(request: RequestIn<F, M>, plan: Plan<M> | null): SummaryPrompt[] | null;
  /**
   * The tool results a clearing may clear (option `clearing`; none when it is off), oldest
   * first: not among the newest `protectRecentTokens` of output nor calls in flight, of a tool
   * not in `neverClear`, of a shape the format can hold as text. For checking a list of cleared
   * results kept elsewhere (a chat's stored state) before applying it again. Give the
   * `inputTokenBudget` the clearing was planned with: the default protected output is a share of it.
   */
  clearableResults<M extends MessageFormats[F], F extends MessageFormat = "canonical">(request: RequestIn<F, M>): Array<{ index: number; toolCallId: string }>;
  free(): void;
}

export interface ConversationOptions<F extends MessageFormat = "canonical"> {
  format?: F;
  estimator?: Estimator | HeuristicEstimator | null;
  /** Messages to start with. */
  messages?: readonly MessageFormats[F][] | null;
  /** As a request's `providerCompaction`. */
  providerCompaction?: ProviderCompactionMode | null;
  /** Which of `messages` to pin, as `append`'s `pinned`. */
  pinned?: PinnedOption | true | null;
}

/** Options of `Conversation.append` and `reset`. */
export interface AppendOptions {
  /** Which of the messages given to pin (indices into them, a predicate, or `true` for all), besides their format's marker. */
  pinned?: PinnedOption | true | null;
}

/** Options of `Conversation.plan`: the request without its messages. */
export interface ConversationPlanOptions {
  systemPrompt?: string | ReadonlyArray<{ type: "text"; text: string }> | null;
  summary?: string | null;
  tools?: readonly ToolDefinition[] | null;
  inputTokenBudget?: number | null;
  requireReduction?: boolean | null;
  /**
   * A pending draft (its cut in this history's indices) that covers the history (check with
   * `compactor.covers`): the plan is then what maintenance does over the threshold, the draft
   * committed and, when what it leaves is still over the threshold, the further cut, in this
   * history's indices (`inputTokenBudget` required).
   */
  pending?: Draft | null;
}

/** A growing history: `append` as messages arrive, `plan` before every turn (O(kept messages)). */
export interface Conversation<M extends AnyMessage = Message> extends Disposer {
  /** Appends a message or an array of them; returns the new length. Nothing is appended when one is invalid. */
  append(messages: M | readonly M[], options?: AppendOptions | null): number;
  /** The same plan `compactor.plan` gives for these messages, calibrated to the usage the latest assistant messages carry as it is (`reportedUsage` is not read here). */
  plan(options?: ConversationPlanOptions): Plan<M> | null;
  /** Starts over with `messages` (after a compaction: the kept ones). */
  reset(messages: readonly M[], options?: AppendOptions | null): void;
  /** The messages so far (the conversation's own array: do not change it). */
  readonly messages: M[];
  readonly length: number;
  readonly format: MessageFormat;
  free(): void;
}

export interface HeuristicEstimator extends Disposer {}
export declare class HeuristicEstimator {
  constructor(options?: { imageTokens?: number } | null);
  countTokens(text: string): number;
  readonly imageTokens: number;
  free(): void;
}

export type CompactionErrorCode =
  | "invalid_config"
  | "invalid_request"
  | "summarization"
  | "empty_summary"
  | "no_reduction"
  /** What a compaction would keep is over the budget by itself (a message larger than the window): no summary call is made. */
  | "too_large"
  /** `commit` of a draft onto a history it does not cover (its summary differs, or a message it summarizes changed). */
  | "stale"
  /** `beforeCommit` declined the summary (returned `false`) or threw: nothing was applied. */
  | "declined"
  | "aborted"
  /** A synchronous call before the WebAssembly module could be loaded (on a browser page: `await ready()` first). */
  | "not_ready"
  /** `ready()` (or `init` of `context-compaction/web`) could not fetch or instantiate the module. */
  | "load_failed";

export declare class CompactionError extends Error {
  constructor(code: CompactionErrorCode, message: string, options?: { cause?: unknown });
  readonly code: CompactionErrorCode;
  /** The host's own error, same identity. */
  readonly cause?: unknown;
}

export interface RequestEstimate {
  /** Anchored to what the provider reported, when it did (`anchor`). */
  total: number;
  systemPrompt: number;
  summary: number;
  messages: number[];
  tools: number;
  /** Present only when a report was used: the ratio every part was calibrated by. */
  ratio?: number;
  /** Present only when a report was used: the request (its first `messages` messages) it anchors to, and what it cost. */
  anchor?: { messages: number; tokens: number };
}

export declare function estimate(request: CompactionRequest): RequestEstimate;

/** The one user message a non-empty summary projects to, in `format`; `null` for an empty one. */
export declare function projectSummary(summary: string | null | undefined, format?: Exclude<MessageFormat, "openai-responses" | "ai-sdk-ui"> | null): { role: "user"; content: string } | null;
/** A UIMessage with the id `"context-compaction-summary"`. */
export declare function projectSummary(
  summary: string | null | undefined,
  format: "ai-sdk-ui",
): { id: string; role: "user"; parts: [{ type: "text"; text: string }] } | null;
export declare function projectSummary(
  summary: string | null | undefined,
  format: "openai-responses",
): { type: "message"; role: "user"; content: [{ type: "input_text"; text: string }] } | null;

/** The conversation state a `ContextManager` maintains (`inputTokenBudget`, `requireReduction` and `estimator` are the manager's own); other fields are carried along. */
export type ConversationState<M extends AnyMessage = AnyMessage> = CompactionRequest<M>;

/** `"pending"`: a draft made ahead of time (`prepareAhead`) was committed; no summary was waited for. */
export type CompactionReason = "threshold" | "overflow" | "pending";

export type CompactionEvent<M extends AnyMessage = AnyMessage> =
  | { type: "compactionStart"; reason: CompactionReason; estimate: number; plan: Plan<M> }
  | { type: "compactionEnd"; reason: CompactionReason; record: CompactionRecord | null; error?: CompactionError };

export interface ContextManagerOptions {
  compactor: Compactor;
  /** The model's documented context size; missing or ≤ 0 disables maintenance (recovery still works). */
  contextWindowTokens?: number | null;
  /** Tokens kept free for the answer (default 16,384); a larger `maxOutputTokens` wins. */
  reserveTokens?: number | null;
  estimator?: Estimator | HeuristicEstimator | null;
  /** Start and end of every rewrite; a throwing (or rejecting) listener never breaks the run. */
  onEvent?: (event: CompactionEvent) => unknown;
  /**
   * The ahead mark, a fraction of the threshold (above 0, at most 1; default 0.7): above it,
   * `prepareAhead` makes the summary the next compaction would make.
   */
  aheadRatio?: number | null;
}

export interface MaintainOptions {
  maxOutputTokens?: number | null;
  /** Estimated tokens of skill invocations, withheld from the budget first. */
  skillTokens?: number | null;
  signal?: AbortSignal | null;
  /** What a summary made by this call should focus on (added to the summary prompt). */
  focus?: string | null;
  /**
   * A draft `prepareAhead` made: over the threshold, committed at once (no summary call) when
   * the state still holds, unchanged, everything it covers; discarded otherwise (`pending` on
   * the result says which). Below the threshold it is not looked at: keep it.
   */
  pending?: Draft | null;
}

export type MaintainReason =
  | "compacted"
  /** Old tool results were cleared (config `clearing`); no summary was made. */
  | "cleared"
  | "disabled"
  | "belowThreshold"
  | "irreducible"
  | "nothingToRemove"
  /** A user message too large for the window was trimmed (config `trimOversized`); no summary was made. */
  | "trimmed"
  | "estimateFailed"
  | "planFailed"
  | "rewriteFailed";

export interface MaintainResult<S> {
  /** The state to send: the new one when `compacted`, otherwise the one given. */
  state: S;
  compacted: boolean;
  reason: MaintainReason;
  record: CompactionRecord | null;
  /** Why maintenance failed (`estimateFailed`, `planFailed`, `rewriteFailed`); it is reported, not thrown. */
  error?: CompactionError;
  /**
   * What became of `options.pending`, when it was looked at (over the threshold): committed, or
   * discarded (it no longer covered the state; the ordinary path ran). Drop it either way.
   */
  pending?: "committed" | "discarded";
  /**
   * When `compacted`: for each message of `state.messages`, where it came from in the state
   * given, `index` (its message there) and `part` (the part of an AI SDK UIMessage it starts
   * at: 0 but for the message a cut fell inside), through every step maintenance took (a
   * committed pending summary, then a summary, a clearing or a trim of what it kept).
   */
  origins?: MessageOrigin[];
}

/** Where a message maintenance kept came from in the state it was given. */
export interface MessageOrigin {
  index: number;
  part: number;
}

export interface RunOptions {
  /** Default: `isContextOverflowError`. */
  isContextOverflow?: (error: unknown) => boolean;
  signal?: AbortSignal | null;
  /** What the summary of a recovery should focus on. */
  focus?: string | null;
}

export interface RunResult<S, R> {
  response: R;
  /** The state that was last sent (every recovery compacted it). */
  state: S;
  compactions: CompactionRecord[];
  /** The overflow rejections that were recovered from. */
  failedAttempts: unknown[];
}

/** What `run` rejects with carries the state with every committed rewrite. */
export interface RunFailureDetails<S> {
  state: S;
  compactions: CompactionRecord[];
  failedAttempts: unknown[];
}

export interface ContextManager extends Disposer {}
export declare class ContextManager {
  constructor(options: ContextManagerOptions);
  maintain<S extends ConversationState>(state: S, options?: MaintainOptions): Promise<MaintainResult<S>>;
  /**
   * Ahead-of-time compaction, after a turn and off the request path: above the ahead mark,
   * resolves to the summary the next compaction would make, not applied (keep it and pass it
   * to `maintain` as `pending`); `options.pending` itself while it still covers the state; else
   * `null`. Rejects when the summary fails or is aborted: keep what you held.
   */
  prepareAhead<S extends ConversationState>(state: S, options?: MaintainOptions): Promise<Draft | null>;
  run<S extends ConversationState, R>(
    state: S,
    send: (state: S, options: { signal?: AbortSignal }) => R | PromiseLike<R>,
    options?: RunOptions,
  ): Promise<RunResult<S, R>>;
  free(): void;
}

/**
 * Resolves once the WebAssembly module is instantiated (it is loaded on first use, not at import).
 * Needed once on a browser page before the first synchronous call (`new Compactor`, `estimate`,
 * ...); in Node, Web Workers, Cloudflare Workers and edge routes the first call loads it itself.
 */
export declare function ready(): Promise<void>;

/** Whether a provider error says the request exceeded the context window (the documented texts of the major providers, HTTP 413; never 429). */
export declare function isContextOverflowError(error: unknown): boolean;

export interface GeneratorOptions {
  baseURL?: string;
  apiKey?: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

/** A `generate` for OpenAI-compatible Chat Completions endpoints. */
export declare function openAICompatibleGenerator(options?: GeneratorOptions): GeneratorSummarizerConfig["generate"];
/** A `generate` for the Anthropic Messages API. */
export declare function anthropicGenerator(options?: GeneratorOptions & { version?: string }): GeneratorSummarizerConfig["generate"];
