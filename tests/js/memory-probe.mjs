// Keeps the wasm memory of every instance made after it is imported, so that a suite can see
// how far the package's memory grew (the package does not expose it). Import it before the
// package.
export const memories = [];
const Instance = WebAssembly.Instance;
WebAssembly.Instance = function (module, imports) {
  const instance = new Instance(module, imports);
  if (instance.exports.memory instanceof WebAssembly.Memory) memories.push(instance.exports.memory);
  return instance;
};

/** Bytes of wasm memory of the instances made so far. */
export const wasmBytes = () => memories.reduce((sum, m) => sum + m.buffer.byteLength, 0);
