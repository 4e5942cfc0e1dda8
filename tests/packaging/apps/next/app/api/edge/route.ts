// The same handler on the edge runtime: Next.js bundles it again for the edge, where the
// package's `edge-light` entry hands it the .wasm as a compiled module.
export { POST } from "../compact/route";

export const runtime = "edge";
