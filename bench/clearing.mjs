// Clearing old tool results before summarizing, measured on the real session: replays
// tests/fixtures/large-session.jsonl (three times over, as bench/workloads.mjs repeats it, with
// fresh tool-call ids: once it stays under a 200k window) message by message; before each
// assistant message (a request) it plans with a 200k window less a 16k reserve, and applies the
// plan: a summary (the summarizer is a stub answering a fixed summary (its size is printed), so no model
// is called) or, with clearing on, a clear plan when clearing old results is enough.
//
//   node bench/clearing.mjs
//
// Prints, for clearing off and on, the summary calls, the clearings and the tokens each freed.
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { history } from "./workloads.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}/dist/index.js`)) execFileSync(`${root}/scripts/build`, { stdio: "inherit" });
const { Compactor, estimate } = await import(`${root}/dist/index.js`);

const WINDOW = 200_000;
const RESERVE = 16_000;
const budget = WINDOW - RESERVE;
const base = history(914 * 3).map(({ usage, ...rest }) => rest);
const summaryText = Array.from({ length: 300 }, (_, i) => `- point ${i}: what was decided and why`).join("\n");

async function replay(clearing) {
  const compactor = new Compactor({ clearing, summarizer: { summarize: async () => summaryText } });
  let state = { summary: "", messages: [] };
  const tally = { summaries: 0, summaryFreed: 0, clearings: 0, cleared: 0, clearFreed: 0, peak: 0 };
  for (const message of base) {
    if (message.role === "assistant") {
      const request = { ...state, inputTokenBudget: budget };
      const plan = compactor.plan(request);
      if (plan) {
        const out = await compactor.apply(request, plan);
        const freed = out.record.estimateBefore - out.record.estimateAfter;
        if (out.record.kind === "clear") {
          tally.clearings++;
          tally.cleared += out.record.clearedResults;
          tally.clearFreed += freed;
        } else {
          tally.summaries++;
          tally.summaryFreed += freed;
        }
        state = { summary: out.summary, messages: out.messages };
      }
    }
    state.messages = [...state.messages, message];
  }
  compactor.free();
  return tally;
}

const thousands = (n) => Math.round(n).toLocaleString("en-US");
const summaryTokens = estimate({ summary: summaryText, messages: [] }).summary;
console.log(`${base.length} messages (the session three times), window ${thousands(WINDOW)}, reserve ${thousands(RESERVE)}, stub summary ${thousands(summaryTokens)} tokens`);
console.log("| clearing | summary calls | tokens freed by summaries | clearings (results cleared) | tokens freed by clearing |");
console.log("|---|---:|---:|---:|---:|");
for (const [name, clearing] of [["off", false], ["on (defaults)", true]]) {
  const t = await replay(clearing);
  console.log(`| ${name} | ${t.summaries} | ${thousands(t.summaryFreed)} | ${t.clearings} (${t.cleared}) | ${thousands(t.clearFreed)} |`);
}
