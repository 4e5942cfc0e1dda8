// The shipped heuristic against o200k and a Claude tokenizer, per kind of text, on the fit
// corpus and the held-out corpus (bench/corpora.mjs); prints Markdown tables and writes a sample
// of the held-out corpus with its o200k counts, which tests/accuracy.rs checks the heuristic on.
//
//   node bench/heuristic.mjs [--base <dist>]      (run `npm ci` in bench/ once; builds dist/ if
//                                                 missing; --base adds a column for another build)
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { fitCorpus, heldOutCorpus, KINDS } from "./corpora.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const baseDir = args.includes("--base") ? resolve(args[args.indexOf("--base") + 1]) : null;
if (!existsSync(`${root}/dist/index.js`)) execFileSync(`${root}/scripts/build`, { stdio: "inherit" });
const ours = new (await import(`${root}/dist/index.js`)).HeuristicEstimator();
const base = baseDir && new (await import(`${baseDir}/index.js`)).HeuristicEstimator();

// Anthropic's published tokenizer is the one of the Claude 2 models; later models count with
// one that is not published, so this column is a neighbour, not the truth.
const claudeTokenizer = createRequire(import.meta.url)("@anthropic-ai/tokenizer").getTokenizer();
// As the package's countTokens does, without building a tokenizer per call.
const claude = (text) => claudeTokenizer.encode(text.normalize("NFKC"), "all").length;

function measure(texts) {
  const sum = (count) => texts.reduce((total, t) => total + count(t), 0);
  return {
    strings: texts.length,
    chars: sum((t) => t.length),
    o200k: sum(o200k),
    claude: sum(claude),
    ours: sum((t) => ours.countTokens(t)),
    base: base ? sum((t) => base.countTokens(t)) : 0,
  };
}

function table(title, corpus) {
  console.log(`\n${title}\n`);
  const extra = base ? " base / o200k |" : "";
  console.log(`| kind | strings | chars | o200k | Claude 2 | heuristic | heuristic / o200k | heuristic / Claude 2 |${extra}`);
  console.log(`|---|---:|---:|---:|---:|---:|---:|---:|${base ? "---:|" : ""}`);
  for (const kind of KINDS) {
    const m = measure(corpus[kind]);
    const r = (x, y) => (x / y).toFixed(3);
    const tail = base ? ` ${r(m.base, m.o200k)} |` : "";
    console.log(
      `| ${kind} | ${m.strings} | ${m.chars} | ${m.o200k} | ${m.claude} | ${m.ours} | ${r(m.ours, m.o200k)} | ${r(m.ours, m.claude)} |${tail}`,
    );
  }
}

const fit = fitCorpus();
const heldOut = heldOutCorpus();
table("Fit corpus (what the weights beyond ASCII, of digits and of mixed case were fitted on):", fit);
table("Held-out corpus:", heldOut);

// Held-out strings of each kind, spread over it (every n-th), each cut to 1,000 characters (at a
// character boundary), up to 8,000 characters a kind, with their o200k counts.
const sample = {};
for (const kind of KINDS) {
  const texts = heldOut[kind];
  const step = Math.max(1, Math.floor(texts.length / 60));
  let room = 8000;
  sample[kind] = [];
  for (let i = 0; i < texts.length && room > 0; i += step) {
    const text = [...texts[i]].slice(0, Math.min(1000, room)).join("");
    room -= text.length;
    sample[kind].push({ text, o200k: o200k(text) });
  }
}
writeFileSync(join(root, "tests/fixtures/o200k-kinds.json"), JSON.stringify(sample, null, 1) + "\n");
