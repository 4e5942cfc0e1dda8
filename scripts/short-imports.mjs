// Gives the functions the .wasm imports from the glue short names, in both files: wasm-bindgen
// names each `__wbg_<name>_<16 hex digits>`, and those hashes (77 imports) cost 1.5 KB gzip of
// the module, as they do not compress. Only the import section of the module is rewritten; in
// the glue, each import is one `export function NAME(` that nothing else names (checked: the
// build fails otherwise). The package's loader passes the glue's namespace as the imports, so
// the new names need nothing else.
//   node scripts/short-imports.mjs MODULE.wasm GLUE.js   (both rewritten in place)
import { readFileSync, writeFileSync } from "node:fs";

const [wasmPath, gluePath] = process.argv.slice(2);
const bytes = readFileSync(wasmPath);
let glue = readFileSync(gluePath, "utf8");

const fail = (message) => {
  console.error(`short-imports: ${message}`);
  process.exit(1);
};

function uleb(at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    if (byte === undefined) fail("truncated module");
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

function encode(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Buffer.from(out);
}

// The end of one import's description (after its kind byte).
function description(kind, at) {
  const limits = (p) => {
    const flags = bytes[p];
    let [, next] = uleb(p + 1);
    if (flags & 1) [, next] = uleb(next);
    return next;
  };
  switch (kind) {
    case 0: return uleb(at)[1]; // function: type index
    case 1: return limits(at + 1); // table: reference type, limits
    case 2: return limits(at); // memory: limits
    case 3: return at + 2; // global: value type, mutability
    case 4: return uleb(at + 1)[1]; // tag: attribute, type index
    default: return fail(`unknown import kind ${kind}`);
  }
}

// a, b, …, Z, ba, bb, …: never one of the glue's own exports (classes, __register*, estimate…).
const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
function shortName(index) {
  let name = "";
  do {
    name = letters[index % letters.length] + name;
    index = Math.floor(index / letters.length);
  } while (index > 0);
  return name;
}

const parts = [bytes.subarray(0, 8)];
let at = 8;
let renamed = 0;
while (at < bytes.length) {
  const id = bytes[at];
  const [size, start] = uleb(at + 1);
  const end = start + size;
  if (id !== 2) {
    parts.push(bytes.subarray(at, end));
    at = end;
    continue;
  }
  let [count, p] = uleb(start);
  const body = [encode(count)];
  for (let i = 0; i < count; i++) {
    const [moduleLength, moduleStart] = uleb(p);
    const module = bytes.subarray(p, moduleStart + moduleLength);
    const [nameLength, nameStart] = uleb(moduleStart + moduleLength);
    const name = bytes.subarray(nameStart, nameStart + nameLength).toString("utf8");
    const kindAt = nameStart + nameLength;
    const next = description(bytes[kindAt], kindAt + 1);
    let newName = name;
    if (/^__wb(g|indgen)_/.test(name)) {
      const definition = `export function ${name}(`;
      if (glue.split(name).length !== 2 || !glue.includes(definition)) {
        fail(`${name} is not one export function named nowhere else in ${gluePath}`);
      }
      newName = shortName(renamed++);
      if (new RegExp(`export (function|class|const|let) ${newName.replace("$", "\\$")}\\b`).test(glue)) {
        fail(`${newName} is already a name of the glue`);
      }
      glue = glue.replace(definition, `export function ${newName}(`);
    }
    body.push(module, encode(Buffer.byteLength(newName)), Buffer.from(newName), bytes.subarray(kindAt, next));
    p = next;
  }
  if (p !== end) fail("the import section does not end where its size says");
  const section = Buffer.concat(body);
  parts.push(Buffer.from([2]), encode(section.length), section);
  at = end;
}

const out = Buffer.concat(parts);
if (!WebAssembly.validate(out)) fail("the rewritten module does not validate");
writeFileSync(wasmPath, out);
writeFileSync(gluePath, glue);
console.log(`short-imports: ${renamed} imports renamed`);
