// Peak memory of a cold plan of 100k messages, repeated: the memory section of bench/run.mjs
// (each case a child process reporting its own VmHWM, Linux) run --runs times over, with
// medians, for one or more builds and the peer. A single pair of child processes varies by
// several MB from run to run (when V8 collects garbage moves the peak), so the medians are what
// to compare. --flat-ids builds the history with flat tool-call ids, as a host's parsed messages
// have them (bench/workloads.mjs: the ids made by `+=` are flattened by the first reader of
// their characters, about 4 MB of JavaScript heap that a cold plan is charged with).
// --settled collects the young generation once after the history is built, in every case
// (`--expose-gc`): building it leaves new space nearly full and V8 schedules a scavenge for
// the next turn of the event loop, which the `await import()` of a case gives it and the
// reference case never does; that scavenge promotes the history's young objects (about 6.5 MB
// of old space), charged to whichever case it happens in (about half of the runs of a cold
// plan or of a loaded package, by when the build crossed V8's threshold).
//   node bench/memory.mjs [--runs 7] [--flat-ids] [--settled] [dist ...]     (default: the repository's dist/)
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const at = args.indexOf("--runs");
const runs = at >= 0 ? Number(args.splice(at, 2)[1]) : 7;
const flat = args.indexOf("--flat-ids");
const flatIds = flat >= 0 && args.splice(flat, 1).length > 0;
const settle = args.indexOf("--settled");
const settled = settle >= 0 && args.splice(settle, 1).length > 0;
const dists = (args.length ? args : [fileURLToPath(new URL("../dist", import.meta.url))]).map((d) => resolve(d));
const here = fileURLToPath(new URL(".", import.meta.url));

const plan = (dist, messages) => `const { Compactor } = await import(${JSON.stringify(`${dist}/index.js`)});
  new Compactor({ keepRecentTokens: 20000, summarizer: { summarize: async () => "" }, cacheFacts: false }).plan({ messages: ${messages}, inputTokenBudget: 0 });`;
const cases = {
  "holding the history": "",
  // No package at all: what V8 adds when anything allocates 6 MB of short-lived objects
  // after the history was built (its young generation grows), for scale.
  "holding the history, then 6 MB of short-lived objects": "let x = []; for (let i = 0; i < 120000; i++) x.push({ a: i }); x = null;",
};
for (const dist of dists) {
  cases[`${dist}: loaded (a plan of 10 messages)`] = plan(dist, "m.slice(0, 10)");
  cases[`${dist}: cold plan`] = plan(dist, "m");
}
const peer = spawnSync(process.execPath, ["--input-type=module", "-e", `await import("@mariozechner/pi-coding-agent")`], { cwd: here }).status === 0;
if (peer) {
  cases["pi: imported"] = `await import("@mariozechner/pi-coding-agent");`;
  cases["pi: estimateTokens + findCutPoint"] = `const pi = await import("@mariozechner/pi-coding-agent");
    const entries = m.map((message) => ({ type: "message", message }));
    for (const message of m) pi.estimateTokens(message);
    pi.findCutPoint(entries, 0, entries.length, 20000);`;
}

const peak = (body) => {
  const script = `import { readFileSync } from "node:fs"; import { history } from "./workloads.mjs";
    const m = history(100000, { flatIds: ${flatIds} });
    ${settled ? `globalThis.gc({ type: "minor" });` : ""}
    ${body}
    const status = /VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"));
    console.log(status ? Number(status[1]) : process.resourceUsage().maxRSS);`;
  const flags = settled ? ["--expose-gc"] : [];
  const out = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", script], { cwd: here, encoding: "utf8" });
  if (out.status !== 0) throw new Error(out.stderr);
  return Number(out.stdout.trim()) / 1024;
};
const seen = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
// Round-robin, so that a change in the machine's load touches every case alike.
for (let r = 0; r < runs; r++) for (const [name, body] of Object.entries(cases)) seen[name].push(peak(body));
const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
const base = median(seen["holding the history"]);
console.log(`peak RSS (VmHWM), 100k messages${flatIds ? " (flat ids)" : ""}${settled ? " (young generation collected after the build)" : ""}, ${runs} runs: median, and the extra over holding the history (median, min–max)\n`);
console.log("| case | peak RSS (MB) | extra (MB) | extra min–max (MB) |");
console.log("|---|---:|---:|---:|");
for (const [name, list] of Object.entries(seen)) {
  const extra = (v) => (v - base).toFixed(1);
  console.log(`| ${name} | ${median(list).toFixed(1)} | ${extra(median(list))} | ${extra(Math.min(...list))}–${extra(Math.max(...list))} |`);
}
