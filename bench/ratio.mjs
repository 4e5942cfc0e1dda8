// The cold-from-bytes targets of bench/run.mjs (`planBytes` / `JSON.parse` of the same body, per
// format), timed in CPU time and paired: each round times one `planBytes` and then one
// `JSON.parse`, and the figure is the median of the rounds' ratios. On a shared, loaded machine
// this is steadier than run.mjs's wall-clock medians taken one after the other.
//
//   node bench/ratio.mjs [dist] [--n 10000] [--rounds 21]
//
// `dist` is a folder scripts/build wrote (default: this checkout's dist/).
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { aiSdk, anthropic, baselineB, history, openAIChat, openAIResponses } from "./workloads.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at < 0 ? fallback : Number(args.splice(at, 2)[1]);
};
const n = option("--n", 10_000);
const rounds = option("--rounds", 21);
const dist = args[0] ?? fileURLToPath(new URL("../dist", import.meta.url));
const { Compactor } = await import(pathToFileURL(resolve(dist, "index.js")).href);
const cold = new Compactor({ keepRecentTokens: 20_000, summarizer: { summarize: async () => "" }, cacheFacts: false });

const cpu = (fn) => {
  const start = process.cpuUsage();
  fn();
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

const messages = history(n);
console.log(`${dist}: ${n} messages, ${rounds} rounds, CPU time\n`);
console.log("| format | planBytes (ms) | JSON.parse (ms) | median of the rounds' ratios | limit |");
console.log("|---|---:|---:|---:|---:|");
for (const [format, convert] of [["canonical", (m) => m], ["openai-chat", openAIChat], ["openai-responses", openAIResponses], ["anthropic", anthropic], ["ai-sdk", aiSdk]]) {
  const body = new TextEncoder().encode(JSON.stringify(convert(messages)));
  const options = format === "canonical" ? { inputTokenBudget: 0 } : { format, inputTokenBudget: 0 };
  const plan = () => cold.planBytes(body, options);
  const parse = () => baselineB(body);
  for (let i = 0; i < 3; i++) plan(), parse();
  const ours = [];
  const theirs = [];
  const ratios = [];
  for (let i = 0; i < rounds; i++) {
    ours.push(cpu(plan));
    theirs.push(cpu(parse));
    ratios.push(ours[i] / theirs[i]);
  }
  console.log(`| ${format} | ${median(ours).toFixed(1)} | ${median(theirs).toFixed(1)} | ${median(ratios).toFixed(2)} | 0.6 |`);
}
