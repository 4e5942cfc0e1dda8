// What each large feature costs the shipped `.wasm` + glue: the package built by scripts/build
// from a copy of this checkout whose source has the feature's entry points stubbed out (each
// returns "nothing to do" first, so that LTO drops the code behind it), against the copy
// unchanged. The stubs are for measuring only: the builds they make are not correct packages.
//
//   node bench/size-features.mjs [--only NAME]
//
// Needs what scripts/build needs (scripts/setup). The copies build in target/size-features
// (the standard library is compiled once there; each build after it takes under a minute).
// Prints, per variant, the gzip size of the `.wasm` and of the glue with Node's zlib at its
// default level (as bench/run.mjs counts them) and the `.wasm` at level 9 (close to, not the
// same as, the `gzip -9` scripts/build prints).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const args = process.argv.slice(2);
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;

/** `fn name(...) -> ... {` gets `early` as its first statement. */
const returnEarly = (name, early) => (text) => {
  const at = text.search(new RegExp(`fn ${name}\\b`));
  const open = at < 0 ? -1 : bodyStart(text, at);
  if (open < 0) throw new Error(`fn ${name} not found`);
  return `${text.slice(0, open + 1)}\n#[allow(unreachable_code)] if true { ${early} }${text.slice(open + 1)}`;
};
// The `{` that opens the body: the first one outside the signature's brackets.
const bodyStart = (text, from) => {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if ("(<[".includes(c)) depth++;
    else if (")>]".includes(c) && text[i - 1] !== "-") depth--;
    else if (c === "{" && depth <= 0) return i;
  }
  return -1;
};
const replace = (from, to) => (text) => {
  if (!text.includes(from)) throw new Error(`stub no longer applies: ${from.slice(0, 60)}`);
  return text.replace(from, to);
};

// Each feature: the edits (file → edits) that leave its code unreachable.
const features = {
  // The AI SDK readers (ModelMessage and UIMessage); their usage shapes stay.
  "ai-sdk": {
    "src/formats/mod.rs": [
      replace(
        "            Format::AiSdk => ai_sdk::read(&r, sink),\n            Format::AiSdkUi => ai_sdk_ui::read(&r, sink),",
        "            Format::AiSdk | Format::AiSdkUi => Err(missing_content(&r)),",
      ),
    ],
  },
  // Clearing instead of summarizing (finding, planning and applying a clear plan); the config
  // is still read, and trimming a result on overflow stays.
  clearing: {
    "src/wasm/engine.rs": [returnEarly("clearing_of", "return Ok(None);"), returnEarly("body_clearing", "return Ok(None);")],
    "src/wasm/clearing.rs": [returnEarly("read_plan", "return Ok(None);")],
    "src/wasm/conversation.rs": [replace("if self.engine.clearing.is_none() {", "if true || self.engine.clearing.is_none() {")],
  },
  // Estimates calibrated and anchored to the usage providers report: no usage is read.
  anchoring: {
    "src/anchor.rs": [returnEarly("calibrate", "return;")],
    "src/ledger.rs": [returnEarly("calibrate", "return fixed.clone();")],
    "src/reported.rs": [returnEarly("reports", "return Ok(vec![]);")],
    "src/wasm/reported.rs": [returnEarly("from_response", "return None;")],
    "src/formats/usage.rs": [
      returnEarly("read_usage", "return None;"),
      returnEarly("usage_json", "return Ok(None);"),
      returnEarly("usage_of", "return Ok(None);"),
    ],
  },
  // The ContextManager class (its bindings; the glue loses the class too).
  manager: {
    "src/wasm/mod.rs": [replace("\nmod manager;", "\n// mod manager;")],
  },
};
const variants = [
  ["as is", []],
  ...Object.keys(features).map((name) => [`without ${name}`, [name]]),
  ["without ai-sdk, clearing, anchoring", ["ai-sdk", "clearing", "anchoring"]],
  ["without all four", Object.keys(features)],
  // The copy as it is always comes first: the others are measured against it.
].filter(([name], i) => i === 0 || !only || name.includes(only));

const work = mkdtempSync(join(tmpdir(), "size-features-"));
const shared = join(root, "target", "size-features");
mkdirSync(shared, { recursive: true });
const copied = [".cargo", "Cargo.toml", "Cargo.lock", "LICENSE", "README.md", "docs", "pkg-template", "scripts", "scan"];
try {
  for (const item of copied) cpSync(join(root, item), join(work, item), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(work, "node_modules"));
  // scripts/build reads the module from target/: the copies share one target directory.
  symlinkSync(shared, join(work, "target"));
  console.log("| variant | .wasm gzip | glue gzip | .wasm + glue | .wasm, zlib level 9 |");
  console.log("|---|---:|---:|---:|---:|");
  let base = null;
  for (const [name, stubbed] of variants) {
    rmSync(join(work, "src"), { recursive: true, force: true });
    cpSync(join(root, "src"), join(work, "src"), { recursive: true });
    for (const feature of stubbed) {
      for (const [file, edits] of Object.entries(features[feature])) {
        const path = join(work, file);
        writeFileSync(path, edits.reduce((text, edit) => edit(text), readFileSync(path, "utf8")));
      }
    }
    execFileSync(join(work, "scripts", "build"), { cwd: work, stdio: ["ignore", "ignore", "inherit"] });
    const read = (file) => readFileSync(join(work, "dist", file));
    const wasm = gzipSync(read("context_compaction.wasm")).length;
    const glue = gzipSync(read("context_compaction_bg.js")).length;
    const nine = gzipSync(read("context_compaction.wasm"), { level: 9 }).length;
    base ??= wasm + glue;
    const delta = wasm + glue - base;
    const total = `${wasm + glue} (${((wasm + glue) / 1024).toFixed(1)} KB${delta ? `, ${(delta / 1024).toFixed(1)}` : ""})`;
    console.log(`| ${name} | ${wasm} | ${glue} | ${total} | ${nine} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
