/**
 * The package's WebAssembly module (`context_compaction.wasm`), for hosts that serve it or import
 * it themselves. Runtimes that import `.wasm` files hand it over compiled.
 */
declare const module: WebAssembly.Module;
export = module;
