// A/B: two built packages timed against each other in one process, alternately, on the cold
// paths (plan from objects, planBytes) and summarizerInput of every format. On a shared, noisy
// machine the ratio of each round (B over A, taken back to back, in CPU time) is steadier than
// two separate runs.
//
//   node bench/ab.mjs <dist A> <dist B> [--n 10000] [--rounds 15] [--only WORD] [--any-cut]
//
// `--any-cut` times builds that estimate differently (a change of the heuristic), whose plans
// may cut elsewhere; without it, builds that cut or prompt differently are an error.
// `--only objects` (or `bytes`, or a format's name) times only the cases whose name has WORD.
// A dist is a folder scripts/build wrote (e.g. the one of another commit:
// `git worktree add /tmp/base <commit> && (cd /tmp/base && npm ci && scripts/build)`, then
// `/tmp/base/dist`).
// Prints per case the median time of each and the median of the per-round ratios B / A; with the
// peer installed, A's and B's summarizerInput against pi-coding-agent's serializeConversation (the
// ratio of the medians and the median of each round's ratio), and their cold plan from objects
// against its estimateTokens + findCutPoint.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { aiSdk, anthropic, history, openAIChat, openAIResponses } from "./workloads.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at < 0 ? fallback : Number(args.splice(at, 2)[1]);
};
const n = option("--n", 10_000);
const rounds = option("--rounds", 15);
const only = args.includes("--only") ? args.splice(args.indexOf("--only"), 2)[1] : "";
const anyCut = args.includes("--any-cut") && args.splice(args.indexOf("--any-cut"), 1).length > 0;
if (args.length !== 2) {
  console.error("usage: node bench/ab.mjs <dist A> <dist B> [--n 10000] [--rounds 15] [--only WORD] [--any-cut]");
  process.exit(2);
}
const builds = await Promise.all(
  args.map(async (dist) => {
    // The Node entry: index.js, or node.mjs in builds from before the current package layout.
    const entry = existsSync(resolve(dist, "index.js")) ? "index.js" : "node.mjs";
    const { Compactor } = await import(pathToFileURL(resolve(dist, entry)).href);
    const summarizer = { summarize: async () => "" };
    const generator = { model: "m", generate: async () => "" };
    return {
      cold: new Compactor({ keepRecentTokens: 20_000, summarizer, cacheFacts: false }),
      generator: new Compactor({ keepRecentTokens: 20_000, summarizer: generator, cacheFacts: false }),
    };
  }),
);

const messages = history(n);
const cases = [];
for (const [format, convert] of [["canonical", (m) => m], ["openai-chat", openAIChat], ["openai-responses", openAIResponses], ["anthropic", anthropic], ["ai-sdk", aiSdk]]) {
  const host = convert(messages);
  const body = new TextEncoder().encode(JSON.stringify(host));
  const options = format === "canonical" ? {} : { format };
  cases.push({ name: `${format} plan (objects)`, run: ({ cold }) => cold.plan({ messages: host, ...options, inputTokenBudget: 0 }) });
  cases.push({ name: `${format} planBytes (bytes)`, run: ({ cold }) => cold.planBytes(body, { ...options, inputTokenBudget: 0 }) });
  // The prompts apply would send for the plan (both builds plan alike, so either plan serves).
  const plan = builds[0].generator.plan({ messages: host, ...options, inputTokenBudget: 0 });
  cases.push({ name: `${format} summarizerInput`, run: ({ generator }) => generator.summarizerInput({ messages: host, ...options }, plan) });
}

// CPU time of the process (ms) rather than wall time: on a machine shared with other work,
// time spent waiting for a core is not the code's.
const time = (fn) => {
  const start = process.cpuUsage();
  fn();
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Times `runs[0]` and `runs[1]` alternately, `rounds` times: the median of each, and of the
 * per-round ratios second / first. */
function paired(runs) {
  for (let i = 0; i < 3; i++) for (const run of runs) run();
  const times = [[], []];
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    // The order alternates so that neither always runs second (warmer caches, later GC).
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    const t = [0, 0];
    for (const i of order) t[i] = time(runs[i]);
    times[0].push(t[0]);
    times[1].push(t[1]);
    ratios.push(t[1] / t[0]);
  }
  return [median(times[0]).toFixed(1), median(times[1]).toFixed(1), `${median(ratios).toFixed(2)}×`];
}

