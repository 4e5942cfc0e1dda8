// Writes CommonJS copies of the package's own small ES modules for the Node `require` build,
// so each is written once. Handles only the forms those files use: named relative imports and
// `export function` / `export class` declarations.
//   node scripts/esm-to-cjs.mjs OUT_DIR FILE.js...
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

const [outDir, ...files] = process.argv.slice(2);
for (const file of files) {
  const names = [];
  const body = readFileSync(file, "utf8")
    .replace(/^import \{([^}]+)\} from "\.\/([\w-]+)\.js";$/gm, (_, list, name) => `const {${list}} = require("./${name}.cjs");`)
    .replace(/^export (async function|function|class) (\w+)/gm, (_, kind, name) => {
      names.push(name);
      return `${kind} ${name}`;
    });
  if (/^\s*(import|export)\b/m.test(body)) throw new Error(`${file}: a form this converter does not handle`);
  const out = join(outDir, basename(file).replace(/\.js$/, ".cjs"));
  writeFileSync(out, `"use strict";\n${body}\nmodule.exports = { ${names.join(", ")} };\n`);
}
