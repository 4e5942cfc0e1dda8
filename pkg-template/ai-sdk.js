// `context-compaction/ai-sdk`: the Vercel AI SDK (`ai` 5, 6 and 7) around the package. No
// runtime dependency: the SDK's functions (`generateText`, `convertToModelMessages`) are passed
// in, so this entry works with whichever `ai` the application has.
import { CompactionError } from "context-compaction";

export { ChatCompaction } from "./ai-sdk-chat.js";
export { ChatPreview } from "./ai-sdk-preview.js";

const invalid = (message) => new CompactionError("invalid_config", `invalid config: ${message}`);

/**
 * A summarizer config over an AI SDK model: `new Compactor({ summarizer: aiSdkSummarizer({ model,
 * generateText }) })`. The package retries (the SDK's own retries are off: `maxRetries: 0`),
 * cancels through the signal, and reads the SDK's errors: `APICallError`'s `isRetryable` and
 * `statusCode` decide a retry, an abort is a cancellation.
 */
export function aiSdkSummarizer(options) {
  if (options === null || typeof options !== "object") throw invalid("aiSdkSummarizer needs { model, generateText }");
  const { model, generateText, maxOutputTokens, systemPrompt, retry, quoteTurnPrefixTokens, ...settings } = options;
  if (typeof generateText !== "function") throw invalid('aiSdkSummarizer: generateText must be the function from "ai"');
  if (model === null || (typeof model !== "object" && typeof model !== "string")) {
    throw invalid("aiSdkSummarizer: model must be a language model or a model id string");
  }
  const config = {
    model: typeof model === "string" ? model : String(model.modelId ?? "ai-sdk"),
    async generate(request, { signal } = {}) {
      const call = { ...settings, model, system: request.systemPrompt, messages: request.messages, abortSignal: signal, maxRetries: 0 };
      if (request.maxOutputTokens !== undefined) call.maxOutputTokens = request.maxOutputTokens;
      const result = await generateText(call);
      return { text: result.text, usage: usageOf(result.totalUsage ?? result.usage) };
    },
  };
  if (maxOutputTokens !== undefined) config.maxOutputTokens = maxOutputTokens;
  if (systemPrompt !== undefined) config.systemPrompt = systemPrompt;
  if (retry !== undefined) config.retry = retry;
  if (quoteTurnPrefixTokens !== undefined) config.quoteTurnPrefixTokens = quoteTurnPrefixTokens;
  return config;
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
