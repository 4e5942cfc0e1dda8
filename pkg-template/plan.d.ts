// Types of `context-compaction/plan`: planning and estimating on the plan-only WebAssembly module.
import type { Compactor as WholeCompactor, CompactorConfig } from "./index.js";

type DisposeSymbol = SymbolConstructor extends { readonly dispose: infer K extends symbol } ? K : never;
type Disposer = { [K in DisposeSymbol]: () => void };

export type {
  AnyMessage,
  BytesPlan,
  BytesRequest,
  ClearedResult,
  CompactionErrorCode,
  CompactionRequest,
  Draft,
  Conversation,
  ConversationOptions,
  ConversationPlanOptions,
  Estimator,
  Message,
  MessageFormat,
  MessageFormats,
  Plan,
  RequestEstimate,
  RequestIn,
} from "./index.js";
export { CompactionError, HeuristicEstimator, estimate, ready } from "./index.js";

/** The config of a planning `Compactor`: the whole one's, whose `summarizer` it does not read. */
export type PlanCompactorConfig = Omit<CompactorConfig, "summarizer"> & { summarizer?: CompactorConfig["summarizer"] };

/**
 * A `Compactor` that plans and never summarizes: `plan`, `planBytes`, `clearableResults`,
 * `conversation`, `covers` and `digest` give what the whole package's `Compactor` gives for the
 * same config.
 */
export interface Compactor extends Pick<WholeCompactor, "plan" | "planBytes" | "clearableResults" | "conversation" | "covers" | "digest" | "free">, Disposer {}
export declare class Compactor {
  constructor(config?: PlanCompactorConfig | null);
}
