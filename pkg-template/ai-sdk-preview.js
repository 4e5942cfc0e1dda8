// What the route would compact, computed in the page (or a worker) from `useChat`'s messages
// with `format: "ai-sdk-ui"` (no conversion): `update` appends what is new to a conversation
// handle, so `plan` costs O(kept messages) and can run on every keystroke.
import { CompactionError, Compactor } from "context-compaction";
import { checkState, liveMessages } from "./ai-sdk-ui.js";
import { guarded, guardedOr } from "./host.js";

const DEFAULT_RESERVE = 16_384;
const KEYS = ["contextWindowTokens", "reserveTokens", "maxOutputTokens", "keepRecentTokens", "triggerRatio", "system", "estimator", "clearing"];

export class ChatPreview {
  #compactor;
  #conversation;
  #budget;
  #system;
  #state = null;
  #trimmed = new WeakMap();
  #cleared = new WeakMap();

  constructor(options) {
    if (options === null || typeof options !== "object") throw new CompactionError("invalid_config", "invalid config: ChatPreview needs { contextWindowTokens }");
    const read = (key) => {
      try {
        return guarded(`options.${key}`, () => options[key]);
      } catch (fault) {
        throw new CompactionError("invalid_config", `invalid config: ChatPreview ${fault.message}`, { cause: fault.cause });
      }
    };
    const [contextWindowTokens, reserveTokens, maxOutputTokens, keepRecentTokens, triggerRatio, system, estimator, clearing] = KEYS.map(read);
    if (!(typeof contextWindowTokens === "number" && contextWindowTokens > 0)) {
      throw new CompactionError("invalid_config", "invalid config: ChatPreview: contextWindowTokens must be a number > 0");
    }
    // The budget the route's maintenance uses (ContextManager, as ChatCompaction sets it up).
    this.#budget = Math.max(0, contextWindowTokens - Math.max(reserveTokens ?? DEFAULT_RESERVE, maxOutputTokens ?? 0));
    this.#system = system ?? null;
    // Planning never summarizes: the preview's compactor has a summarizer that is never called.
    this.#compactor = new Compactor({ keepRecentTokens, triggerRatio, summarizer: { summarize: async () => "" }, ...(clearing === undefined ? {} : { clearing }) });
    this.#conversation = this.#compactor.conversation({ format: "ai-sdk-ui", estimator });
  }

  /** Takes `useChat`'s messages (and the chat's stored state, if the page has it). */
  update(messages, state = null) {
    let valid = checkState(state);
    let live = liveMessages(messages, valid);
    if (live === null) [valid, live] = [null, liveMessages(messages, null)];
    // What the route cleared (the state's `cleared`) is cleared here too, as the route sends it.
    const cleared = entriesByMessage(valid?.cleared);
    const current = live.map(({ message, from }) => {
      const entries = cleared.get(message.id);
      return entries ? this.#clear(message, from, entries) : from === 0 ? message.source : this.#trim(message, from);
    });
    const had = this.#conversation.messages;
    const grows = had.length <= current.length && had.every((message, index) => message === current[index]);
    if (grows) this.#conversation.append(current.slice(had.length));
    else this.#conversation.reset(current);
    this.#state = valid;
  }

  /** The posted message from part `from` on: one object per (message, from), so appends stay cheap. */
  #trim(message, from) {
    const known = this.#trimmed.get(message.source);
    if (known && known.from === from && known.length === message.parts.length) return known.trimmed;
    const trimmed = { id: message.id, role: message.role, parts: message.parts.slice(from) };
    this.#trimmed.set(message.source, { from, length: message.parts.length, trimmed });
    return trimmed;
  }

  /** The posted message from part `from` on with `entries` cleared: one object while they stay the same. */
  #clear(message, from, entries) {
    const key = JSON.stringify(entries);
    const known = this.#cleared.get(message.source);
    if (known && known.from === from && known.length === message.parts.length && known.key === key) return known.cleared;
    const parts = message.parts.slice(from).map((part) => clearPart(part, entries));
    const cleared = { id: message.id, role: message.role, parts };
    this.#cleared.set(message.source, { from, length: message.parts.length, key, cleared });
    return cleared;
  }

  /**
   * The plan in UIMessage terms, or `null` when nothing would be compacted: where the kept
   * messages start (`firstKeptId`, `firstKeptPart` of the posted message), the estimates, and
   * per live UIMessage its tokens and what happens to it (`summarized`, `kept`, or `split`).
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
    const messages = live.map((message, index) => {
      const summarized = index < plan.firstKeptIndex && message.role !== "system";
      const split = index === plan.firstKeptIndex && plan.firstKeptPart > 0;
      const entry = { id: message.id, role: message.role, tokens: plan.messageTokens[index], fate: split ? "split" : summarized ? "summarized" : "kept" };
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
}

/** The state's cleared results by UIMessage id. */
function entriesByMessage(list) {
  const by = new Map();
  for (const entry of list ?? []) by.set(entry.messageId, [...(by.get(entry.messageId) ?? []), entry]);
  return by;
}

/** A tool part of a UIMessage as the route clears it: its output (or error text) the placeholder. */
function clearPart(part, entries) {
  const id = guardedOr(() => part?.toolCallId, undefined);
  const entry = typeof id === "string" && entries.find((e) => e.toolCallId === id);
  if (!entry) return part;
  // A part that throws when read is left as it is: planning names it.
  return guardedOr(() => {
    const copy = { ...part, ...(part.state === "output-error" ? { errorText: entry.text } : { output: entry.text }) };
    if (entry.arguments) copy.input = {};
    return copy;
  }, part);
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
