// Code bytes per function of a .wasm that keeps its name section (bench/named-dist.sh), and the
// difference between two such modules: where a change's bytes went.
//   node bench/fn-sizes.mjs <a.wasm> [<b.wasm>] [--top N] [--group]
// One module: its largest functions. Two: the functions whose size changed, largest change
// first, and the totals. --group sums by crate/module path (the name up to its last `::`,
// generic arguments and hashes dropped) instead of by function.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

function leb(bytes, at) {
  let value = 0, shift = 0, byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

/** Map from function name to its body's size in bytes (imports excluded). */
export function functionSizes(path) {
  const bytes = readFileSync(path);
  let at = 8, imported = 0;
  const bodies = [], names = new Map();
  while (at < bytes.length) {
    const id = bytes[at++];
    let size;
    [size, at] = leb(bytes, at);
    const end = at + size;
    if (id === 2) {
      let count, p;
      [count, p] = leb(bytes, at);
      for (let i = 0; i < count; i++) {
        let len;
        [len, p] = leb(bytes, p); p += len;
        [len, p] = leb(bytes, p); p += len;
        const kind = bytes[p++];
        if (kind === 0) { imported++; [, p] = leb(bytes, p); }
        else if (kind === 1) { p++; let flags; [flags, p] = leb(bytes, p); [, p] = leb(bytes, p); if (flags & 1) [, p] = leb(bytes, p); }
        else if (kind === 2) { let flags; [flags, p] = leb(bytes, p); [, p] = leb(bytes, p); if (flags & 1) [, p] = leb(bytes, p); }
        else if (kind === 3) { p += 2; }
        else throw new Error(`import kind ${kind}`);
      }
    } else if (id === 10) {
      let count, p;
      [count, p] = leb(bytes, at);
      for (let i = 0; i < count; i++) {
        let len;
        const start = p;
        [len, p] = leb(bytes, p);
        p += len;
        bodies.push(p - start);
      }
    } else if (id === 0) {
      let len, p;
      [len, p] = leb(bytes, at);
      const name = bytes.subarray(p, p + len).toString();
      p += len;
      if (name === 'name') {
        while (p < end) {
          const sub = bytes[p++];
          let subSize;
          [subSize, p] = leb(bytes, p);
          if (sub === 1) {
            let count, q;
            [count, q] = leb(bytes, p);
            for (let i = 0; i < count; i++) {
              let index, n;
              [index, q] = leb(bytes, q);
              [n, q] = leb(bytes, q);
              names.set(index, bytes.subarray(q, q + n).toString());
              q += n;
            }
          }
          p += subSize;
        }
      }
    }
    at = end;
  }
  const sizes = new Map();
  bodies.forEach((size, i) => {
    const name = names.get(i + imported) ?? `#${i + imported}`;
    sizes.set(name, (sizes.get(name) ?? 0) + size);
  });
  return sizes;
}

/** The module path a function belongs to: `crate::module` (generic arguments, hashes dropped). */
function group(name) {
  let plain = name.replace(/::h[0-9a-f]{16}$/, '');
  // Drop generic arguments and impl headers (`<A as B>::f` belongs to B's path… keep A's).
  plain = plain.replace(/^<([^ >]+)(?: as [^>]+)?>/, '$1');
  let depth = 0, out = '';
  for (const c of plain) {
    if (c === '<') depth++;
    else if (c === '>') depth--;
    else if (depth === 0) out += c;
  }
  const parts = out.split('::').filter(Boolean);
  return parts.slice(0, Math.min(2, Math.max(1, parts.length - 1))).join('::');
}

function grouped(sizes) {
  const out = new Map();
  for (const [name, size] of sizes) {
    const key = group(name);
    out.set(key, (out.get(key) ?? 0) + size);
  }
  return out;
}

// The rest runs only as a command (bench/retained.mjs imports functionSizes).
if (import.meta.url === pathToFileURL(process.argv[1]).href) main();

function main() {
  const args = process.argv.slice(2);
  const top = Number(args[args.indexOf('--top') + 1]) || 40;
  const byGroup = args.includes('--group');
  const files = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--top');
  if (files.length === 0) {
    console.error('usage: node bench/fn-sizes.mjs <a.wasm> [<b.wasm>] [--top N] [--group]');
    process.exit(2);
  }
  let [a, b] = files.map(functionSizes);
  if (byGroup) [a, b] = [a, b].map((s) => s && grouped(s));
  const total = (s) => [...s.values()].reduce((x, y) => x + y, 0);
  if (!b) {
    const rows = [...a].sort((x, y) => y[1] - x[1]).slice(0, top);
    for (const [name, size] of rows) console.log(`${String(size).padStart(8)}  ${name}`);
    console.log(`${String(total(a)).padStart(8)}  total code (${a.size} ${byGroup ? 'groups' : 'functions'})`);
  } else {
    const keys = new Set([...a.keys(), ...b.keys()]);
    const rows = [...keys]
      .map((k) => [k, (b.get(k) ?? 0) - (a.get(k) ?? 0)])
      .filter(([, d]) => d !== 0)
      .sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]))
      .slice(0, top);
    for (const [name, d] of rows) console.log(`${(d > 0 ? '+' : '') + d}`.padStart(8) + `  ${name}`);
    console.log(`${String(total(a)).padStart(8)} → ${total(b)} total code (${total(b) - total(a) >= 0 ? '+' : ''}${total(b) - total(a)})`);
  }
}
