// The provider the round trips run against: the AI SDK's own mock models (`ai/test`, spec v2
// for ai 5, v3 for ai 6 and 7). The chat model records every prompt it is sent and plays a
// coding agent: each turn reads a file (about 2,500 tokens), some turns deploy (a tool that needs
// approval where the SDK has approvals), and one turn reads 40 files in one tool loop. The
// summary model records what it is asked to summarize and answers "Summary #n". The chat model
// reports usage as a provider would, 25% above the package's estimate of the prompt (a provider
// whose tokenizer counts more than the heuristic), and records that count with the prompt.
import { estimate } from "context-compaction";

/** What the provider counts: 25% above our estimate of the prompt (the spec's messages are ModelMessages). */
export const providerCount = (prompt) => Math.ceil(1.25 * estimate({ format: "ai-sdk", messages: prompt }).total);

export function mockProvider(ai, mocks) {
  const log = (globalThis.__roundTrip ??= { prompts: [], summaries: [], turn: 0, calls: {} });
  const spec = mocks.MockLanguageModelV3 ? 3 : 2;
  const Mock = mocks.MockLanguageModelV3 ?? mocks.MockLanguageModelV2;
  const usageOf = (input) =>
    spec === 2
      ? { inputTokens: input, outputTokens: 50, totalTokens: input + 50, cachedInputTokens: 200 }
      : { inputTokens: { total: input, noCache: input - 200, cacheRead: 200, cacheWrite: 0 }, outputTokens: { total: 50, text: 50, reasoning: 0 } };
  const usage = usageOf(1000);
  const finish = (reason) => (spec === 2 ? reason : { unified: reason, raw: reason });
  const stream = (chunks) =>
    new ReadableStream({
      start(controller) {
        for (const chunk of [{ type: "stream-start", warnings: [] }, ...chunks]) controller.enqueue(chunk);
        controller.close();
      },
    });
  const text = (value) => [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: value }, { type: "text-end", id: "t" }];
  const call = (name, input) => ({ type: "tool-call", toolCallId: `call-${log.turn}-${log.calls[log.turn]}`, toolName: name, input: JSON.stringify(input) });

  const model = new Mock({
    modelId: "chat-model",
    doStream: async ({ prompt }) => {
      const count = providerCount(prompt);
      const usage = usageOf(count);
      log.prompts.push({ turn: log.turn, prompt: JSON.parse(JSON.stringify(prompt)), count });
      const turn = log.turn;
      const n = (log.calls[turn] = (log.calls[turn] ?? 0) + 1);
      const reads = turn === log.longTurn ? 28 : 1;
      if (n <= reads) {
        const deploy = spec === 3 && turn % 10 === 7 && n === 1;
        const chunk = deploy ? call("deploy", { target: `env-${turn}` }) : call("read", { path: `src/module${turn}-${n}.ts` });
        return { stream: stream([chunk, { type: "finish", finishReason: finish("tool-calls"), usage }]) };
      }
      return { stream: stream([...text(`Done with turn ${turn}.`), { type: "finish", finishReason: finish("stop"), usage }]) };
    },
  });

  const summaryModel = new Mock({
    modelId: "summary-model",
    doGenerate: async ({ prompt }) => {
      log.summaries.push(JSON.parse(JSON.stringify(prompt)));
      return { content: [{ type: "text", text: `Summary #${log.summaries.length}` }], finishReason: finish("stop"), usage, warnings: [] };
    },
  });

  const schema = (key) => ai.jsonSchema({ type: "object", properties: { [key]: { type: "string" } }, required: [key] });
  const file = (path) => Array.from({ length: path.includes(`module${log.longTurn}-`) ? 250 : 120 }, (_, i) => `${path}:${i + 1}  export const value${i} = compute(${i});`).join("\n");
  const tools = {
    read: { description: "Read a file", inputSchema: schema("path"), execute: async ({ path }) => file(path) },
    deploy: { description: "Deploy the build", inputSchema: schema("target"), needsApproval: true, execute: async ({ target }) => `deployed to ${target}` },
  };
  return { model, summaryModel, system: "You are a coding agent.", tools, log };
}
