// `context-compaction/ai-sdk-preview` in Cloudflare Workers and edge runtimes, which compile no
// WebAssembly from bytes: `ChatPreview` on the plan-only module, whose entry imports its `.wasm`
// file there (`context-compaction/plan`'s workerd and edge-light conditions).
import { Compactor, ready } from "context-compaction/plan";
import { chatPreviewOn } from "./ai-sdk/preview-class.js";

export const ChatPreview = chatPreviewOn(Compactor);
export { ready };
