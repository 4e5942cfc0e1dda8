// `ContextManager`: the public class over the glue's ContextManagerCore, so that it can be
// built from one options object `{ compactor, contextWindowTokens, reserveTokens, estimator,
// onEvent }` (the compactor is checked here, before it crosses into wasm).
import { describe, guarded, guardedOr, isLive } from "../host/host.js";

export function defineContextManager(glue, CompactionError) {
  const invalid = (message, cause) => new CompactionError("invalid_config", `invalid config: ${message}`, cause === undefined ? undefined : { cause });
  // A live (not freed) Compactor of this module.
  const usable = (compactor) => guardedOr(() => compactor instanceof glue.Compactor, false) && isLive(compactor);

  return class ContextManager {
    #core;

    constructor(options) {
      let compactor;
      try {
        compactor = options === null || typeof options !== "object" ? undefined : guarded("options.compactor", () => options.compactor);
      } catch (fault) {
        throw invalid(fault.message, fault.cause);
      }
      if (!usable(compactor)) {
        throw invalid("options.compactor must be a Compactor (not freed)");
      }
      // The glue reads the compactor again (its class, its pointer) before it calls into wasm: a
      // Proxy posing as one may throw there. What wasm itself refuses is a CompactionError.
      try {
        this.#core = new glue.ContextManagerCore(compactor, options);
      } catch (error) {
        if (error instanceof CompactionError) throw error;
        throw invalid(`options.compactor: reading it threw: ${describe(error)}`, error);
      }
    }

    /** Proactive maintenance; resolves to `{ state, compacted, reason, record, origins?, error?, pending? }`. */
    maintain(state, options) {
      return this.#core.maintain(state, options, false);
    }

    /** Ahead-of-time compaction after a turn: the pending draft to keep, or `null`. */
    prepareAhead(state, options) {
      return this.#core.maintain(state, options, true);
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
