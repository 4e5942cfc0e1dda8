// The latency compaction adds to a user's turn, with and without ahead-of-time compaction: a
// replayed chat through the README's AI SDK route (ChatCompaction with `ai` 7's
// convertToModelMessages), a summarizer that takes 2 s (a real timer), the model's answer
// instant. A turn's added latency is the time of `prepare` (what the route does before the model
// is called: planning and, when due, compacting). With ahead-of-time compaction the route runs
// `prepareAhead` after each response, off the request path (`after()`, `ctx.waitUntil`), and
// hands the stored pending summary to the next `prepare`.
//
//   node bench/ahead.mjs [--turns 64] [--summary-ms 2000] [--think-ms 5000,1000] [--ahead-ratio 0.7,0.85]
//
// The user's next message comes `think` ms after the answer. Nothing runs in that time unless
// a background summary is in flight, so the replay waits only until that summary settles or
// the think time is over, whichever is first: a think time shorter than the summary makes the
// next turn start while it is in flight (its pending summary is not stored yet).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}/dist/ai-sdk.js`)) execFileSync(`${root}/scripts/build`, { stdio: "inherit" });
const { ChatCompaction } = await import(`${root}/dist/ai-sdk.js`);
const sdkDir = execFileSync(`${root}/scripts/ai-sdk-deps`, { encoding: "utf8" }).trim();
const require = createRequire(`${sdkDir}/package.json`);
const { convertToModelMessages } = await import(pathToFileURL(require.resolve("ai7")).href);

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const TURNS = Number(arg("turns", 64));
const SUMMARY_MS = Number(arg("summary-ms", 2000));
const THINK = String(arg("think-ms", "5000,1000")).split(",").map(Number);
const RATIOS = String(arg("ahead-ratio", "0.7,0.85")).split(",").map(Number);
// A small window, so that a 64-turn chat compacts several times (about every 9 turns).
const OPTIONS = { contextWindowTokens: 16_000, reserveTokens: 2_000, keepRecentTokens: 3_000, system: "You are a careful assistant." };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const words = (label, n) => Array.from({ length: n }, (_, i) => `${label}${i % 7} word${i}`).join(" ");
/** A turn's answer: a text; every fifth a two-step tool loop (a read, then the text). */
function answer(turn) {
  const text = { type: "text", text: words(`a${turn}`, 160), state: "done" };
  if (turn % 5 !== 4) return [{ type: "step-start" }, text];
  const read = { type: "tool-read", toolCallId: `call-${turn}`, state: "output-available", input: { path: `src/m${turn}.rs` }, output: words(`f${turn}`, 200) };
  return [{ type: "step-start" }, read, { type: "step-start" }, text];
}

/** One replay; the per-turn latency of `prepare` and how many turns waited for a summary. */
async function replay({ ahead, think, aheadRatio }) {
  let calls = 0;
  const summarizer = {
    summarize: async () => {
      calls++;
      await sleep(SUMMARY_MS);
      return "Summary: the chat so far, what was decided and why.";
    },
  };
  const route = new ChatCompaction({ ...OPTIONS, aheadRatio, summarizer, convertToModelMessages });
  const messages = [];
  const latencies = [];
  let state = null;
  let pending = null;
  let background = null;
  let waited = 0;
  let committed = 0;
  for (let turn = 0; turn < TURNS; turn++) {
    messages.push({ id: `u${turn}`, role: "user", parts: [{ type: "text", text: words(`q${turn}`, 90) }] });
    const before = calls;
    const start = performance.now();
    const chat = await route.prepare(messages, state, { pending });
    latencies.push(performance.now() - start);
    if (calls > before) waited++;
    if (chat.pending === "committed") committed++;
    if (chat.pending) pending = null;
    const response = { id: `r${turn}`, role: "assistant", parts: answer(turn) };
    messages.push(response);
    state = chat.stateAfter(response);
    if (ahead) {
      // After the response: the route's `after()` / `waitUntil` task stores the pending summary.
      background = chat.prepareAhead(response).then(
        (made) => {
          pending = made;
        },
        () => {},
      );
    }
    await Promise.race([background ?? sleep(0), sleep(think)]);
  }
  await background;
  route.free();
  return { latencies, waited, committed, calls };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const ms = (x) => (x < 10 ? x.toFixed(1) : Math.round(x).toString());

console.log(`${TURNS} turns, a ${SUMMARY_MS} ms summarizer, window ${OPTIONS.contextWindowTokens} (reserve ${OPTIONS.reserveTokens}, keep ${OPTIONS.keepRecentTokens})`);
console.log("| mode | aheadRatio | think time | p50 ms | p95 ms | max ms | turns that waited for a summary | pending committed | summaries made |");
console.log("|---|---|---|---|---|---|---|---|---|");
const runs = [{ ahead: false, think: 0 }];
for (const aheadRatio of RATIOS) for (const think of THINK) runs.push({ ahead: true, think, aheadRatio });
for (const run of runs) {
  const { latencies, waited, committed, calls } = await replay(run);
  const sorted = [...latencies].sort((a, b) => a - b);
  const mode = run.ahead ? `ahead of time | ${run.aheadRatio} | ${run.think} ms` : "in the turn | — | any";
  console.log(`| ${mode} | ${ms(quantile(sorted, 0.5))} | ${ms(quantile(sorted, 0.95))} | ${ms(sorted.at(-1))} | ${waited} | ${committed} | ${calls} |`);
}
