// Types of `context-compaction/ai-sdk-preview` (ai-sdk-preview.js): `ChatPreview` on the
// plan-only module.
export { ChatPreview } from "./ai-sdk.js";
export type {
  ChatCompactionState,
  ChatPreviewClearPlan,
  ChatPreviewOptions,
  ChatPreviewPlan,
  ChatPreviewSummaryPlan,
  ChatUIMessage,
  ClearedToolResult,
  PreviewClearedResult,
  PreviewMessage,
} from "./ai-sdk.js";
