// Where a cold plan from objects spends its time, stage by stage, in two builds side by side: the
// builds plan the same 10k canonical messages alternately in one process (as bench/ab.mjs does),
// first unprofiled (CPU time, medians of paired rounds), then under V8's sampling profiler; each
// sample inside `Compactor.plan` goes to the stage of its innermost frame that names one (a
// helper such as the allocator or memcmp goes to its caller's stage). The wasm frames have names
// only in a build whose .wasm kept its name section (bench/README.md: "Where the cold plan's
// time went since cd018f1" says how to make one); in a stripped build they count as "wasm".
//
//   node bench/stages.mjs <dist A> <dist B> [--rounds 60] [--interval 250] [--cache] [--leaves]
//
// `--cache`: the first plan with the facts cache on (the default), each round on new message
// objects of the same content. `--leaves`: the functions with the most self time in each stage.
// The profiled times are longer than the unprofiled ones; the table scales each stage's share
// of its build's profiled plan time to that build's unprofiled median.
import { Session } from "node:inspector/promises";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { history } from "./workloads.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at < 0 ? fallback : Number(args.splice(at, 2)[1]);
};
const flag = (name) => args.includes(name) && args.splice(args.indexOf(name), 1).length > 0;
const rounds = option("--rounds", 60);
const interval = option("--interval", 250);
const cache = flag("--cache");
const leaves = flag("--leaves");
if (args.length !== 2) {
  console.error("usage: node bench/stages.mjs <dist A> <dist B> [--rounds 60] [--interval 250] [--cache] [--leaves]");
  process.exit(2);
}
const dists = args.map((d) => resolve(d));
const builds = [];
for (const dist of dists) {
  // index.js, or node.mjs in builds from before the current package layout.
  const entry = existsSync(resolve(dist, "index.js")) ? "index.js" : "node.mjs";
  builds.push((await import(pathToFileURL(resolve(dist, entry)).href)).Compactor);
}
const summarizer = { summarize: async () => "" };
const shared = history(10_000);
// CPU time of one plan of build i (ms), on a new Compactor.
const planOnce = (i) => {
  const compactor = new builds[i]({ keepRecentTokens: 20_000, summarizer, cacheFacts: cache });
  // With the cache: new message objects (the cache keys on them), the same content.
  const messages = cache ? shared.map((m) => ({ ...m })) : shared;
  const start = process.cpuUsage();
  compactor.plan({ messages, inputTokenBudget: 0 });
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Unprofiled: paired rounds, the order alternating.
for (let r = 0; r < 3; r++) for (const i of [0, 1]) planOnce(i);
const times = [[], []];
const ratios = [];
for (let r = 0; r < rounds; r++) {
  const t = [0, 0];
  for (const i of r % 2 ? [1, 0] : [0, 1]) t[i] = planOnce(i);
  times[0].push(t[0]);
  times[1].push(t[1]);
  ratios.push(t[1] / t[0]);
}

// Profiled: the same rounds again.
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval });
await session.post("Profiler.start");
for (let r = 0; r < rounds; r++) for (const i of r % 2 ? [1, 0] : [0, 1]) planOnce(i);
const { profile } = await session.post("Profiler.stop");
session.disconnect();

