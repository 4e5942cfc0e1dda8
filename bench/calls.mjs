// Summary calls per compaction, with split-turn prefixes quoted or always summarized: replays
// tests/fixtures/large-session.jsonl (three times over with fresh tool-call ids, as
// bench/workloads.mjs repeats it) and counts the generate calls of the built-in summarizer.
//
//   node bench/calls.mjs
//
// Canonical: before each assistant message (a request of the agent loop) it plans and applies.
// AI SDK UIMessages (one assistant UIMessage per turn, a step per model call): before each turn
// (what a useChat route's `prepare` does). Each at a 128k window (16,384 reserved, default
// keepRecentTokens 20,000) and a 32k one (4,096 reserved, keepRecentTokens 8,000). The generate
// function is a stub answering a fixed summary, so no model is called; `quoteTurnPrefixTokens: 0`
// is the behaviour before quoting (every split turn makes a second call), 1,000 the default.
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { aiSdkUi, history } from "./workloads.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}/dist/index.js`)) execFileSync(`${root}/scripts/build`, { stdio: "inherit" });
const { Compactor } = await import(`${root}/dist/index.js`);

const canonical = history(914 * 3).map(({ usage, ...rest }) => rest);
const ui = aiSdkUi(canonical);
const summaryText = Array.from({ length: 100 }, (_, i) => `- point ${i}: what was decided and why`).join("\n");
const WINDOWS = [
  { name: "128k", window: 128_000, reserve: 16_384, keepRecentTokens: 20_000 },
  { name: "32k", window: 32_000, reserve: 4_096, keepRecentTokens: 8_000 },
];

/** Replays `messages`, compacting before each message `isRequest` picks; the tally of calls. */
async function replay(format, messages, isRequest, size, quoteTurnPrefixTokens) {
  const tally = { compactions: 0, splitTurns: 0, history: 0, turnPrefix: 0, prefixes: [] };
  const generate = async ({ purpose }) => (tally[purpose]++, summaryText);
  const compactor = new Compactor({
    keepRecentTokens: size.keepRecentTokens,
    summarizer: { model: "stub", generate, quoteTurnPrefixTokens },
  });
  let state = { summary: "", messages: [] };
  for (const message of messages) {
    if (isRequest(message) && state.messages.length > 0) {
      const request = { format, ...state, inputTokenBudget: size.window - size.reserve };
      const plan = compactor.plan(request);
      if (plan) {
        const out = await compactor.apply(request, plan);
        tally.compactions++;
        if (plan.splitTurn) {
          tally.splitTurns++;
          // The prefix's whole messages (a UIMessage cut between steps is left out).
          const start = plan.messagesToSummarize.length;
          const whole = plan.turnPrefixMessages.length - (plan.firstKeptPart > 0 ? 1 : 0);
          const tokens = plan.messageTokens.slice(start, start + whole).reduce((a, b) => a + b, 0);
          tally.prefixes.push(plan.firstKeptPart > 0 ? `${tokens}+` : tokens);
        }
        state = { summary: out.summary, messages: out.messages };
      }
    }
    state.messages = [...state.messages, message];
  }
  compactor.free();
  return tally;
}

const histories = [
  ["canonical, per request", "canonical", canonical, (m) => m.role === "assistant"],
  ["ai-sdk-ui, per turn", "ai-sdk-ui", ui, (m) => m.role === "user"],
];
console.log(`${canonical.length} canonical messages (${ui.length} UIMessages): the session three times`);
console.log("| history | window | prefixes | compactions (split turns) | generate calls | calls per compaction |");
console.log("|---|---|---|---:|---:|---:|");
const sizes = [];
for (const [name, format, messages, isRequest] of histories) {
  for (const size of WINDOWS) {
    for (const [label, limit] of [["always summarized (0)", 0], ["quoted up to 1,000", 1_000]]) {
      const t = await replay(format, messages, isRequest, size, limit);
      const calls = t.history + t.turnPrefix;
      const per = t.compactions ? (calls / t.compactions).toFixed(2) : "–";
      console.log(`| ${name} | ${size.name} | ${label} | ${t.compactions} (${t.splitTurns}) | ${calls} (${t.turnPrefix} turnPrefix) | ${per} |`);
      if (limit === 0) sizes.push(`${name}, ${size.name}: ${t.prefixes.sort((a, b) => parseInt(a) - parseInt(b)).join(", ")}`);
    }
  }
}
console.log("\nEstimated tokens of the split turns' prefixes, sorted (n+: n in whole messages, plus the steps before a cut inside a UIMessage):");
for (const line of sizes) console.log(`- ${line}`);
