// `ContextManager`: the public class over the glue's ContextManagerCore, so that it can be
// built from one options object `{ compactor, contextWindowTokens, reserveTokens, estimator,
// onEvent }` (the compactor is checked here, before it crosses into wasm).
export function defineContextManager(glue, CompactionError) {
  return class ContextManager {
    #core;

    constructor(options) {
      const compactor = options === null || typeof options !== "object" ? undefined : options.compactor;
      if (!(compactor instanceof glue.Compactor)) {
        throw new CompactionError("invalid_config", "invalid config: options.compactor must be a Compactor");
      }
      this.#core = new glue.ContextManagerCore(compactor, options);
    }

    /** Proactive maintenance; resolves to `{ state, compacted, reason, record, error? }`. */
    maintain(state, options) {
      return this.#core.maintain(state, options);
    }

    /** Calls `send(state, { signal })`, recovering from context-window rejections (two at most). */
    run(state, send, options) {
      return this.#core.run(state, send, options);
    }

    free() {
      this.#core.free();
    }

    [Symbol.dispose]() {
      this.#core.free();
    }
  };
}
