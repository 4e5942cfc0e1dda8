// A CommonJS consumer (.cts): `require` types, the same API.
import { Compactor, estimate, type Message } from "context-compaction";
import init = require("context-compaction/web");
import { ChatPreview, type ChatUIMessage } from "context-compaction/ai-sdk";

export function total(messages: Message[]): number {
  return estimate({ messages }).total;
}

export async function load(): Promise<Compactor> {
  await init.default();
  return new Compactor({ summarizer: { summarize: async () => "" } });
}

export function preview(messages: ChatUIMessage[]): string | null {
  const chat = new ChatPreview({ contextWindowTokens: 128_000 });
  chat.update(messages);
  return chat.plan()?.firstKeptId ?? null;
}
