// `context-compaction/ai-sdk-preview`: `ChatPreview` on the plan-only module, for a page that
// shows the preview (the route's whole module is never loaded).
import { Compactor } from "context-compaction/plan";
import { chatPreviewOn } from "./ai-sdk-preview-class.js";

export const ChatPreview = chatPreviewOn(Compactor);
