// An agent that read 40 files: with `clearing` on, maintenance clears the old reads (each can be
// read again) instead of paying for a summary.
import { Compactor, ContextManager, openAICompatibleGenerator } from "context-compaction";

const compactor = new Compactor({
  keepRecentTokens: 2_000,
  // `clearing: true` takes the defaults; here the newest 4,000 tokens of tool output stay.
  clearing: { protectRecentTokens: 4_000, neverClear: ["todo"], clearArguments: false },
  summarizer: {
    model: "gpt-4.1-mini",
    generate: openAICompatibleGenerator({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY }),
  },
});
const manager = new ContextManager({ compactor, contextWindowTokens: 32_000, reserveTokens: 4_000 });

const messages = [];
for (let i = 0; i < 40; i++) {
  const path = `src/file${i}.ts`;
  messages.push({ role: "user", content: `What does ${path} do?` });
  messages.push({ role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path } }], stopReason: "toolUse" });
  messages.push({ role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: `export const value${i} = ${i};\n`.repeat(80) }] });
  messages.push({ role: "assistant", content: [{ type: "text", text: `It exports value${i}.` }], stopReason: "stop" });
}

const { state, reason, record } = await manager.maintain({ summary: "", messages });
console.log(`${reason}: ${record.clearedResults} results cleared, ${record.estimateBefore} → ${record.estimateAfter} tokens`);
console.log(state.messages[2].content[0].text);
