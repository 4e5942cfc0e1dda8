export * from "./index.js";

/**
 * Loads and instantiates the module from `input` (default: the `.wasm` next to this file, which
 * the package also exports as `context-compaction/wasm`); call once before anything else.
 */
export default function init(
  input?: RequestInfo | URL | Response | BufferSource | WebAssembly.Module | Promise<Response>,
): Promise<void>;
