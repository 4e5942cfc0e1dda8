// Measures the heuristic estimator against the o200k tokenizer on a real session, per category
// (framing overhead left out), prints a Markdown table, and writes the o200k totals that the
// native accuracy test (tests/accuracy.rs) checks against.
//
//   node bench/accuracy.mjs [session.jsonl]      (run `npm ci` in bench/ once)
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

// The tokenizer Anthropic published (Claude 2's; later models count with one not published).
const claudeTokenizer = createRequire(import.meta.url)("@anthropic-ai/tokenizer").getTokenizer();
const claude = (text) => claudeTokenizer.encode(text.normalize("NFKC"), "all").length;

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const session = process.argv[2] ?? join(root, "tests/fixtures/large-session.jsonl");
const categories = ["user", "assistant", "thinking", "toolCall", "toolResult"];

// Mirrors tests/support/categories.rs: the same strings, the same JSON serialization.
function strings(jsonl) {
  const out = Object.fromEntries(categories.map((c) => [c, []]));
  for (const line of jsonl.split("\n")) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line);
    if (entry.type !== "message") continue;
    const m = entry.message;
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content ?? [];
    for (const b of blocks) {
      if (m.role === "user" && b.type === "text") out.user.push(b.text);
      if (m.role === "toolResult" && b.type === "text") out.toolResult.push(b.text);
      if (m.role !== "assistant") continue;
      if (b.type === "text") out.assistant.push(b.text);
      if (b.type === "thinking") out.thinking.push(b.thinking);
      if (b.type === "toolCall") out.toolCall.push(b.name, JSON.stringify(b.arguments ?? null));
    }
  }
  return out;
}

const texts = strings(readFileSync(session, "utf8"));
const o200k = {};
const claude2 = {};
const quarter = {};
for (const c of categories) {
  o200k[c] = texts[c].reduce((sum, t) => sum + countTokens(t), 0);
  claude2[c] = texts[c].reduce((sum, t) => sum + claude(t), 0);
  quarter[c] = texts[c].reduce((sum, t) => sum + Math.ceil(t.length / 4), 0);
}
const heuristic = JSON.parse(
  execFileSync("cargo", ["run", "-q", "--release", "--example", "categories", "--", session], {
    cwd: root,
    encoding: "utf8",
  }),
);
writeFileSync(join(root, "tests/fixtures/o200k-categories.json"), JSON.stringify(o200k, null, 2) + "\n");

const sum = (o) => categories.reduce((s, c) => s + o[c], 0);
const row = (name, n, t, h, q, c) =>
  `| ${name} | ${n} | ${t} | ${h} | ${(h / t).toFixed(3)} | ${(q / t).toFixed(3)} | ${c} | ${(h / c).toFixed(3)} |`;
console.log(
  "| category | strings | o200k tokens | heuristic | heuristic / o200k | chars/4 / o200k | Claude 2 tokens | heuristic / Claude 2 |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
for (const c of categories) console.log(row(c, texts[c].length, o200k[c], heuristic[c], quarter[c], claude2[c]));
const n = categories.reduce((s, c) => s + texts[c].length, 0);
console.log(row("**all**", n, sum(o200k), sum(heuristic), sum(quarter), sum(claude2)));
