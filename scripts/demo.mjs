// Prints the plan for a conversation: what would be summarized, what kept, and what the
// summarizer would be sent. Uses the built package in dist/ (run through scripts/demo).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Compactor, estimate } from "../dist/index.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    window: { type: "string", default: "128000" },
    reserve: { type: "string", default: "16000" },
    keep: { type: "string", default: "20000" },
    ratio: { type: "string", default: "0.8" },
  },
});
const file = positionals[0] ?? new URL("../tests/fixtures/large-session.jsonl", import.meta.url);
const messages = readFileSync(file, "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line))
  .flatMap((entry) => (entry.type === "message" ? [entry.message] : Array.isArray(entry) ? entry : entry.role ? [entry] : []));

const budget = Math.max(0, Number(values.window) - Number(values.reserve));
const compactor = new Compactor({
  keepRecentTokens: Number(values.keep),
  triggerRatio: Number(values.ratio),
  summarizer: { model: "preview", generate: async () => "" },
});
const request = { messages, inputTokenBudget: budget };
const started = performance.now();
const plan = compactor.plan(request);
const planMs = performance.now() - started;
const { total } = estimate(request);
const fmt = (n) => n.toLocaleString("en-US");

console.log(`conversation   ${fmt(messages.length)} messages, estimated ${fmt(total)} tokens`);
console.log(`budget         ${fmt(budget)} = window ${fmt(Number(values.window))} - reserve ${fmt(Number(values.reserve))}`);
console.log(`trigger        above ${fmt(Math.floor(budget * Number(values.ratio)))} (ratio ${values.ratio}): ${plan ? "fires" : "does not fire"}`);
console.log(`plan took      ${planMs.toFixed(1)} ms`);
if (!plan) process.exit(0);

const kept = messages.length - plan.firstKeptIndex;
console.log(`cut            at message ${plan.firstKeptIndex}${plan.splitTurn ? " (inside a turn: its beginning is summarized separately)" : " (a turn start)"}`);
console.log(`summarized     ${fmt(plan.messagesToSummarize.length)} messages of history`);
if (plan.splitTurn) console.log(`turn prefix    ${fmt(plan.turnPrefixMessages.length)} messages`);
console.log(`kept           ${fmt(kept)} messages (keepRecentTokens ${fmt(Number(values.keep))})`);
console.log(`estimate       ${fmt(plan.estimateBefore)} now → ${fmt(plan.estimateAfterWithoutSummary)} + the summary`);

const describe = (m) => {
  const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content ?? [];
  const first = blocks.find((b) => b.type === "text" || b.type === "toolCall") ?? {};
  const text = first.type === "toolCall" ? `${first.name} ${JSON.stringify(first.arguments)}` : first.text ?? "";
  return `${m.role.padEnd(10)} ${text.replace(/\s+/g, " ").slice(0, 70)}`;
};
console.log("\naround the cut:");
for (let i = Math.max(0, plan.firstKeptIndex - 4); i < Math.min(messages.length, plan.firstKeptIndex + 3); i++) {
  const mark = i === plan.firstKeptIndex ? "──▶ " : "    ";
  console.log(`${mark}${String(i).padStart(5)} ${String(plan.messageTokens[i]).padStart(6)} tok  ${describe(messages[i])}`);
}
for (const prompt of compactor.summarizerInput(request, plan)) {
  const lines = prompt.prompt.split("\n");
  console.log(`\nsummarizer input (${prompt.purpose}, ${fmt(prompt.prompt.length)} chars), first lines:`);
  console.log(lines.slice(0, 8).map((l) => `  │ ${l.slice(0, 100)}`).join("\n"));
}
