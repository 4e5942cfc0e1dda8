"use client";
// What the chat route would compact, shown before anything is sent. ChatPreview plans on a
// WebAssembly module of its own (the AI SDK UIMessage reader and planning; the route's whole
// module is never loaded), which is not in the page's bundle: a dynamic import() loads it once
// the preview is on screen. Then planning is synchronous and cheap, fine on every render.
import type { UIMessage } from "ai";
import type { ChatCompactionState, ChatPreview } from "context-compaction/ai-sdk";
import { useEffect, useMemo, useState } from "react";
import { compactionOptions } from "../compaction";

export function CompactionPreview({ id, messages, idle }: { id: string; messages: UIMessage[]; idle: boolean }) {
  const [preview, setPreview] = useState<ChatPreview | null>(null);
  useEffect(() => {
    let mounted = true;
    let made: ChatPreview | undefined;
    import("context-compaction/ai-sdk-preview").then(async ({ ready, ChatPreview }) => {
      await ready();
      if (mounted) setPreview((made = new ChatPreview(compactionOptions)));
    });
    return () => {
      mounted = false;
      made?.free();
    };
  }, []);
  // The route's stored state, read once each response is complete (`idle`): after a compaction it
  // says what the summary covers, so that the preview plans only what the route still sends.
  const [state, setState] = useState<ChatCompactionState | null>(null);
  useEffect(() => {
    if (idle) fetch(`/api/chat?id=${encodeURIComponent(id)}`).then((response) => (response.ok ? response.json().then(setState) : undefined)).catch(() => {});
  }, [id, idle]);
  const plan = useMemo(() => {
    preview?.update(messages, state);
    return preview?.plan();
  }, [preview, messages, state]);
  return (
    <p id="preview">
      {plan === undefined
        ? ""
        : plan
          ? `Would summarize ${plan.messages.filter((m) => m.fate !== "kept").length} messages and keep from ${plan.firstKeptId} (part ${plan.firstKeptPart})`
          : `Fits: nothing to compact (${messages.length} messages)`}
    </p>
  );
}
