// `context-compaction/ai-sdk-preview`: `ChatPreview` on the preview module, for a page that
// shows the preview. The module (inlined, preview-wasm-inline.js) holds only what `ChatPreview`
// calls: the UIMessage reader, a conversation handle, `clearableResults` and `covers`. It is
// compiled on first use, or by `ready()`; the route's whole module is never loaded.
import bytes, { bytesAsync } from "./preview-wasm-inline.js";
import * as glue from "./context_compaction_preview_bg.js";
import { ensureLoaded, provide, ready } from "./load/preview.js";
import { chatPreviewOn } from "./ai-sdk/preview-class.js";

provide({ bytes, bytesAsync });

/** The preview module's `Compactor`, loaded on first use (its config's summarizer is never read). */
class Compactor extends glue.Compactor {
  constructor(config) {
    ensureLoaded();
    super(config);
  }
}

export const ChatPreview = chatPreviewOn(Compactor);
export { ready };
