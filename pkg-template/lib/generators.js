// Ready-made `generate` functions over `fetch` (Workers, browsers, Node 18+). A non-2xx answer
// throws an Error with `status`, `code` and the provider's message, so the retry rules (408,
// 409, 429, 5xx) and overflow detection apply; usage is mapped into the record.

function providerError(status, body, text) {
  const detail = body && typeof body === "object" ? body.error ?? body : undefined;
  const message = (detail && typeof detail.message === "string" && detail.message) || text || `HTTP ${status}`;
  const error = new Error(message);
  error.name = "ProviderError";
  error.status = status;
  if (detail && (detail.code || detail.type)) error.code = detail.code ?? detail.type;
  error.body = body;
  return error;
}

async function post(fetchFn, url, headers, payload, signal) {
  const response = await fetchFn(url, { method: "POST", signal, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(payload) });
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) throw providerError(response.status, body, text);
  if (body === undefined) throw Object.assign(new Error(`the provider answered ${response.status} without JSON`), { name: "InvalidResponseError" });
  return body;
}

function resolveFetch(fetchFn) {
  const chosen = fetchFn ?? globalThis.fetch;
  if (typeof chosen !== "function") throw new TypeError("no fetch available: pass { fetch }");
  // Called unbound: some runtimes reject `fetch` called with another `this`.
  return (...args) => chosen(...args);
}

/** A `generate` for OpenAI-compatible Chat Completions endpoints (`${baseURL}/chat/completions`). */
export function openAICompatibleGenerator({ baseURL = "https://api.openai.com/v1", apiKey, fetch, headers } = {}) {
  const call = resolveFetch(fetch);
  const url = `${String(baseURL).replace(/\/+$/, "")}/chat/completions`;
  return async function generate(request, { signal } = {}) {
    const payload = {
      model: request.model,
      messages: [{ role: "system", content: request.systemPrompt }, ...request.messages],
    };
    if (request.maxOutputTokens !== undefined) payload.max_tokens = request.maxOutputTokens;
    const auth = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
    const body = await post(call, url, { ...auth, ...headers }, payload, signal);
    const content = body.choices?.[0]?.message?.content;
    if (typeof content !== "string") throw Object.assign(new Error("the response has no choices[0].message.content"), { name: "InvalidResponseError" });
    const usage = body.usage ?? {};
    const input = usage.prompt_tokens ?? 0;
    const output = usage.completion_tokens ?? 0;
    return {
      text: content,
      usage: { input, output, cacheRead: usage.prompt_tokens_details?.cached_tokens ?? 0, cacheWrite: 0, totalTokens: usage.total_tokens ?? input + output },
    };
  };
}

/** A `generate` for the Anthropic Messages API (`${baseURL}/v1/messages`). */
export function anthropicGenerator({ baseURL = "https://api.anthropic.com", apiKey, fetch, headers, version = "2023-06-01" } = {}) {
  const call = resolveFetch(fetch);
  const url = `${String(baseURL).replace(/\/+$/, "")}/v1/messages`;
  return async function generate(request, { signal } = {}) {
    const payload = {
      model: request.model,
      // The Messages API requires a limit.
      max_tokens: request.maxOutputTokens ?? 4096,
      system: request.systemPrompt,
      messages: request.messages,
    };
    const auth = apiKey ? { "x-api-key": apiKey } : {};
    const body = await post(call, url, { "anthropic-version": version, ...auth, ...headers }, payload, signal);
    if (!Array.isArray(body.content)) throw Object.assign(new Error("the response has no content blocks"), { name: "InvalidResponseError" });
    const text = body.content.filter((block) => block.type === "text").map((block) => block.text).join("");
    const usage = body.usage ?? {};
    const input = usage.input_tokens ?? 0;
    const output = usage.output_tokens ?? 0;
    const cacheRead = usage.cache_read_input_tokens ?? 0;
    const cacheWrite = usage.cache_creation_input_tokens ?? 0;
    return { text, usage: { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite } };
  };
}
