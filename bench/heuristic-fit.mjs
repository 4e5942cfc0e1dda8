// How the heuristic's weights for text beyond ASCII, digit runs and mixed case were obtained:
// weighted least squares over per-string counts, against o200k, on the fit corpus
// (bench/corpora.mjs), the other weights (fitted on the session before) held fixed:
//   1. the three character weights on the fit corpus's cjk, latin, cyrillic and emoji texts;
//   2. the digit-run and space-before-digits weights, a group of three digits fixed at one
//      token (o200k's rule), on its digits texts and the session's strings together (so that
//      the session stays where it was);
//   3. the mixed-case weight on its base64 texts.
// Each string weighs 1 / (o200k tokens of its kind × its own), so each kind counts alike and
// errors are relative. Prints the weights, in hundredths of a token, as scan/src/score.rs has
// them rounded.
//
//   node bench/heuristic-fit.mjs      (run `npm ci` in bench/ once)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { fitCorpus } from "./corpora.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The counts the heuristic weighs, for one text (the definition, `bytewise` in score.rs). */
function features(text) {
  const b = new TextEncoder().encode(text);
  const upper = (x) => x >= 65 && x <= 90;
  const lower = (x) => x >= 97 && x <= 122;
  const alpha = (x) => upper(x) || lower(x);
  const digit = (x) => x >= 48 && x <= 57;
  const space = (x) => x === 32 || x === 9;
  const f = { word: 0, long: 0, mixed: 0, group: 0, run: 0, afterSpace: 0, punct: 0, newline: 0, indent: 0 };
  Object.assign(f, { two: 0, three: 0, four: 0 });
  for (let i = 0; i < b.length; ) {
    const start = i;
    const x = b[i++];
    if (alpha(x)) {
      let prev = x;
      while (i < b.length && alpha(b[i]) && !(upper(b[i]) && lower(prev))) prev = b[i++];
      f.word++;
      f.long += Math.max(0, i - start - 6);
      for (let k = Math.max(start, 3); k < i; k++) {
        const mid = (lower(b[k - 1]) && upper(b[k - 2])) || (upper(b[k - 1]) && lower(b[k - 2]));
        if (upper(b[k]) && upper(b[k - 3]) && mid) f.mixed++;
      }
    } else if (digit(x)) {
      while (i < b.length && digit(b[i])) i++;
      f.run++;
      f.group += Math.ceil((i - start) / 3);
      if (start > 0 && space(b[start - 1])) f.afterSpace++;
    } else if (x === 10) f.newline++;
    else if (space(x)) {
      while (i < b.length && space(b[i])) i++;
      if (i - start >= 2) f.indent++;
    } else if (x < 128) {
      if (x > 32 && x < 127) f.punct++;
    } else if (x >= 0xf0) f.four++;
    else if (x >= 0xe0) f.three++;
    else if (x >= 0xc0) f.two++;
  }
  return f;
}

/** The strings of the session, as bench/accuracy.mjs splits them (all categories together). */
function sessionStrings() {
  const out = [];
  const jsonl = readFileSync(join(root, "tests/fixtures/large-session.jsonl"), "utf8");
  for (const line of jsonl.split("\n")) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line);
    if (entry.type !== "message") continue;
    const m = entry.message;
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    for (const block of blocks) {
      if (block.type === "text") out.push(block.text);
      if (block.type === "thinking") out.push(block.thinking);
      if (block.type === "toolCall") out.push(block.name, JSON.stringify(block.arguments ?? null));
    }
  }
  return out;
}

/** Solves `a x = b` by Gaussian elimination with partial pivoting (a few unknowns). */
function solve(a, b) {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let i = 0; i < n; i++) {
    let p = i;
    for (let j = i + 1; j < n; j++) if (Math.abs(m[j][i]) > Math.abs(m[p][i])) p = j;
    [m[i], m[p]] = [m[p], m[i]];
    for (let j = i + 1; j < n; j++) {
      const f = m[j][i] / m[i][i];
      for (let k = i; k <= n; k++) m[j][k] -= f * m[i][k];
    }
  }
  const x = new Array(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = m[i][n];
    for (let k = i + 1; k < n; k++) s -= m[i][k] * x[k];
    x[i] = s / m[i][i];
  }
  return x;
}

/** Fits the weights named in `free` on `rows` ({ kind, f, o200k }), the others as in `weights`. */
function fit(weights, free, rows) {
  const fixed = { ...weights };
  for (const name of free) fixed[name] = 0;
  const totals = {};
  for (const r of rows) totals[r.kind] = (totals[r.kind] ?? 0) + r.o200k;
  const a = free.map(() => free.map(() => 0));
  const b = free.map(() => 0);
  for (const r of rows) {
    const known = Object.keys(fixed).reduce((s, name) => s + fixed[name] * r.f[name], 0);
    const y = r.o200k - known;
    const x = free.map((name) => r.f[name]);
    const w = 1 / totals[r.kind] / Math.max(1, r.o200k);
    free.forEach((_, i) => {
      b[i] += w * x[i] * y;
      free.forEach((_, j) => (a[i][j] += w * x[i] * x[j]));
    });
  }
  const solution = solve(a, b);
  const out = { ...weights };
  free.forEach((name, i) => (out[name] = Math.round(solution[i] * 100) / 100));
  return out;
}

const corpus = fitCorpus();
const rows = (kinds) =>
  kinds.flatMap((kind) => corpus[kind].map((t) => ({ kind, f: features(t), o200k: o200k(t) })));
const session = sessionStrings().map((t) => ({ kind: "session", f: features(t), o200k: o200k(t) }));

// The weights fitted on the session before (scan/src/score.rs), held fixed.
let weights = { word: 1, long: 0.25, punct: 0.4, newline: 1, indent: 0.5, group: 1 };
weights = { ...weights, mixed: 0, run: 0, afterSpace: 0 };
weights = fit(weights, ["two", "three", "four"], rows(["cjk", "latin", "cyrillic", "emoji"]));
weights = fit(weights, ["run", "afterSpace"], [...rows(["digits"]), ...session]);
weights = fit(weights, ["mixed"], rows(["base64"]));
for (const [name, value] of Object.entries(weights)) console.log(`${name}: ${Math.round(value * 100)}`);
