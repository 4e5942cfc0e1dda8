/**
 * The package's WebAssembly module (`context_compaction.wasm`), for hosts that serve it or import
 * it themselves (then `init` from `context-compaction/web` takes it). Runtimes that import
 * `.wasm` files (workerd, Next.js edge with `?module`) hand it over compiled.
 */
declare const module: WebAssembly.Module;
export default module;
