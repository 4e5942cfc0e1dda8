// What the route would compact, computed in the page (or a worker) from `useChat`'s messages:
// `update` converts what changed (messages already seen are cached by object) and appends it
// to a conversation handle, so `plan` costs O(kept messages) and can run on every keystroke.
import { CompactionError, Compactor } from "context-compaction";
import { checkState, convertLive, liveMessages } from "./ai-sdk-ui.js";

const DEFAULT_RESERVE = 16_384;

export class ChatPreview {
  #compactor;
  #conversation;
  #convert;
  #budget;
  #system;
  #cache = new WeakMap();
  #origins = new Map();
  #state = null;

  constructor(options) {
    if (options === null || typeof options !== "object" || typeof options.convertToModelMessages !== "function") {
      throw new CompactionError("invalid_config", 'invalid config: ChatPreview needs { contextWindowTokens, convertToModelMessages } (the function from "ai")');
    }
    const { contextWindowTokens, reserveTokens, maxOutputTokens, keepRecentTokens, triggerRatio, system, estimator } = options;
    if (!(typeof contextWindowTokens === "number" && contextWindowTokens > 0)) {
      throw new CompactionError("invalid_config", "invalid config: ChatPreview: contextWindowTokens must be a number > 0");
    }
    // The budget ContextManager's maintenance uses (the route's ChatCompaction).
    this.#budget = Math.max(0, contextWindowTokens - Math.max(reserveTokens ?? DEFAULT_RESERVE, maxOutputTokens ?? 0));
    this.#system = system ?? null;
    this.#convert = options.convertToModelMessages;
    // Planning never summarizes: the preview's compactor has a summarizer that is never called.
    this.#compactor = new Compactor({ keepRecentTokens, triggerRatio, summarizer: { summarize: async () => "" } });
    this.#conversation = this.#compactor.conversation({ format: "ai-sdk", estimator });
  }

  /** Takes `useChat`'s messages (and the chat's stored state, if the page has it). */
  async update(messages, state = null) {
    let valid = checkState(state);
    let live = liveMessages(messages, valid);
    if (live === null) [valid, live] = [null, liveMessages(messages, null)];
    const { messages: model, origins } = await convertLive(this.#convert, live, this.#cache);
    const had = this.#conversation.messages;
    const grows = had.length <= model.length && had.every((message, index) => message === model[index]);
    if (grows) this.#conversation.append(model.slice(had.length));
    else this.#conversation.reset(model);
    this.#origins = origins;
    this.#state = valid;
  }

  /**
   * The plan in UIMessage terms, or `null` when nothing would be compacted: where the kept
   * messages start (`firstKeptId`, `firstKeptPart`), the estimates, and per UIMessage its
   * tokens and what happens to it (`summarized`, `kept`, or `split` from `firstKeptPart`).
   */
  plan() {
    const plan = this.#conversation.plan({ systemPrompt: this.#system, summary: this.#state?.summary ?? null, inputTokenBudget: this.#budget });
    if (!plan) return null;
    const messages = [];
    const byId = new Map();
    let firstKept;
    this.#conversation.messages.forEach((model, index) => {
      const origin = this.#origins.get(model);
      if (!origin) return;
      const summarized = index < plan.firstKeptIndex && model.role !== "system";
      if (!summarized && !firstKept && model.role !== "system") firstKept = origin;
      let entry = byId.get(origin.id);
      if (!entry) {
        entry = { id: origin.id, role: origin.role, tokens: 0, fate: summarized ? "summarized" : "kept" };
        byId.set(origin.id, entry);
        messages.push(entry);
      } else if (entry.fate === "summarized" && !summarized) {
        entry.fate = "split";
        entry.firstKeptPart = origin.part;
      }
      entry.tokens += plan.messageTokens[index];
    });
    return {
      firstKeptId: firstKept?.id ?? null,
      firstKeptPart: firstKept?.part ?? 0,
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
