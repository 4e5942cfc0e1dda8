// The models, system prompt and tools of the Worker's chat route. The AI SDK's mock model
// (`ai/test`) stands in for a provider such as `openai("gpt-4.1")`. For the packaging suite it
// plays a coding agent (each turn reads one large file, then answers) and its answer reports what
// it was sent: the first message, whether every tool call had its result, the prompt's size and
// how many summaries this isolate has made. The summary model answers with the turns it covered.
import { jsonSchema, simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";

const usage = { inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 10, text: 10, reasoning: 0 } };
const isolate = Math.random().toString(36).slice(2, 8);
let summaries = 0;

const textOf = (message) => (typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join(""));
const turns = (text) => [...new Set([...text.matchAll(/Turn (\d+):/g)].map((m) => Number(m[1])))];
const stream = (chunks, reason) =>
  simulateReadableStream({ chunks: [{ type: "stream-start", warnings: [] }, ...chunks, { type: "finish", finishReason: { unified: reason, raw: reason }, usage }] });

function paired(prompt) {
  const calls = new Set();
  const results = new Set();
  for (const message of prompt) {
    if (typeof message.content === "string") continue;
    for (const part of message.content) {
      if (part.type === "tool-call") calls.add(part.toolCallId);
      if (part.type === "tool-result") results.add(part.toolCallId);
    }
  }
  return calls.size === results.size && [...calls].every((id) => results.has(id));
}

export const model = new MockLanguageModelV3({
  doStream: async ({ prompt }) => {
    const last = prompt.at(-1);
    const turn = turns(textOf(prompt.findLast((m) => m.role === "user"))).at(-1);
    if (last.role === "user") {
      const call = { type: "tool-call", toolCallId: `read-${turn}`, toolName: "read", input: JSON.stringify({ path: `src/module${turn}.ts` }) };
      return { stream: stream([call], "tool-calls") };
    }
    const first = textOf(prompt.find((m) => m.role !== "system"));
    const report = { turn, first: first.slice(0, 2000).replaceAll("Turn ", "turn ") /* not a turn marker in later summaries */, paired: paired(prompt), chars: JSON.stringify(prompt).length, summaries, isolate };
    const text = `Report ${JSON.stringify(report)}`;
    return { stream: stream([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: text }, { type: "text-end", id: "t" }], "stop") };
  },
});

export const summaryModel = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    summaries++;
    // Only the messages to summarize, not the previous summary quoted beside them.
    const quoted = prompt.flatMap((m) => [...textOf(m).matchAll(/<(conversation|turn-prefix)>([\s\S]*)<\/\1>/g)].map((q) => q[2]));
    const text = `Summary ${isolate}#${summaries} covers turns [${turns(quoted.join("\n"))}]`;
    return { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
  },
});

export const system = "You are a coding agent.";

const file = (path) => Array.from({ length: 700 }, (_, i) => `${path}:${i + 1}  export const value${i} = compute(${i});`).join("\n");
export const tools = {
  read: { description: "Read a file", inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }), execute: async ({ path }) => file(path) },
};
