// Browsers, Web Workers, Node and every bundler: the module's bytes are inlined (wasm-inline.js,
// base64), so no bundler has to find, copy or serve a `.wasm` file.
import bytes from "./wasm-inline.js";
import { provide } from "./load.js";

provide({ bytes });
export * from "./exports.js";
