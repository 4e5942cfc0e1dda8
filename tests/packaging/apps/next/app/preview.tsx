"use client";
// A client component that previews a compaction before anything is sent: `ready()` loads the
// plan-only WebAssembly module in the browser, then planning is synchronous and cheap.
import { useEffect, useState } from "react";
import { Compactor, ready, type Message } from "context-compaction/plan";

export default function Preview({ messages, contextWindowTokens }: { messages: Message[]; contextWindowTokens: number }) {
  const [text, setText] = useState("");
  useEffect(() => {
    let compactor: Compactor | undefined;
    ready().then(() => {
      compactor = new Compactor({ keepRecentTokens: 20_000 });
      const plan = compactor.plan({ messages, inputTokenBudget: contextWindowTokens - 16_384 });
      setText(
        plan
          ? `Summarize ${plan.messagesToSummarize.length} messages, keep from #${plan.firstKeptIndex}: ${plan.estimateBefore} → ${plan.estimateAfterWithoutSummary} tokens before the summary`
          : "Fits: nothing to compact",
      );
    });
    return () => compactor?.free();
  }, [messages, contextWindowTokens]);
  return <p id="plan">{text}</p>;
}
