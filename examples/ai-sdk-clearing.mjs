// An AI SDK chat route's compaction with `clearing` on: old tool results are cleared before a
// summary is paid for, and the chat's state lists them, so that every later turn (useChat posts
// the whole history again, uncleared) sends them cleared the same way.
import { convertToModelMessages, generateText } from "ai";
import { ChatCompaction, aiSdkSummarizer } from "context-compaction/ai-sdk";

const compaction = new ChatCompaction({
  contextWindowTokens: 32_000,
  reserveTokens: 4_000,
  keepRecentTokens: 2_000,
  clearing: { protectRecentTokens: 4_000 }, // or `true` for the defaults (a tenth of the budget)
  summarizer: aiSdkSummarizer({ model: "openai/gpt-4.1-mini", generateText }),
  convertToModelMessages,
});

// What useChat posts: an agent that read a file on every turn.
const history = (turns) =>
  Array.from({ length: turns }, (_, i) => [
    { id: `u${i}`, role: "user", parts: [{ type: "text", text: `What does src/file${i}.ts do?` }] },
    {
      id: `a${i}`,
      role: "assistant",
      parts: [
        { type: "step-start" },
        { type: "tool-read", toolCallId: `call${i}`, state: "output-available", input: { path: `src/file${i}.ts` }, output: `export const value${i} = ${i};\n`.repeat(80) },
        { type: "step-start" },
        { type: "text", text: `It exports value${i}.` },
      ],
    },
  ]).flat();

let stored = null; // the chat's state in your store, as JSON
for (const turns of [40, 41]) {
  const chat = await compaction.prepare(history(turns), stored && JSON.parse(stored));
  const freed = chat.record ? `, ${chat.record.tokensFreed} tokens freed` : "";
  console.log(`${turns} turns: ${chat.reason}, ${chat.state?.cleared?.length ?? 0} results cleared${freed}`);
  stored = JSON.stringify(chat.stateAfter()); // in a route: onFinish's responseMessage
}
console.log(`state: ${stored.length} bytes; its first cleared result:`);
console.log(JSON.stringify(JSON.parse(stored).cleared[0]));
