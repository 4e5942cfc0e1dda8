// A Cloudflare Worker that keeps each conversation in a Durable Object and compacts it at the
// edge before handing the context to a model: old tool results are cleared first (no model
// call), and the older part is summarized only when clearing is not enough.
//
//   POST /conversations/:id/messages        body: a message or an array of messages
//   GET  /conversations/:id/context?window=128000[&reserve=16384]
//        → { messages, summary, compacted, reason, record }  (compacts first when due; reason
//          "cleared" when clearing old tool results was enough, "compacted" for a summary)
//   GET  /conversations/:id                 → the stored { summary, messages }
import { Compactor, ContextManager, openAICompatibleGenerator, projectSummary } from "context-compaction";

const json = (value, status = 200) => Response.json(value, { status });

export default {
  async fetch(request, env) {
    const match = new URL(request.url).pathname.match(/^\/conversations\/([^/]+)(\/messages|\/context)?$/);
    if (!match) return json({ error: "not found" }, 404);
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(decodeURIComponent(match[1])));
    return stub.fetch(request);
  },
};

/** One conversation. Messages are stored one key each; `meta` says which are live, so a
 * compaction commits with a single atomic write of `meta` (a failure writes nothing). */
export class Conversation {
  constructor(state, env) {
    this.storage = state.storage;
    this.env = env;
    // Requests for one conversation run one at a time: two cannot both compact it.
    this.queue = Promise.resolve();
  }

  fetch(request) {
    const run = this.queue.then(() => this.handle(request));
    this.queue = run.catch(() => {});
    return run.catch((error) => json({ error: error.message, code: error.code }, 500));
  }

  async handle(request) {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname.endsWith("/messages")) {
      const body = await request.json();
      return json({ count: await this.append(Array.isArray(body) ? body : [body]) });
    }
    if (request.method === "GET" && url.pathname.endsWith("/context")) return json(await this.context(url.searchParams));
    if (request.method === "GET") {
      const { meta, messages } = await this.load();
      return json({ summary: meta.summary, messages });
    }
    return json({ error: "method not allowed" }, 405);
  }

  async load() {
    const meta = (await this.storage.get("meta")) ?? { summary: "", start: 0, end: 0 };
    const stored = await this.storage.list({ prefix: "msg:", start: key(meta.start), end: key(meta.end) });
    return { meta, messages: [...stored.values()] };
  }

  async append(incoming) {
    const { meta } = await this.load();
    const entries = Object.fromEntries(incoming.map((message, i) => [key(meta.end + i), message]));
    const next = { ...meta, end: meta.end + incoming.length };
    // Batches of at most 128 keys are atomic; meta goes last, so a partial append is invisible.
    const keys = Object.keys(entries);
    for (let i = 0; i < keys.length; i += 128) {
      await this.storage.put(Object.fromEntries(keys.slice(i, i + 128).map((k) => [k, entries[k]])));
    }
    await this.storage.put("meta", next);
    return next.end - next.start;
  }

  async context(params) {
    const { meta, messages } = await this.load();
    const compactor = new Compactor({
      keepRecentTokens: Number(this.env.KEEP_RECENT_TOKENS ?? 20000),
      triggerRatio: Number(this.env.TRIGGER_RATIO ?? 0.8),
      // The newest PROTECT_RECENT_TOOL_TOKENS of tool output are never cleared.
      clearing: { protectRecentTokens: Number(this.env.PROTECT_RECENT_TOOL_TOKENS ?? 40000) },
      summarizer: {
        model: this.env.SUMMARY_MODEL ?? "gpt-4.1-mini",
        maxOutputTokens: 4000,
        generate: openAICompatibleGenerator({ baseURL: this.env.MODEL_URL, apiKey: this.env.MODEL_API_KEY }),
      },
    });
    const manager = new ContextManager({
      compactor,
      contextWindowTokens: Number(params.get("window") ?? 128000),
      reserveTokens: Number(params.get("reserve") ?? 16384),
    });
    try {
      const state = { systemPrompt: params.get("system") ?? "", summary: meta.summary, messages, tools: [] };
      const result = await manager.maintain(state);
      if (result.reason === "cleared") {
        // The cleared results are new objects (every other message is the one loaded): rewrite
        // their keys in one transaction, so a failure writes none of them.
        const cleared = result.state.messages.flatMap((m, i) => (m === messages[i] ? [] : [[key(meta.start + i), m]]));
        await this.storage.transaction(async (txn) => {
          for (let i = 0; i < cleared.length; i += 128) await txn.put(Object.fromEntries(cleared.slice(i, i + 128)));
        });
      } else if (result.compacted) {
        // One write commits the compaction; the summarized messages are deleted afterwards.
        const start = meta.start + result.record.firstKeptIndex;
        await this.storage.put("meta", { ...meta, summary: result.state.summary, start });
        const dropped = [];
        for (let i = meta.start; i < start; i++) dropped.push(key(i));
        for (let i = 0; i < dropped.length; i += 128) await this.storage.delete(dropped.slice(i, i + 128));
      }
      const projected = projectSummary(result.state.summary);
      return {
        messages: projected ? [projected, ...result.state.messages] : result.state.messages,
        summary: result.state.summary,
        compacted: result.compacted,
        reason: result.reason,
        record: result.record,
        error: result.error ? { code: result.error.code, message: result.error.message } : undefined,
      };
    } finally {
      manager.free();
      compactor.free();
    }
  }
}

function key(index) {
  return `msg:${String(index).padStart(10, "0")}`;
}
