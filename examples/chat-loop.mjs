import { Compactor, ContextManager, openAICompatibleGenerator, projectSummary } from "context-compaction";

const baseURL = process.env.OPENAI_BASE_URL;
const apiKey = process.env.OPENAI_API_KEY;

const compactor = new Compactor({
  keepRecentTokens: 20_000,
  triggerRatio: 0.9,
  summarizer: { model: "gpt-4.1-mini", maxOutputTokens: 4000, generate: openAICompatibleGenerator({ baseURL, apiKey }) },
});
export const manager = new ContextManager({
  compactor,
  contextWindowTokens: 128_000,
  reserveTokens: 16_384,
  onEvent: (event) => console.log(`${event.type} (${event.reason})`),
});

// Your model call: the state becomes provider messages (the summary as one user message).
async function send(state, { signal }) {
  const text = (m) => (typeof m.content === "string" ? m.content : m.content.map((b) => b.text ?? JSON.stringify(b)).join("\n"));
  const messages = [
    { role: "system", content: state.systemPrompt },
    ...(state.summary ? [projectSummary(state.summary)] : []),
    ...state.messages.map((m) => ({ role: m.role === "assistant" ? "assistant" : "user", content: text(m) })),
  ];
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    signal,
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: "gpt-4.1", messages, max_tokens: 4096 }),
  });
  const body = await response.json();
  // `status` and the provider's message let the manager recognise a context overflow.
  if (!response.ok) throw Object.assign(new Error(body.error?.message), { status: response.status, code: body.error?.code });
  // What the provider counted: run() learns from it, and the kept answer anchors later estimates.
  const usage = { input: body.usage?.prompt_tokens ?? 0, output: body.usage?.completion_tokens ?? 0 };
  return { role: "assistant", content: [{ type: "text", text: body.choices[0].message.content }], stopReason: "stop", usage };
}

// One turn: maintain before sending (may compact), then send with overflow recovery.
export async function turn(state, prompt) {
  const asked = { ...state, messages: [...state.messages, { role: "user", content: prompt }] };
  const { state: maintained } = await manager.maintain(asked, { maxOutputTokens: 4096 });
  const { response, state: sent } = await manager.run(maintained, send);
  return { ...sent, messages: [...sent.messages, response] };
}
