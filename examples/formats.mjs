import { Compactor, projectSummary } from "context-compaction";

const compactor = new Compactor({ keepRecentTokens: 1, summarizer: { summarize: async () => "summary" } });
const plan = (format, messages) => compactor.plan({ format, messages, requireReduction: true });

// OpenAI Chat Completions: system/developer messages count and are never cut.
plan("openai-chat", [
  { role: "system", content: "You are terse." },
  { role: "user", content: "Weather in Oslo?" },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }] },
  { role: "tool", tool_call_id: "c1", content: "rain, 7°C" },
  { role: "assistant", content: "Rain and 7°C." },
]);

// OpenAI Responses: every item is one host message; a call and its output pair by call_id.
plan("openai-responses", [
  { role: "user", content: "Weather in Oslo?" },
  { type: "reasoning", summary: [{ type: "summary_text", text: "Look it up." }], encrypted_content: "gAAAAB…" },
  { type: "function_call", call_id: "c1", name: "weather", arguments: '{"city":"Oslo"}' },
  { type: "function_call_output", call_id: "c1", output: "rain, 7°C" },
  { type: "message", role: "assistant", content: [{ type: "output_text", text: "Rain and 7°C." }] },
]);

// Anthropic Messages: tool results live in user messages, which then start no turn.
plan("anthropic", [
  { role: "user", content: "Weather in Oslo?" },
  { role: "assistant", content: [{ type: "thinking", thinking: "Look it up.", signature: "EqQB…" }, { type: "tool_use", id: "c1", name: "weather", input: { city: "Oslo" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "rain, 7°C" }] },
  { role: "assistant", content: [{ type: "text", text: "Rain and 7°C." }] },
]);

// Vercel AI SDK ModelMessage: tool messages carry tool-result parts.
plan("ai-sdk", [
  { role: "user", content: "Weather in Oslo?" },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Oslo" } }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "weather", output: { type: "text", value: "rain, 7°C" } }] },
  { role: "assistant", content: "Rain and 7°C." },
]);
// Vercel AI SDK UIMessage (what useChat holds): one assistant message holds a whole tool loop, and
// a cut may fall between its steps: here plan.firstKeptPart is 4, the last step-start.
plan("ai-sdk-ui", [
  { id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Oslo and Bergen?" }] },
  {
    id: "a1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      { type: "tool-weather", toolCallId: "c1", state: "output-available", input: { city: "Oslo" }, output: "rain, 7°C" },
      { type: "step-start" },
      { type: "tool-weather", toolCallId: "c2", state: "output-available", input: { city: "Bergen" }, output: "rain, 9°C" },
      { type: "step-start" },
      { type: "text", text: "Rain in both." },
    ],
  },
]);

// The summary comes back in the same format, e.g. a Responses input item.
console.log(JSON.stringify(projectSummary("The user asked about Oslo.", "openai-responses")));
