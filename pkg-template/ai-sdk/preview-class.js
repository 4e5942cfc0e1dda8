// `ChatPreview`: what the route would compact, computed in the page (or a worker) from
// `useChat`'s messages: the same UIMessages, options and state as the route's `ChatCompaction`
// plans (`plan.js`), appended to a conversation handle so that `plan` costs O(kept
// messages) and can run on every keystroke. Made on the preview module's `Compactor` for
// `context-compaction/ai-sdk-preview` (ai-sdk-preview.js: a page that shows it never loads the
// whole module; the plan-only one's in workerd and edge runtimes, ai-sdk-preview-plan.js), on
// the whole one's for `context-compaction/ai-sdk` (a route that imports it ships one module).
// It calls only `conversation`, `clearableResults` and `covers` of its `Compactor`: what the
// preview module has. It also shows a pending summary (a draft made ahead of time and stored
// by the app): its text, and whether it still covers the messages (`compactor.covers`).
import { CompactionError } from "../lib/error.js";
import { read } from "./ui.js";
import { record } from "../host/host.js";
import { chatInput, ChatMemo, clearableOf, compactorConfig, pendingCut, readChatOptions } from "./plan.js";

/** The `ChatPreview` class over `Compactor` (the whole module's, the plan-only or the preview one's). */
export function chatPreviewOn(Compactor) {
  return class ChatPreview {
    #compactor;
    #conversation;
    #budget;
    #system;
    #state = null;
    #memo = new ChatMemo();
    #clearable;
    #live = [];
    #pending = null;
    /** The last coverage check: `{ key, covered, covers }` (`covered`: the messages it read). */
    #checked = null;

    constructor(options) {
      const read = readChatOptions(options, "ChatPreview");
      // The budget the route's maintenance plans against (its ContextManager's).
      this.#budget = read.budget;
      this.#system = read.system ?? null;
      // Planning never summarizes: the preview's compactor has a summarizer that is never called.
      this.#compactor = new Compactor(compactorConfig(read, { summarize: async () => "" }));
      this.#conversation = this.#compactor.conversation({ format: "ai-sdk-ui", estimator: read.estimator });
      this.#clearable = clearableOf(this.#compactor, read);
    }

    /**
     * Takes `useChat`'s messages (and the chat's stored state, if the page has it, and the
     * pending summary stored beside it, `{ pending }`: a draft as `compactor.draft` gives it,
     * located by `firstKeptId` and `firstKeptPart`).
     */
    update(messages, state = null, options = undefined) {
      const pending = pendingOf(options);
      const chat = chatInput(messages, state, { memo: this.#memo, clearable: this.#clearable });
      const current = chat.messages;
      const had = this.#conversation.messages;
      const grows = had.length <= current.length && had.every((message, index) => message === current[index]);
      if (grows) this.#conversation.append(current.slice(had.length));
      else this.#conversation.reset(current);
      this.#state = chat.state;
      this.#live = chat.live;
      this.#pending = pending;
    }

    /**
     * The pending summary given to `update`, or `null`: `{ summary, firstKeptId, firstKeptPart,
     * covers }`, `covers` telling whether it still covers the messages (nothing it summarizes
     * changed, and the state's summary is the one it replaces), as the route's commit of it
     * checks. Cheap while the messages it covers stay the same objects.
     */
    pending() {
      const pending = this.#pending;
      if (pending === null) return null;
      const { summary, firstKeptId, firstKeptPart } = pending;
      return { summary, firstKeptId, firstKeptPart, covers: this.#covers(pending) };
    }

    #covers(pending) {
      const sent = this.#conversation.messages;
      const cut = pendingCut(this.#live, pending);
      const summary = this.#state?.summary ?? null;
      const covered = sent.slice(0, cut.firstKeptIndex + (cut.firstKeptPart > 0 ? 1 : 0));
      // What the answer depends on: the draft's digests and cut, the summary, the covered messages.
      const key = JSON.stringify([pending.digest, pending.previousDigest, cut.firstKeptIndex, cut.firstKeptPart, summary]);
      const last = this.#checked;
      if (last && last.key === key && last.covered.length === covered.length && last.covered.every((m, i) => m === covered[i])) return last.covers;
      const covers = this.#compactor.covers({ format: "ai-sdk-ui", messages: sent, summary }, draftAt(pending, cut));
      this.#checked = { key, covered, covers };
      return covers;
    }

    /**
     * The plan in UIMessage terms, or `null` when nothing would be compacted: where the kept
     * messages start (`firstKeptId`, `firstKeptPart` of the posted message), the estimates, and
     * per live UIMessage its tokens and what happens to it (`summarized`, `kept`, `split`, or
     * `pinned`: before the cut, kept after the summary because it is pinned).
     * With `clearing` on, a plan that clearing old tool results is enough for has `kind:
     * "clear"`: the results it would clear (`cleared`), `tokensFreed`, `estimateAfter`, and the
     * messages holding them with the fate `cleared`.
     */
    plan() {
      // A pending summary that covers the chat is committed first by the route, and what it
      // leaves planned again when still over the threshold: the core plans both (its cut
      // located in the messages as sent). Of the draft, only what a plan reads: its `usage` is
      // the record's at commit (the preview module reads none).
      const pending = this.#pending !== null && this.#covers(this.#pending) ? draftAt(this.#pending, pendingCut(this.#live, this.#pending)) : null;
      const plan = this.#conversation.plan({ systemPrompt: this.#system, summary: this.#state?.summary ?? null, inputTokenBudget: this.#budget, pending });
      if (!plan) return null;
      const live = this.#conversation.messages;
      // The state's first kept message is live from its part `firstKeptPart` on.
      const base = this.#state && live[plan.firstKeptIndex]?.id === this.#state.firstKeptId ? this.#state.firstKeptPart : 0;
      const firstKeptPart = plan.firstKeptPart + base;
      if (plan.kind === "clear") return clearPlan(plan, live);
      const pinned = new Set(plan.pinnedIndices);
      const messages = live.map((message, index) => {
        const summarized = index < plan.firstKeptIndex && message.role !== "system";
        const split = index === plan.firstKeptIndex && plan.firstKeptPart > 0;
        const fate = split ? "split" : pinned.has(index) ? "pinned" : summarized ? "summarized" : "kept";
        const entry = { id: message.id, role: message.role, tokens: plan.messageTokens[index], fate };
        if (split) entry.firstKeptPart = firstKeptPart;
        return entry;
      });
      return {
        kind: "summary",
        firstKeptId: plan.firstKeptId,
        firstKeptPart,
        splitTurn: plan.splitTurn,
        estimateBefore: plan.estimateBefore,
        estimateAfterWithoutSummary: plan.estimateAfterWithoutSummary,
        messages,
      };
    }

    free() {
      this.#conversation.free();
      this.#compactor.free();
    }

    [Symbol.dispose]() {
      this.free();
    }
  };
}

/**
 * `update`'s `{ pending }`: a draft or nothing, read once and checked, so that `pending()` never
 * throws (a cut it cannot locate only covers nothing).
 */
function pendingOf(options) {
  if (options === undefined || options === null) return null;
  const pending = read(() => record(options, "options"))?.pending;
  if (pending === undefined || pending === null) return null;
  const copy = read(() => record(pending, "options.pending"));
  const digest = (value) => typeof value === "string" && /^[0-9a-f]{16}$/.test(value);
  if (copy === null || typeof copy.summary !== "string" || !digest(copy.digest) || !digest(copy.previousDigest)) {
    throw new CompactionError("invalid_request", "invalid request: options.pending must be a draft ({ summary, firstKeptId, firstKeptPart, digest, previousDigest }) or null");
  }
  return copy;
}

/** The draft the core reads of pending summary `pending`: its text and digests, cut at `cut`. */
const draftAt = (pending, cut) => ({ summary: pending.summary, digest: pending.digest, previousDigest: pending.previousDigest, ...cut });

/** A clear plan in UIMessage terms: which results of which messages, and what that frees. */
function clearPlan(plan, live) {
  const cleared = plan.clearedResults.map((result) => ({
    id: live[result.index]?.id ?? null,
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    tokens: result.tokens,
    text: result.text,
  }));
  const holding = new Set(plan.clearedResults.map((result) => result.index));
  return {
    kind: "clear",
    firstKeptId: null,
    firstKeptPart: 0,
    splitTurn: false,
    estimateBefore: plan.estimateBefore,
    estimateAfterWithoutSummary: plan.estimateAfterWithoutSummary,
    estimateAfter: plan.estimateAfter,
    tokensFreed: plan.tokensFreed,
    cleared,
    messages: live.map((message, index) => ({ id: message.id, role: message.role, tokens: plan.messageTokens[index], fate: holding.has(index) ? "cleared" : "kept" })),
  };
}
