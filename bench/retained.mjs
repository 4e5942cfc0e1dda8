// Retained code bytes of a .wasm that keeps its name section (bench/named-wasm.sh): for each
// function, its own body plus the bodies of every function reached only through it (its
// subtree in the dominator tree of the call graph), which is what leaving it out would save.
// The graph's roots are the exports and the function table (what `call_indirect` may reach:
// trait objects, closures); calls, tail calls and `ref.func` are its edges.
//   node bench/retained.mjs <named.wasm> [--top N] [--under NAME]
// --under lists only the functions whose immediate dominator's name contains NAME (what one
// function's retained size is made of). Reads the module through binaryen's wasm-dis.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionSizes } from './fn-sizes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const file = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!file) {
  console.error('usage: node bench/retained.mjs <named.wasm> [--top N] [--under NAME]');
  process.exit(2);
}
const top = Number(option('--top', 40));
const under = option('--under', null);

const sizes = functionSizes(file);
const wat = execFileSync(join(root, 'node_modules/.bin/wasm-dis'), [file], { maxBuffer: 1 << 30 }).toString();
const ONE = /\$("(?:[^"\\]|\\.)*"|[^\s()]+)/;
const NAME = new RegExp(ONE.source, 'g');
const plain = (name) => (name.startsWith('"') ? name.slice(1, -1) : name);

/** The call graph: function → the functions it names, with `<root>` and `<table>` added. */
function callGraph() {
  const edges = new Map([['<root>', new Set(['<table>'])], ['<table>', new Set()]]);
  const edge = (from, to) => {
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
  };
  let current = null;
  for (const line of wat.split('\n')) {
    if (line.startsWith(' (func ')) {
      current = plain(line.slice(7).match(ONE)[1]);
      if (!edges.has(current)) edges.set(current, new Set());
    } else if (line.startsWith(' (export ') || line.startsWith(' (start ')) {
      const func = line.match(/\(func \$("(?:[^"\\]|\\.)*"|[^\s()]+)\)/) ?? line.match(/^ \(start \$(\S+)\)/);
      if (func) edge('<root>', plain(func[1]));
    } else if (line.startsWith(' (elem ')) {
      for (const m of line.slice(line.indexOf(' func ')).matchAll(NAME)) edge('<table>', plain(m[1]));
    } else if (current) {
      for (const m of line.matchAll(/(?:call|return_call|ref\.func) \$("(?:[^"\\]|\\.)*"|[^\s()]+)/g)) {
        edge(current, plain(m[1]));
      }
    }
  }
  return edges;
}

/** Immediate dominators (Cooper, Harvey and Kennedy's iteration over a reverse postorder). */
function dominators(edges) {
  const order = [];
  const index = new Map();
  const seen = new Set(['<root>']);
  const stack = [['<root>', [...edges.get('<root>')], 0]];
  while (stack.length) {
    const frame = stack[stack.length - 1];
    if (frame[2] < frame[1].length) {
      const next = frame[1][frame[2]++];
      if (!seen.has(next)) {
        seen.add(next);
        stack.push([next, [...(edges.get(next) ?? [])], 0]);
      }
    } else {
      index.set(frame[0], order.length);
      order.push(frame[0]);
      stack.pop();
    }
  }
  const preds = new Map();
  for (const [from, tos] of edges) for (const to of tos) (preds.get(to) ?? preds.set(to, []).get(to)).push(from);
  const idom = new Map([['<root>', '<root>']]);
  const meet = (a, b) => {
    while (a !== b) {
      while (index.get(a) < index.get(b)) a = idom.get(a);
      while (index.get(b) < index.get(a)) b = idom.get(b);
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = order.length - 2; i >= 0; i--) {
      let dom;
      for (const p of preds.get(order[i]) ?? []) {
        if (idom.has(p)) dom = dom === undefined ? p : meet(p, dom);
      }
      if (dom !== undefined && idom.get(order[i]) !== dom) {
        idom.set(order[i], dom);
        changed = true;
      }
    }
  }
  return { order, idom };
}

const { order, idom } = dominators(callGraph());
const retained = new Map();
// Postorder: every function comes after the ones it dominates.
for (const name of order) {
  retained.set(name, (retained.get(name) ?? 0) + (sizes.get(name) ?? 0));
  if (name !== '<root>') retained.set(idom.get(name), (retained.get(idom.get(name)) ?? 0) + retained.get(name));
}
const rows = [...retained]
  .filter(([name]) => !under || (name !== '<root>' && idom.get(name).includes(under)))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top);
console.log('retained     own  function  (← immediate dominator)');
for (const [name, bytes] of rows) {
  const by = idom.get(name) === name ? '' : `  ← ${idom.get(name).slice(0, 70)}`;
  console.log(`${String(bytes).padStart(8)} ${String(sizes.get(name) ?? 0).padStart(7)}  ${name.slice(0, 140)}${by}`);
}
