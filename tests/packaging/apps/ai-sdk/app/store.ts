// The compaction state of each chat, one JSON file per chat (a database row works the same).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ChatCompactionState } from "context-compaction/ai-sdk";

const dir = process.env.CHAT_STATE_DIR ?? ".chats";
const file = (id: string) => join(dir, `${encodeURIComponent(id)}.json`);

export const chats = {
  async load(id: string): Promise<ChatCompactionState | null> {
    try {
      return JSON.parse(await readFile(file(id), "utf8"));
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "ENOENT") return null;
      throw error;
    }
  },
  async save(id: string, state: ChatCompactionState | null): Promise<void> {
    await mkdir(dir, { recursive: true });
    await writeFile(file(id), JSON.stringify(state));
  },
};
