// With a lib that has Symbol.dispose, the classes are Disposable (`using` frees them).
import { Compactor } from "context-compaction";

export function once(): number {
  using compactor = new Compactor({ summarizer: { summarize: async () => "" } });
  return compactor.plan({ messages: [] })?.firstKeptIndex ?? -1;
}
