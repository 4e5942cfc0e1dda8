// `context-compaction/ai-sdk`: the Vercel AI SDK (`ai` 5, 6 and 7) around the package. No
// runtime dependency: the SDK's functions (`generateText`, `convertToModelMessages`) are passed
// in, so this entry works with whichever `ai` the application has.
import { CompactionError, Compactor } from "context-compaction";
import { describe, guarded, guardedOr, record } from "./host/host.js";
import { chatPreviewOn } from "./ai-sdk/preview-class.js";

export { ChatCompaction } from "./ai-sdk/chat.js";
// On the whole module, which the route's ChatCompaction loads anyway (a page imports
// `context-compaction/ai-sdk-preview` instead: the plan-only module).
export const ChatPreview = chatPreviewOn(Compactor);

const invalid = (message, cause) => new CompactionError("invalid_config", `invalid config: ${message}`, cause === undefined ? undefined : { cause });

/**
 * A summarizer config over an AI SDK model: `new Compactor({ summarizer: aiSdkSummarizer({ model,
 * generateText }) })`. The package retries (the SDK's own retries are off: `maxRetries: 0`),
 * cancels through the signal, and reads the SDK's errors: `APICallError`'s `isRetryable` and
 * `statusCode` decide a retry, an abort is a cancellation.
 */
export function aiSdkSummarizer(options) {
  let read;
  try {
    read = record(options, "aiSdkSummarizer options");
  } catch (fault) {
    throw invalid(fault.message, fault.cause);
  }
  if (read === null) throw invalid("aiSdkSummarizer needs { model, generateText }");
  const { model, generateText, maxOutputTokens, systemPrompt, retry, quoteTurnPrefixTokens, contextWindowTokens, ...settings } = read;
  if (typeof generateText !== "function") throw invalid('aiSdkSummarizer: generateText must be the function from "ai"');
  if (model === null || (typeof model !== "object" && typeof model !== "string")) {
    throw invalid("aiSdkSummarizer: model must be a language model or a model id string");
  }
  let modelId;
  try {
    modelId = typeof model === "string" ? model : String(guarded("aiSdkSummarizer options.model.modelId", () => model.modelId) ?? "ai-sdk");
  } catch (fault) {
    throw invalid(fault.message ?? describe(fault), fault.cause ?? fault);
  }
  const config = {
    model: modelId,
    async generate(request, { signal } = {}) {
      const call = { ...settings, model, system: request.systemPrompt, messages: request.messages, abortSignal: signal, maxRetries: 0 };
      if (request.maxOutputTokens !== undefined) call.maxOutputTokens = request.maxOutputTokens;
      return answerOf(await generateText(call));
    },
  };
  if (maxOutputTokens !== undefined) config.maxOutputTokens = maxOutputTokens;
  if (systemPrompt !== undefined) config.systemPrompt = systemPrompt;
  if (retry !== undefined) config.retry = retry;
  if (quoteTurnPrefixTokens !== undefined) config.quoteTurnPrefixTokens = quoteTurnPrefixTokens;
  if (contextWindowTokens !== undefined) config.contextWindowTokens = contextWindowTokens;
  return config;
}

/**
 * `{ text, usage }` of what `generateText` resolved to. Anything else is not an answer, and no
 * other attempt would make it one: an error that is not retried (a `TypeError` would be taken
 * for a request that never got an answer).
 */
function answerOf(result) {
  const what = "aiSdkSummarizer: generateText";
  if (result === null || typeof result !== "object") {
    throw new CompactionError("summarization", `summarization: ${what} resolved to ${result === null ? "null" : typeof result}, not a result with text`);
  }
  try {
    const text = guarded(`${what} result.text`, () => result.text);
    const usage = guarded(`${what} result.totalUsage`, () => result.totalUsage ?? result.usage);
    // A usage that throws when read is no usage (the summary is what matters).
    return { text, usage: guardedOr(() => usageOf(usage), undefined) };
  } catch (fault) {
    throw new CompactionError("summarization", `summarization: ${fault.message}`, { cause: fault.cause });
  }
}

/**
 * For `toUIMessageStreamResponse({ messageMetadata })` (or `toUIMessageStream`): records on the
 * response message, at each step's end (the stream's `finish-step` part), what the provider
 * counted for that step's request, as `metadata.usage`. The last step's wins: its request held
 * the steps before it, so it is the count the next estimate is anchored to. (The AI SDK's
 * documented `totalUsage.totalTokens` sums every step of a tool loop: about twice the request
 * on a two-step turn.) Returns `undefined` for every other part; to add metadata of your own,
 * `({ part }) => ({ ...yours(part), ...messageMetadata({ part }) })`.
 */
export function messageMetadata(options) {
  const usage = guardedOr(() => (options.part.type === "finish-step" ? record(options.part.usage, "usage") : null), null);
  if (usage === null) return undefined;
  const count = (value) => (typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : 0);
  const details = guardedOr(() => record(usage.outputTokenDetails, "details"), null);
  // Every key always present: the client merges metadata deeply, so each step's replaces the last's.
  return {
    usage: {
      inputTokens: count(usage.inputTokens),
      outputTokens: count(usage.outputTokens),
      reasoningTokens: count(usage.reasoningTokens ?? details?.reasoningTokens),
    },
  };
}

/**
 * The SDK's usage (v5: `cachedInputTokens`; v6 and v7: `inputTokenDetails`) as the record's:
 * `input` without cached tokens, cache reads and writes apart.
 */
function usageOf(usage) {
  if (usage === null || typeof usage !== "object") return undefined;
  const count = (value) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);
  const details = usage.inputTokenDetails ?? {};
  const cacheRead = count(details.cacheReadTokens ?? usage.cachedInputTokens);
  const cacheWrite = count(details.cacheWriteTokens);
  const input = details.noCacheTokens !== undefined ? count(details.noCacheTokens) : Math.max(0, count(usage.inputTokens) - cacheRead - cacheWrite);
  const output = count(usage.outputTokens);
  const total = usage.totalTokens !== undefined ? count(usage.totalTokens) : input + output + cacheRead + cacheWrite;
  return { input, output, cacheRead, cacheWrite, totalTokens: total };
}
