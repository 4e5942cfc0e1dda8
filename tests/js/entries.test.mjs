// Every entry of the package offers the same names, the ones its types declare: the entries
// list nothing themselves but re-export lib/exports.js, and index.d.ts declares each value once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const dir = dirname(require.resolve("context-compaction/package.json"));
const names = (module) => Object.keys(module).filter((k) => k !== "default" && k !== "__esModule").sort();

test("the ES and CommonJS entries offer the same names, as index.d.ts declares them", async () => {
  const declared = [
    ...new Set(
      [...readFileSync(join(dir, "index.d.ts"), "utf8").matchAll(/^export declare (?:class|function|const) (\w+)/gm)].map(
        (m) => m[1],
      ),
    ),
  ].sort();
  assert.ok(declared.length > 5, declared.join());
  assert.deepEqual(names(await import("context-compaction")), declared, "import");
  assert.deepEqual(names(await import("context-compaction/web")), declared, "import /web");
  assert.deepEqual(names(require("context-compaction")), declared, "require");
  assert.deepEqual(names(require("context-compaction/web")), declared, "require /web");
  assert.equal(typeof (await import("context-compaction/web")).default, "function");
});

test("the entries Node cannot load (workerd, edge-light) export lib/exports.js and nothing else", () => {
  // They import the `.wasm` file, which only their runtimes' bundlers resolve.
  for (const entry of ["workerd.js", "edge-light.js", "index.js", "web.js"]) {
    const exported = readFileSync(join(dir, entry), "utf8")
      .split("\n")
      .filter((line) => /^\s*export\b/.test(line));
    const own = exported.filter((line) => line.trim() !== 'export * from "./lib/exports.js";');
    assert.equal(exported.length - own.length, 1, `${entry} re-exports lib/exports.js`);
    // web.js adds its `init`, the default export.
    assert.deepEqual(own.filter((line) => !line.startsWith("export default function init(")), [], entry);
  }
});
