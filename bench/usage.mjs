// Provider-true estimates on a real session: replays tests/fixtures/large-session.jsonl (a
// Claude Sonnet 4.5 coding session with the usage Anthropic reported on each answer) request by
// request, and compares each request's estimate with the prompt the provider counted for it
// (input + cache reads + cache writes of the answer it produced).
//
//   node bench/usage.mjs
//
// - plain: the local estimate of the request, with no usage (what the package did before);
// - anchored: `estimate(request)` with the usage of the earlier answers on their messages, as a
//   host passes it (each request sees only the answers before it);
// - held out: the ratio learned from one half of the session (the ratio `estimate` reports for
//   the last request of that half) times the local estimate of each request of the other half
//   without its failed attempts (aborted or error answers: the provider never counts them, and
//   a calibrated estimate leaves them out), which uses none of that half's usage.
import { readFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}/dist/index.js`)) execFileSync(`${root}/scripts/build`, { stdio: "inherit" });
const { estimate } = await import(`${root}/dist/index.js`);

const messages = readFileSync(`${root}/tests/fixtures/large-session.jsonl`, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line))
  .filter((entry) => entry.type === "message")
  .map((entry) => entry.message);
const withoutUsage = messages.map(({ usage, ...rest }) => rest);
const failed = (m) => m.role === "assistant" && (m.stopReason === "aborted" || m.stopReason === "error");

// Each answer with a usable usage is the reply to the request of the messages before it.
const prompt = (u) => u.input + u.cacheRead + u.cacheWrite;
const requests = [];
messages.forEach((m, j) => {
  if (m.role !== "assistant" || !m.usage || failed(m)) return;
  if (prompt(m.usage) > 0) requests.push({ j, reported: prompt(m.usage) });
});

for (const r of requests) {
  r.plain = estimate({ messages: withoutUsage.slice(0, r.j) }).total;
  r.sent = estimate({ messages: withoutUsage.slice(0, r.j).filter((m) => !failed(m)) }).total;
  const anchored = estimate({ messages: messages.slice(0, r.j) });
  r.anchored = anchored.total;
  r.ratio = anchored.ratio ?? null;
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const errors = (rows, key) => rows.map((r) => Math.abs(r[key] / r.reported - 1));
const ratioMedian = (rows, key) => quantile(rows.map((r) => r[key] / r.reported), 0.5);
const pct = (x) => `${(100 * x).toFixed(1)}%`;

function line(name, rows, key) {
  const e = errors(rows, key);
  return `| ${name} | ${rows.length} | ${ratioMedian(rows, key).toFixed(3)}× | ${pct(quantile(e, 0.5))} | ${pct(quantile(e, 0.95))} | ${pct(Math.max(...e))} |`;
}

const half = Math.floor(requests.length / 2);
const first = requests.slice(0, half);
const second = requests.slice(half);
// The ratio learned from a half: what `estimate` reports for that half's last request.
const learned = (rows) => rows[rows.length - 1].ratio;
const heldOut = (rows, ratio) => rows.map((r) => ({ ...r, calibrated: r.sent * ratio }));
const ratioFirst = learned(first);
const ratioSecond = learned(second);

console.log(`${messages.length} messages, ${requests.length} requests with usage\n`);
console.log("| estimate | requests | median estimate / reported | median abs error | p95 abs error | max abs error |");
console.log("|---|---:|---:|---:|---:|---:|");
console.log(line("plain (no usage)", requests, "plain"));
console.log(line("anchored and calibrated", requests, "anchored"));
console.log(line("anchored and calibrated, first half", first, "anchored"));
console.log(line("anchored and calibrated, second half", second, "anchored"));
console.log(line(`held out: second half × ratio of the first (${ratioFirst.toFixed(3)})`, heldOut(second, ratioFirst), "calibrated"));
console.log(line(`held out: first half × ratio of the second (${ratioSecond.toFixed(3)})`, heldOut(first, ratioSecond), "calibrated"));

// The ratio a plan from the tail calibrates by (docs/anchored.md): the
// provider's count over ours between the earliest answer of the tail that carries usage and
// the latest, against the whole conversation's ratio (what a plan reading every message uses),
// at each request, for spans of at least 16,000 and 40,000 of our tokens (a tail holds at
// least 16,000, and about twice `keepRecentTokens`: 40,000 by default).
{
  const tokens = estimate({ messages: withoutUsage }).messages;
  const sent = (from, to) => {
    let sum = 0;
    for (let i = from; i < to; i++) if (!failed(messages[i])) sum += tokens[i];
    return sum;
  };
  const carried = (j) => prompt(messages[j].usage) + messages[j].usage.output;
  for (const span of [16_000, 40_000]) {
    const off = [];
    for (const r of requests) {
      if (r.ratio === null) continue;
      // The latest answer before the request, and the latest earlier one at least `span` away.
      const before = requests.filter((q) => q.j < r.j);
      const a = before.at(-1);
      const b = a && before.findLast((q) => sent(q.j + 1, a.j + 1) >= span);
      if (!b) continue;
      const between = (carried(a.j) - carried(b.j)) / sent(b.j + 1, a.j + 1);
      off.push(Math.abs(between / r.ratio - 1));
    }
    console.log(`ratio between two answers ${span.toLocaleString("en-US")}+ tokens apart against the whole conversation's: ${off.length} requests, median ${pct(quantile(off, 0.5))} off, p95 ${pct(quantile(off, 0.95))}, max ${pct(Math.max(...off))}`);
  }
  // Which ratio counts the kept messages (the latest 20,000 of our tokens, the default keep)
  // as the provider does? Their count is known: the difference of the reports around them.
  const apart = (a, span) => requests.filter((q) => q.j < a.j).findLast((q) => sent(q.j + 1, a.j + 1) >= span);
  const spanRatio = (a, b) => (carried(a.j) - carried(b.j)) / sent(b.j + 1, a.j + 1);
  const errors = { whole: [], tail: [] };
  for (const r of requests) {
    const a = requests.filter((q) => q.j < r.j).at(-1);
    const kept = a && apart(a, 20_000);
    const tail = a && apart(a, 40_000);
    if (!kept || !tail || r.ratio === null) continue;
    const truth = spanRatio(a, kept);
    errors.whole.push(Math.abs(r.ratio / truth - 1));
    errors.tail.push(Math.abs(spanRatio(a, tail) / truth - 1));
  }
  for (const [name, e] of Object.entries(errors)) {
    console.log(`the latest 20,000 tokens at the ${name === "whole" ? "whole conversation's ratio" : "ratio of the latest 40,000+"} against the provider's count of them: ${e.length} requests, median ${pct(quantile(e, 0.5))} off, p95 ${pct(quantile(e, 0.95))}`);
  }
}

