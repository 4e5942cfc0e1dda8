// Types of `context-compaction/ai-sdk-preview` (ai-sdk-preview.js): `ChatPreview` on the
// plan-only module.
export { ChatPreview } from "./ai-sdk.js";
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
