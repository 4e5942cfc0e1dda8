// `ChatPreview`: what the route would compact, computed in the page (or a worker) from
// `useChat`'s messages: the same UIMessages, options and state as the route's `ChatCompaction`
// plans (ai-sdk-plan.js), appended to a conversation handle so that `plan` costs O(kept
// messages) and can run on every keystroke. Made on the plan-only module's `Compactor` for
// `context-compaction/ai-sdk-preview` (ai-sdk-preview.js: a page that shows it never
// loads the whole module), on the whole one's for `context-compaction/ai-sdk` (a route that
// imports it ships one module).
import { chatInput, ChatMemo, clearableOf, compactorConfig, readChatOptions } from "./ai-sdk-plan.js";

/** The `ChatPreview` class over `Compactor` (the whole module's or the plan-only one's). */
export function chatPreviewOn(Compactor) {
  return class ChatPreview {
    #compactor;
    #conversation;
    #budget;
    #system;
    #state = null;
    #memo = new ChatMemo();
    #clearable;

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

    /** Takes `useChat`'s messages (and the chat's stored state, if the page has it). */
    update(messages, state = null) {
      const chat = chatInput(messages, state, { memo: this.#memo, clearable: this.#clearable });
      const current = chat.messages;
      const had = this.#conversation.messages;
      const grows = had.length <= current.length && had.every((message, index) => message === current[index]);
      if (grows) this.#conversation.append(current.slice(had.length));
      else this.#conversation.reset(current);
      this.#state = chat.state;
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
      const plan = this.#conversation.plan({ systemPrompt: this.#system, summary: this.#state?.summary ?? null, inputTokenBudget: this.#budget });
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
