// How the package loads its WebAssembly module: nothing at import, synchronously on first use
// where the runtime allows it, `not_ready` (with the way out) where it does not, `ready()` for
// asynchronous loading, and `load_failed` when the module cannot be instantiated. Each case runs
// in its own Node process, since a process loads the module once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

function inChild(script) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(out);
}

const request = `{ messages: [{ role: "user", content: "hello there" }] }`;

test("importing compiles nothing; the first call loads the module", () => {
  const result = inChild(`
    let compiled = 0;
    const Module = WebAssembly.Module;
    WebAssembly.Module = function (bytes) { compiled++; return new Module(bytes); };
    const api = await import("context-compaction");
    const before = compiled;
    const total = api.estimate(${request}).total;
    console.log(JSON.stringify({ before, after: compiled, total }));`);
  assert.deepEqual({ before: result.before, after: result.after }, { before: 0, after: 1 });
  assert.ok(result.total > 0);
});

test("without Node's zlib, the inlined module is inflated by the bundled inflater, set up on first use", () => {
  // What a runtime without node:zlib (a browser, Deno, workerd) does; the tables the inflater
  // builds when it is evaluated are not built at import.
  const result = inChild(`
    const builtin = process.getBuiltinModule;
    process.getBuiltinModule = undefined;
    const arrays = { count: 0 };
    const Uint16 = globalThis.Uint16Array;
    globalThis.Uint16Array = class extends Uint16 { constructor(...args) { super(...args); arrays.count++; } };
    const api = await import("context-compaction");
    const atImport = arrays.count;
    const total = api.estimate(${request}).total;
    const afterLoad = arrays.count;
    process.getBuiltinModule = builtin;
    console.log(JSON.stringify({ atImport, afterLoad, total }));`);
  assert.equal(result.atImport, 0);
  assert.ok(result.afterLoad > 0);
  assert.ok(result.total > 0);
});

test("the inlined module is inflated into one buffer of its length, by Node's zlib and by the bundled inflater", () => {
  // Node's zlib otherwise joins 16 KB chunks into a copy (0.3 MB more at load on Node), and the
  // bundled inflater grew a buffer of three times the deflated size, then of twice that, and
  // copied the module out of it (1.7 MB of buffers for a module of 0.35 MB).
  const sizes = (withZlib) =>
    inChild(`
    ${withZlib ? "" : "process.getBuiltinModule = undefined;"}
    // Imported first: the package reads the typed arrays' prototype at import.
    const api = await import("context-compaction");
    let joined = 0;
    const concat = Buffer.concat;
    Buffer.concat = function (list, length) { const out = concat.call(this, list, length); if (out.length > 100000) joined++; return out; };
    const large = [];
    globalThis.Uint8Array = class extends Uint8Array { constructor(...args) { super(...args); if (this.length > 100000) large.push(this.length); } };
    let compiled, before;
    const Module = WebAssembly.Module;
    WebAssembly.Module = function (bytes) { compiled = bytes.length; before = [...large]; return new Module(bytes); };
    api.estimate(${request});
    console.log(JSON.stringify({ joined, large: before, compiled }));`);
  const zlib = sizes(true);
  assert.equal(zlib.joined, 0);
  assert.ok(zlib.compiled > 100000);
  const bundled = sizes(false);
  assert.equal(bundled.compiled, zlib.compiled);
  // The buffer and views of it (a `subarray` makes one of the same class): none larger, no copy.
  assert.ok(bundled.large.length > 0 && bundled.large.every((n) => n === zlib.compiled), `${bundled.large}`);
});

test("where synchronous compilation is refused, a call says not_ready and ready() loads it", () => {
  // What an older Chromium page does with a module over 4 KB.
  const result = inChild(`
    WebAssembly.Module = function () { throw new RangeError("WebAssembly.Compile is disallowed on the main thread"); };
    const api = await import("context-compaction");
    let code, message;
    try { new api.Compactor({ summarizer: { summarize: async () => "" } }); } catch (e) { code = e.code; message = e.message; }
    await Promise.all([api.ready(), api.ready()]);
    const total = api.estimate(${request}).total;
    await api.ready();
    console.log(JSON.stringify({ code, message, total }));`);
  assert.equal(result.code, "not_ready");
  assert.match(result.message, /await ready\(\)/);
  assert.ok(result.total > 0);
});

test("the web entry says to call init() first, and init() rejects with load_failed on bad bytes", () => {
  const result = inChild(`
    const { default: init, estimate, CompactionError } = await import("context-compaction/web");
    let first;
    try { estimate(${request}); } catch (e) { first = { code: e.code, message: e.message }; }
    let failed;
    try { await init(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])); } catch (e) { failed = { code: e.code, isError: e instanceof CompactionError, cause: e.cause instanceof Error }; }
    const { readFileSync } = await import("node:fs");
    const { createRequire } = await import("node:module");
    const wasm = readFileSync(createRequire(import.meta.url).resolve("context-compaction/wasm"));
    await init(wasm);
    console.log(JSON.stringify({ first, failed, total: estimate(${request}).total }));`);
  assert.equal(result.first.code, "not_ready");
  assert.match(result.first.message, /init\(\)/);
  assert.deepEqual(result.failed, { code: "load_failed", isError: true, cause: true });
  assert.ok(result.total > 0);
});

test("import and require share one instance of the package", () => {
  const result = inChild(`
    import { createRequire } from "node:module";
    const esm = await import("context-compaction");
    const cjs = createRequire(import.meta.url)("context-compaction");
    console.log(JSON.stringify({ same: esm.Compactor === cjs.Compactor && esm.ready === cjs.ready }));`);
  assert.equal(result.same, true);
});
