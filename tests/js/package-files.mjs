// The files of an installed package that its entries reach through their static imports and
// requires, for the tests of what each entry loads (tests/js/plan-entry.test.mjs and the
// packaging suite's "what Node loads").
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";

/** The package's files (paths relative to `dir`) that `entries` reach. */
export function reachedFiles(dir, entries) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(dir, file), "utf8");
    for (const [, spec] of text.matchAll(/(?:^(?:import|export)\b[^;]*?from\s*|require\()"([^"]+)"/gm)) {
      const target = spec === "context-compaction" ? "index.js" : spec === "context-compaction/plan" ? "plan.js" : spec.startsWith(".") ? posix.join(posix.dirname(file), spec) : null;
      if (target !== null && !target.endsWith(".wasm") && !target.includes("?")) visit(target);
    }
  };
  for (const entry of entries) visit(entry);
  return seen;
}
