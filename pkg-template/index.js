// Browsers, Web Workers, Node and every bundler: the module's bytes are inlined (wasm-inline.js,
// deflated and base64-encoded), so no bundler has to find, copy or serve a `.wasm` file.
import bytes, { bytesAsync } from "./wasm-inline.js";
import { provide } from "./load/whole.js";

provide({ bytes, bytesAsync });
export * from "./lib/exports.js";
