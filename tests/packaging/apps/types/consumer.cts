// A CommonJS consumer (.cts): `require` types, the same API.
import { Compactor, estimate, type Message } from "context-compaction";
import init = require("context-compaction/web");

export function total(messages: Message[]): number {
  return estimate({ messages }).total;
}

export async function load(): Promise<Compactor> {
  await init.default();
  return new Compactor({ summarizer: { summarize: async () => "" } });
}
