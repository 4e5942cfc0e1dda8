export * from "./index.js";

/** Loads and instantiates the module; call once before anything else. */
export default function init(
  input?: RequestInfo | URL | Response | BufferSource | WebAssembly.Module | Promise<Response>,
): Promise<void>;
