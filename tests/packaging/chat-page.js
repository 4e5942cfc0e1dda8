// A page that shows what a chat route would compact (`ChatPreview`), built by every bundler of
// the suite: `context-compaction/ai-sdk-preview` carries the preview module alone. `ready()`
// compiles it off the main thread; then planning is synchronous.
import { ChatPreview, ready } from "context-compaction/ai-sdk-preview";
import { chat, chatOptions, planLine } from "./chat-conversation.js";

ready().then(() => {
  const preview = new ChatPreview(chatOptions);
  preview.update(chat());
  document.querySelector("#chat").textContent = planLine(preview.plan());
});