console.log(`A: ${args[0]}\nB: ${args[1]}\n${n} messages, ${rounds} rounds\n`);
console.log("| case | A (CPU ms) | B (CPU ms) | B / A |");
console.log("|---|---:|---:|---:|");
for (const { name, run } of cases.filter((c) => c.name.includes(only))) {
  // Both agree (same cut, same prompts) before timing.
  const [a, b] = builds.map((c) => run(c));
  if (!anyCut && a.firstKeptIndex !== b.firstKeptIndex) throw new Error(`${name}: A and B cut differently`);
  if (!anyCut && Array.isArray(a) && JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${name}: A and B prompt differently`);
  console.log(`| ${name} | ${paired(builds.map((c) => () => run(c))).join(" | ")} |`);
}

// The peer, when installed ((cd bench && npm ci)): pi-coding-agent's serializeConversation on
// the messages the canonical plan summarizes, with A's and B's summarizerInput, each round in
// turn (pi, A, B): the garbage one leaves is collected while the next runs, so each is followed
// by a different one rather than always by the same.
const pi = await import("@mariozechner/pi-coding-agent").catch(() => null);
if (pi && "canonical summarizerInput".includes(only)) {
  const plan = builds[1].generator.plan({ messages, inputTokenBudget: 0 });
  const summarized = [...plan.messagesToSummarize, ...plan.turnPrefixMessages];
  const runs = [() => pi.serializeConversation(summarized), ...builds.map((c) => () => c.generator.summarizerInput({ messages }, plan))];
  for (let i = 0; i < 3; i++) for (const run of runs) run();
  const times = runs.map(() => []);
  for (let r = 0; r < rounds; r++) runs.forEach((run, i) => times[i].push(time(run)));
  const [p, a, b] = times.map(median);
  // Also the median of the rounds' own ratios: pi's few milliseconds swing with the load.
  const perRound = (i) => median(times[i].map((t, r) => t / times[0][r])).toFixed(2);
  console.log("\n| peer, canonical | pi serializeConversation (CPU ms) | A summarizerInput | B summarizerInput | A / pi | B / pi | A / pi, per round | B / pi, per round |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  console.log(`| ${n} messages | ${p.toFixed(1)} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / p).toFixed(2)}× | ${(b / p).toFixed(2)}× | ${perRound(1)}× | ${perRound(2)}× |`);
}

// The same for a cold plan from objects: pi's estimateTokens over every message + findCutPoint
// (what bench/run.mjs compares with), with A's and B's cold plan of the canonical history.
if (pi && "canonical plan (objects)".includes(only)) {
  const entries = messages.map((message) => ({ type: "message", message }));
  const piPlan = () => {
    for (const message of messages) pi.estimateTokens(message);
    pi.findCutPoint(entries, 0, entries.length, 20_000);
  };
  const runs = [piPlan, ...builds.map((c) => () => c.cold.plan({ messages, inputTokenBudget: 0 }))];
  for (let i = 0; i < 3; i++) for (const run of runs) run();
  const times = runs.map(() => []);
  for (let r = 0; r < rounds; r++) runs.forEach((run, i) => times[i].push(time(run)));
  const [p, a, b] = times.map(median);
  console.log("\n| peer, canonical | pi estimateTokens + findCutPoint (CPU ms) | A plan (objects) | B plan (objects) | A / pi | B / pi |");
  console.log("|---|---:|---:|---:|---:|---:|");
  console.log(`| ${n} messages | ${p.toFixed(1)} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / p).toFixed(2)}× | ${(b / p).toFixed(2)}× |`);
}
