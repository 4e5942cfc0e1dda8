// One scenario run unchanged in every runtime (Node, Chromium page, Web Worker, workerd): plan,
// apply with a retry on the global setTimeout, typed errors, abort during a retry wait.
export async function run(api) {
  const { Compactor, CompactionError, estimate, projectSummary } = api;
  const messages = [
    { role: "user", content: "read the config" },
    { role: "assistant", content: [{ type: "toolCall", id: "t1", name: "read", arguments: { path: "app.toml" } }], stopReason: "toolUse" },
    { role: "toolResult", toolCallId: "t1", toolName: "read", content: [{ type: "text", text: "port = 8080\n".repeat(50) }] },
    { role: "assistant", content: [{ type: "text", text: "The port is 8080." }], stopReason: "stop" },
    { role: "user", content: "thanks" },
  ];
  let attempts = 0;
  const compactor = new Compactor({
    keepRecentTokens: 5,
    summarizer: {
      model: "m",
      retry: { delaysMs: [5] },
      generate: async () => {
        attempts++;
        if (attempts === 1) throw Object.assign(new Error("busy"), { status: 503 });
        return { text: "SUMMARY", usage: { input: 7, output: 1 } };
      },
    },
  });
  const plan = compactor.plan({ messages, inputTokenBudget: 0 });
  const out = await compactor.apply({ messages }, plan);

  let configCode = null;
  try {
    new Compactor({});
  } catch (e) {
    configCode = e instanceof CompactionError && e instanceof Error ? e.code : `not a CompactionError: ${e}`;
  }

  const controller = new AbortController();
  const waiting = new Compactor({
    keepRecentTokens: 0,
    summarizer: { model: "m", retry: { delaysMs: [60_000] }, generate: async () => { throw Object.assign(new Error("x"), { status: 429 }); } },
  });
  const pending = waiting.compact({ messages, inputTokenBudget: 0 }, { signal: controller.signal });
  setTimeout(() => controller.abort(new Error("stop")), 10);
  const started = Date.now();
  const abortedCode = await pending.then(() => "resolved", (e) => e.code);

  // A longer history planned cold goes through the walker, which the entry must have
  // registered (without it, planning fails).
  const long = [];
  for (let round = 0; round < 16; round++) {
    const copy = structuredClone(messages);
    copy[1].content[0].id = copy[2].toolCallId = `t${round}`;
    long.push(...copy);
  }
  let longCut;
  try {
    const cold = new Compactor({ keepRecentTokens: 500, cacheFacts: false, summarizer: { summarize: async () => "S" } });
    longCut = cold.plan({ messages: long, inputTokenBudget: 0 }).firstKeptIndex;
  } catch (e) {
    longCut = String(e);
  }

  return {
    firstKeptIndex: plan.firstKeptIndex,
    longCut,
    summarized: plan.messagesToSummarize.length,
    sameObjects: plan.messagesToSummarize[0] === messages[0] && out.messages[0] === messages[plan.firstKeptIndex],
    summary: out.summary,
    usage: out.record.usage,
    attempts,
    configCode,
    abortedCode,
    abortedQuickly: Date.now() - started < 5_000,
    total: estimate({ messages }).total,
    projected: projectSummary("S").role,
  };
}