// Stages, tested on each frame from the innermost out; the first that names one wins.
const STAGES = [
  ["walk (JS walker: visit, copy into wasm)", (f) => /\/walk\.c?js$/.test(f.url)],
  ["size.js (sizes of a sample)", (f) => /\/size\.js$/.test(f.url)],
  ["facts cache (WeakMap, encode)", (f) => /cache::(store|cached|encode|decode|map_for)|facts_text/.test(f.functionName)],
  ["score (the estimator)", (f) => /scan::score|body::count|formats::count|::token::|Heuristic/.test(f.functionName)],
  ["words -> nodes (tape checked, copied)", (f) => /scan::words::from_words|scan::text::utf8|wasm::walk::laid_out/.test(f.functionName)],
  ["read (format readers over the tape)", (f) => /formats::|scan::node|body::walked|Val::|Obj::|scan::find/.test(f.functionName)],
  ["facts, ids", (f) => /ids::|::facts::|RecentCalls|wasm::cache::|wasm::walk::/.test(f.functionName)],
  ["usage, anchor (wasm)", (f) => /reported::|anchor::|usage/.test(f.functionName)],
  ["tail, sample (wasm)", (f) => /tail::|sample::|sizer::/.test(f.functionName)],
  ["planner", (f) => /::plan::|compactor::Compactor|plan_with_facts/.test(f.functionName)],
  ["plan object, request", (f) => /convert::/.test(f.functionName)],
  ["wasm (no names)", (f) => /^wasm-function/.test(f.functionName)],
];
// What a frame further out says the work was for: anchoring (the usage on the latest answers,
// read by the plan from the tail and again by the full plan; the tail's sample of sizes; its
// first look at the latest 128 messages, read again by the full read when the cache is off,
// until the full read after it read only the messages before them: `messages_facts_before`)
// rather than the plan's own full read.
const purposeOf = (names) =>
  names.some((n) => /walk::usages|reported::reports/.test(n)) ? "usage of the latest answers (twice)"
    : names.some((n) => /sizer::|sample::/.test(n)) ? "tail's sample of sizes"
    : !cache && names.some((n) => /cache::messages_facts(?!_before)/.test(n)) ? "tail's first look (128 messages, read again)"
    : "";

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const stacks = new Map();
const stackOf = (id) => {
  let stack = stacks.get(id);
  if (stack) return stack;
  stack = [];
  for (let x = id; x !== undefined; x = parent.get(x)) stack.push(byId.get(x).callFrame);
  stacks.set(id, stack);
  return stack;
};
const glue = /_bg\.js$|\/context_compaction\.js$/;
const tables = dists.map(() => ({ total: 0, stages: new Map(), tail: new Map(), leaves: new Map() }));
const add = (map, key, dt) => map.set(key, (map.get(key) ?? 0) + dt);
for (let i = 0; i < profile.samples.length; i++) {
  const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  const stack = stackOf(profile.samples[i]);
  const top = stack.findIndex((f) => f.functionName === "plan" && glue.test(f.url));
  if (top < 0) continue;
  const b = dists.findIndex((d) => stack[top].url.startsWith(pathToFileURL(d).href + "/"));
  if (b < 0) continue;
  const inner = stack.slice(0, top);
  const table = tables[b];
  table.total += dt;
  let stage = "other";
  for (const f of inner) {
    const hit = STAGES.find(([, test]) => test(f));
    if (hit) {
      stage = hit[0];
      break;
    }
  }
  const purpose = purposeOf(inner.map((f) => f.functionName));
  if (purpose) add(table.tail, purpose, dt);
  else add(table.stages, stage, dt);
  const leaf = `${inner[0]?.functionName.replace(/::h[0-9a-f]{16}$/, "").slice(0, 100) || "(anon)"} ${inner[0]?.url.split("/").pop() ?? ""}`;
  add(table.leaves, `${purpose || stage}\t${leaf}`, dt);
}

const unprofiled = times.map(median);
console.log(`A: ${dists[0]}\nB: ${dists[1]}\n10000 messages, ${cache ? "facts cache on, first plan" : "cacheFacts: false"}, ${rounds} rounds`);
console.log(`unprofiled plan (CPU ms, medians): A ${unprofiled[0].toFixed(1)}, B ${unprofiled[1].toFixed(1)}, B / A ${median(ratios).toFixed(2)}× (median of the rounds' ratios)`);
console.log(`profiled plan (ms): A ${(tables[0].total / rounds).toFixed(1)}, B ${(tables[1].total / rounds).toFixed(1)}\n`);
console.log("| stage | A (ms) | B (ms) | B / A | B - A (ms) |");
console.log("|---|---:|---:|---:|---:|");
// Each stage's share of its build's profiled time, times that build's unprofiled median.
const scaled = (b, ms) => (ms / tables[b].total) * unprofiled[b];
const rows = new Map();
for (const [b, table] of tables.entries()) {
  for (const [stage, ms] of table.stages) (rows.get(stage) ?? rows.set(stage, [0, 0]).get(stage))[b] = scaled(b, ms);
  for (const [purpose, ms] of table.tail) {
    const key = `anchoring: ${purpose}`;
    (rows.get(key) ?? rows.set(key, [0, 0]).get(key))[b] = scaled(b, ms);
  }
}
for (const [stage, [a, b]] of [...rows].sort((x, y) => y[1][1] - x[1][1])) {
  const ratio = a > 0.005 ? `${(b / a).toFixed(2)}×` : "—";
  console.log(`| ${stage} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${ratio} | ${(b - a >= 0 ? "+" : "") + (b - a).toFixed(2)} |`);
}
console.log(`| **plan** | ${unprofiled[0].toFixed(2)} | ${unprofiled[1].toFixed(2)} | ${(unprofiled[1] / unprofiled[0]).toFixed(2)}× | +${(unprofiled[1] - unprofiled[0]).toFixed(2)} |`);
if (leaves) {
  for (const [b, table] of tables.entries()) {
    console.log(`\n${b === 0 ? "A" : "B"}: the functions with the most self time, by stage (scaled ms)`);
    const stages = [...new Set([...table.leaves.keys()].map((k) => k.split("\t")[0]))];
    for (const stage of stages) {
      console.log(`  ${stage}`);
      const top = [...table.leaves].filter(([k]) => k.startsWith(`${stage}\t`)).sort((x, y) => y[1] - x[1]).slice(0, 8);
      for (const [k, ms] of top) console.log(`    ${scaled(b, ms).toFixed(2).padStart(6)} ${k.split("\t")[1]}`);
    }
  }
}
