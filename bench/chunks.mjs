// Summaries of a history larger than the summary model's window: compacts the real session
// (tests/fixtures/large-session.jsonl, 914 messages, keeping 20,000 tokens) with the built-in
// summarizer and `contextWindowTokens` of 32,000, 64,000 and 128,000 (and none), and prints the
// calls each makes, the tokens of each call (its instruction and prompt by the package's
// heuristic estimator, plus the answer's `maxOutputTokens`), and whether the calls together carry
// every summarized user message as often as the one unchunked call does. The generate function is a stub answering a summary of about
// 1,500 tokens, so no model is called.
//
//   node bench/chunks.mjs
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { history } from "./workloads.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}/dist/index.js`)) execFileSync(`${root}/scripts/build`, { stdio: "inherit" });
const { Compactor, HeuristicEstimator } = await import(`${root}/dist/index.js`);

const messages = history(914).map(({ usage, ...rest }) => rest);
const estimator = new HeuristicEstimator();
const summaryText = Array.from({ length: 150 }, (_, i) => `- point ${i}: what was decided, where and why`).join("\n");
const MAX_OUTPUT = 4_096;

/** The user messages' opening words, to find which calls carried each. */
function userMarks(list) {
  return list
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : m.content.find((b) => b.type === "text")?.text ?? ""))
    .map((text) => text.trim().slice(0, 60))
    .filter((text) => text.length >= 20);
}

async function run(window) {
  const calls = [];
  const generate = async (request) => {
    const tokens = estimator.countTokens(request.systemPrompt) + estimator.countTokens(request.messages[0].content);
    calls.push({ purpose: request.purpose, chunk: request.chunk, tokens: tokens + MAX_OUTPUT, prompt: request.messages[0].content });
    return summaryText;
  };
  const summarizer = { model: "stub", generate, maxOutputTokens: MAX_OUTPUT };
  if (window) summarizer.contextWindowTokens = window;
  const compactor = new Compactor({ keepRecentTokens: 20_000, summarizer });
  const request = { messages, inputTokenBudget: 0, requireReduction: false };
  const plan = compactor.plan(request);
  const result = await compactor.apply(request, plan);
  const marks = [...new Set(userMarks(messages.slice(0, result.record.firstKeptIndex)))];
  const carried = (mark) => calls.reduce((n, c) => n + c.prompt.split(mark).length - 1, 0);
  return { window, calls, carried: new Map(marks.map((mark) => [mark, carried(mark)])) };
}

console.log(`node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ${messages.length} messages, keepRecentTokens 20,000, maxOutputTokens ${MAX_OUTPUT}`);
console.log("| summarizer window | calls | tokens per call (instruction + prompt + answer) | largest | user messages carried as by one call |");
console.log("|---|---|---|---|---|");
const single = await run(null);
for (const window of [null, 128_000, 64_000, 32_000]) {
  const { calls, carried } = window === null ? single : await run(window);
  const same = [...single.carried].filter(([mark, n]) => carried.get(mark) === n).length;
  const tokens = calls.map((c) => c.tokens);
  const fits = window === null ? "" : Math.max(...tokens) <= window ? " (within)" : " (OVER)";
  console.log(`| ${window === null ? "none" : window.toLocaleString("en-US")} | ${calls.length} | ${tokens.map((t) => t.toLocaleString("en-US")).join(", ")} | ${Math.max(...tokens).toLocaleString("en-US")}${fits} | ${same} of ${single.carried.size} |`);
}
