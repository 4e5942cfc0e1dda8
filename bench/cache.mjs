// The per-message facts cache (`cacheFacts`, on by default) at 100k messages, in a child process
// per case and build: the peak RSS of the first plan over the process before it (which fills
// the cache), the JavaScript heap the cache holds after a full GC, and the time of a plan
// whose facts all come from the cache. Medians of --runs.
//   node bench/cache.mjs [--runs 3] [dist ...]     (default: the repository's dist/)
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const at = args.indexOf("--runs");
const runs = at >= 0 ? Number(args.splice(at, 2)[1]) : 3;
const dists = (args.length ? args : [fileURLToPath(new URL("../dist", import.meta.url))]).map((d) => resolve(d));
const here = fileURLToPath(new URL(".", import.meta.url));

const measure = (dist) => {
  const script = `import { readFileSync } from "node:fs"; import { history } from "./workloads.mjs";
    const hwm = () => Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    const m = history(100000);
    const { Compactor } = await import(${JSON.stringify(`${dist}/index.js`)});
    const c = new Compactor({ keepRecentTokens: 20000, summarizer: { summarize: async () => "" } });
    c.plan({ messages: m.slice(0, 10), inputTokenBudget: 0 });
    globalThis.gc();
    const before = hwm(), heapBefore = process.memoryUsage().heapUsed;
    c.plan({ messages: m, inputTokenBudget: 0 });
    const peak = hwm() - before;
    globalThis.gc();
    const held = (process.memoryUsage().heapUsed - heapBefore) / 1048576;
    const start = performance.now();
    c.plan({ messages: m, inputTokenBudget: 0 });
    console.log(JSON.stringify({ peak, held, cached: performance.now() - start }));`;
  const out = spawnSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { cwd: here, encoding: "utf8" });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
};

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const seen = Object.fromEntries(dists.map((d) => [d, []]));
// Round-robin, so that a change in the machine's load touches every build alike.
for (let i = 0; i < runs; i++) for (const dist of dists) seen[dist].push(measure(dist));
console.log(`100k messages, cacheFacts on (the default), medians of ${runs}:\n`);
console.log("| build | first plan: peak RSS over before (MB) | heap the cache holds (MB) | plan from the cache (ms) |");
console.log("|---|---:|---:|---:|");
for (const [dist, list] of Object.entries(seen)) {
  const m = (key) => median(list.map((r) => r[key]));
  console.log(`| ${dist} | ${m("peak").toFixed(1)} | ${m("held").toFixed(1)} | ${m("cached").toFixed(1)} |`);
}
