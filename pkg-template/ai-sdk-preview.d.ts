// Types of `context-compaction/ai-sdk-preview` (ai-sdk-preview.js): `ChatPreview` on the
// preview module.
export { ChatPreview } from "./ai-sdk.js";
/**
 * Resolves once the preview module is compiled and instantiated (off the main thread where the
 * browser can); safe to call any number of times. Without it, the first `new ChatPreview`
 * compiles the module synchronously.
 */
export function ready(): Promise<void>;
export type {
  ChatCompactionRecord,
  ChatCompactionState,
  ChatPendingDraft,
  ChatPreviewPending,
  ChatReceipt,
  ChatPreviewClearPlan,
  ChatPreviewOptions,
  ChatPreviewPlan,
  ChatPreviewSummaryPlan,
  ChatUIMessage,
  ClearedToolResult,
  Draft,
  PreviewClearedResult,
  PreviewMessage,
} from "./ai-sdk.js";
