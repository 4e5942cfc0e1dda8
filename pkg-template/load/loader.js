// Loading a WebAssembly module of the package, once per realm: the whole module (`whole.js`) and
// the plan-only one (`plan.js`) each have a loader of their own. The entries say where the
// module comes from (`provide`); nothing is compiled at import. The first synchronous call
// compiles it synchronously where the runtime allows that (Node, Web Workers, workerd, edge
// runtimes and current Chromium pages); `ready()` compiles it asynchronously, which pages of
// older Chromium need (they refused synchronous compilation of more than 4 KB on the main thread).
import { register } from "../host/api.js";
import { CompactionError } from "../lib/error.js";

/**
 * The loader of the module whose glue is `glue`, imported by the module as `name` (`sizer`: the
 * sizer's functions for its glue, for the modules that size messages; see host/api.js):
 * `{ provide, ensureLoaded, ready }`.
 */
export function loader(glue, name, sizer) {
  /**
   * Where the module comes from: `{ module() }`, `{ bytes(), bytesAsync() }` (its bytes, at once or
   * without blocking) or `{ input }` (what `init` takes).
   */
  let source;
  let loaded = false;
  let loading;

  /** Called by the entry, before anything else runs. */
  function provide(from) {
    source = from;
  }

  function imports() {
    return { [name]: glue };
  }

  function start(instance) {
    if (loaded) return;
    glue.__wbg_set_wasm(instance.exports);
    instance.exports.__wbindgen_start();
    register(glue, sizer);
    loaded = true;
  }

  /** Makes sure the module is instantiated before a synchronous call; throws `not_ready` where it cannot be. */
  function ensureLoaded() {
    if (loaded) return;
    if (source === undefined || source.input !== undefined) throw notReady("`await init()` (from context-compaction/web) before the first call");
    let instance;
    try {
      const module = source.module ? source.module() : new WebAssembly.Module(source.bytes());
      instance = new WebAssembly.Instance(module, imports());
    } catch (error) {
      throw notReady("`await ready()` once before the first call (this page compiles WebAssembly only asynchronously)", error);
    }
    start(instance);
  }

  /** Resolves once the module is instantiated; safe to call any number of times. */
  function ready() {
    if (loaded) return Promise.resolve();
    if (source === undefined) return Promise.reject(notReady("`await init()` (from context-compaction/web) before the first call"));
    loading ??= instantiate(source, imports()).then(start, (error) => {
      loading = undefined;
      throw new CompactionError("load_failed", `context-compaction could not load its WebAssembly module: ${error?.message ?? error}`, { cause: error });
    });
    return loading;
  }

  return { provide, ensureLoaded, ready };
}

const notReady = (detail, cause) =>
  new CompactionError("not_ready", `context-compaction is not loaded yet: ${detail}`, cause === undefined ? undefined : { cause });

async function instantiate(from, imports) {
  if (from.module) return new WebAssembly.Instance(from.module(), imports);
  if (from.bytes) {
    const bytes = from.bytesAsync ? await from.bytesAsync() : from.bytes();
    return (await WebAssembly.instantiate(bytes, imports)).instance;
  }
  let input = await from.input;
  if (input instanceof WebAssembly.Module) return WebAssembly.instantiate(input, imports);
  if (typeof input === "string" || input instanceof URL || (typeof Request === "function" && input instanceof Request)) input = await fetch(input);
  if (typeof Response === "function" && input instanceof Response) return fromResponse(input, imports);
  return (await WebAssembly.instantiate(input, imports)).instance;
}

async function fromResponse(response, imports) {
  if (!response.ok) throw new Error(`HTTP ${response.status} fetching ${response.url}`);
  // Streaming compilation needs the application/wasm content type; without it, bytes.
  if (response.headers.get("content-type")?.startsWith("application/wasm")) {
    return (await WebAssembly.instantiateStreaming(response, imports)).instance;
  }
  // Awaited apart: Next.js's edge dev server wraps WebAssembly.instantiate's arguments in a
  // plain function, where an `await` is a syntax error.
  const bytes = await response.arrayBuffer();
  return (await WebAssembly.instantiate(bytes, imports)).instance;
}