// Cold plan of an anchored 10k history against pi's own usage-anchored prepareCompaction, on the
// same messages (bench/workloads.mjs's `anchoredHistory`: the session repeated, each answer with
// the usage a provider would report for this history).
const pi = await import(`${root}/bench/node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/index.js`).catch(() => null);
if (pi) {
  const { anchoredHistory } = await import("./workloads.mjs");
  const { Compactor } = await import(`${root}/dist/index.js`);
  const long = anchoredHistory(10_000, estimate);
  const entries = long.map((message, i) => ({ type: "message", id: `e${i}`, parentId: i ? `e${i - 1}` : null, timestamp: "", message }));
  const settings = { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 };
  const cold = new Compactor({ keepRecentTokens: 20_000, summarizer: { summarize: async () => "" }, cacheFacts: false });
  const cpu = (f) => {
    const start = process.cpuUsage();
    f();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  // Each round times the two back to back; the median of the rounds' ratios is steadier on a
  // loaded machine than the ratio of the medians (both are printed).
  const ours = [];
  const theirs = [];
  const ratios = [];
  const rounds = 41;
  for (let round = 0; round < rounds; round++) {
    ours.push(cpu(() => cold.plan({ messages: long, inputTokenBudget: 0 })));
    theirs.push(cpu(() => pi.prepareCompaction(entries, settings)));
    ratios.push(ours[round] / theirs[round]);
  }
  const plan = cold.plan({ messages: long, inputTokenBudget: 0 });
  const median = (values) => quantile(values, 0.5);
  console.log(`\ncold plan of an anchored 10k history (CPU ms, median of ${rounds}, alternating): ours ${median(ours).toFixed(1)}, pi prepareCompaction ${median(theirs).toFixed(1)}, ratio ${(median(ours) / median(theirs)).toFixed(2)}×, median of the rounds' ratios ${median(ratios).toFixed(2)}× (anchored: ${estimate({ messages: long }).anchor ? "yes" : "no"}, estimateBefore ${plan.estimateBefore})`);
  // The plan reads only the tail (docs/anchored.md); planBytes reads every
  // message of the same history: the same rules, with the exact ratio.
  const whole = cold.planBytes(JSON.stringify(long), { inputTokenBudget: 0 });
  const tailSum = (p) => p.messageTokens.slice(-100).reduce((a, b) => a + b, 0);
  console.log(`the same plan reading every message (planBytes): estimateBefore ${whole.estimateBefore}, firstKeptIndex ${whole.firstKeptIndex} (tail: ${plan.firstKeptIndex}), estimateAfterWithoutSummary ${whole.estimateAfterWithoutSummary} (tail: ${plan.estimateAfterWithoutSummary}), calibration ratio of the tail plan over the exact one (last 100 messages) ${(tailSum(plan) / tailSum(whole)).toFixed(4)}`);
} else {
  console.log("\n(the peer is not installed: `(cd bench && npm ci)` for the cold-plan comparison)");
}
