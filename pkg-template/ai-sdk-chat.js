// Compaction for `useChat` round trips and long tool loops. `useChat` posts the whole history
// every turn, so the route stores a small state per chat (the summary and the UIMessage id and
// part where the kept messages start); `prepare` drops what the summary covers, compacts when
// maintenance says so, and hands back the model messages to send. Between the steps of one
// request, `prepareStep` carries the compaction on (ai 5 and 6 rebuild each step's messages
// from their own list; ai 7 keeps what prepareStep returned: both are handled). With the
// `clearing` option, old tool results are cleared before anything is summarized, and the state
// lists them so that every later request clears them again (ai-sdk-clearing.js).
import { CompactionError, Compactor, ContextManager, projectSummary } from "context-compaction";
import { checkState, convertLive, liveMessages, readUiMessage } from "./ai-sdk-ui.js";
import { checkCleared, mapOrigins, newlyCleared, presentIn, reapply } from "./ai-sdk-clearing.js";
import { guarded, guardedOr } from "./host.js";

const invalid = (message, cause) => new CompactionError("invalid_config", `invalid config: ${message}`, cause === undefined ? undefined : { cause });
const KEYS = ["summarizer", "keepRecentTokens", "triggerRatio", "contextWindowTokens", "reserveTokens", "maxOutputTokens", "system", "estimator", "onEvent", "clearing", "convertToModelMessages"];

/** Compaction for an AI SDK chat route (see the README's AI SDK section). */
export class ChatCompaction {
  #compactor;
  #manager;
  #convert;
  #system;
  #maxOutputTokens;
  #estimator;

  constructor(options) {
    if (options === null || typeof options !== "object") throw invalid("ChatCompaction needs { summarizer, contextWindowTokens, convertToModelMessages }");
    const read = (key) => {
      try {
        return guarded(`options.${key}`, () => options[key]);
      } catch (fault) {
        throw invalid(`ChatCompaction ${fault.message}`, fault.cause);
      }
    };
    const [summarizer, keepRecentTokens, triggerRatio, contextWindowTokens, reserveTokens, maxOutputTokens, system, estimator, onEvent, clearing, convert] = KEYS.map(read);
    if (typeof convert !== "function") throw invalid('ChatCompaction: convertToModelMessages must be the function from "ai"');
    this.#convert = convert;
    this.#system = system ?? null;
    this.#maxOutputTokens = maxOutputTokens ?? null;
    this.#estimator = estimator;
    // `clearing` is the Compactor's own config section, checked there (off when absent).
    this.#compactor = new Compactor({ keepRecentTokens, triggerRatio, summarizer, ...(clearing === undefined ? {} : { clearing }) });
    this.#manager = new ContextManager({ compactor: this.#compactor, contextWindowTokens, reserveTokens, estimator, onEvent });
  }

  /**
   * The model messages to send for the UIMessages the client posted and the chat's stored
   * state: the summary first, the compacted prefix dropped, the results the state lists as
   * cleared cleared again, compacting when due (with `clearing`, clearing first). Resolves to
   * `{ messages, state, compacted, reason, record, error?, prepareStep, stateAfter }`.
   */
  async prepare(messages, state, options = {}) {
    let valid = checkState(state);
    let live = liveMessages(messages, valid);
    if (live === null) {
      // The message the state starts at is gone (edited or regenerated history): start over.
      valid = null;
      live = liveMessages(messages, null);
    }
    const converted = await convertLive(this.#convert, live);
    const { origins } = converted;
    // What earlier turns cleared is cleared again (useChat posts the results as they were).
    const { messages: model, entries } = await reapply(this.#compactor, this.#request(converted.messages), checkCleared(valid?.cleared), origins);
    const result = await this.#maintain(valid?.summary ?? null, model, options.signal);
    let next = entries.length === (valid?.cleared?.length ?? 0) ? valid : withCleared(valid, entries);
    if (result.compacted) {
      // A clearing rewrites messages in place (index for index); a summary keeps a suffix.
      const fresh = result.reason === "cleared" ? newlyCleared(model, result.state.messages, origins) : [];
      if (result.reason === "cleared") mapOrigins(model, result.state.messages, origins);
      const kept = origins.get(firstNonSystem(result.state.messages)) ?? pastEnd(live);
      const cleared = [...presentIn(entries, result.state.messages, origins), ...fresh];
      next = withCleared({ summary: result.state.summary ?? "", firstKeptId: kept.id, firstKeptPart: kept.part, record: result.record }, cleared);
    }
    const steps = new StepCompaction(this.#maintainer(), next, result.state.messages, { origins, last: live.at(-1)?.message, signal: options.signal, reapply: this.#reapplier() });
    return {
      messages: steps.initialMessages,
      state: next,
      compacted: result.compacted,
      reason: result.reason,
      record: result.record,
      ...(result.error ? { error: result.error } : {}),
      prepareStep: steps.prepareStep,
      stateAfter: (responseMessage) => steps.stateAfter(responseMessage),
    };
  }

  /** A `prepareStep` for one tool loop over model messages (no stored chat state). */
  prepareStep(options = {}) {
    return new StepCompaction(this.#maintainer(), null, null, { signal: options.signal, reapply: this.#reapplier() }).prepareStep;
  }

  /** Maintenance of model messages under `summary`. */
  #maintain(summary, messages, signal) {
    return this.#manager.maintain({ format: "ai-sdk", systemPrompt: this.#system, summary, messages }, { signal, maxOutputTokens: this.#maxOutputTokens });
  }

  /** A request of model messages for the compactor (the route's estimator, as maintenance has it). */
  #request(messages) {
    return this.#estimator === undefined || this.#estimator === null ? { messages } : { messages, estimator: this.#estimator };
  }

  #reapplier() {
    return (messages, entries, origins) => reapply(this.#compactor, this.#request(messages), entries, origins);
  }

  #maintainer() {
    return (summary, messages, signal) => this.#maintain(summary, messages, signal);
  }

  free() {
    this.#manager.free();
    this.#compactor.free();
  }

  [Symbol.dispose]() {
    this.free();
  }
}

const firstNonSystem = (messages) => messages.find((message) => message.role !== "system");

// A state with `cleared` set (left out when empty: a chat that never cleared keeps its shape).
function withCleared(state, cleared) {
  if (state === null) return null;
  const { cleared: _, ...rest } = state;
  return cleared.length > 0 ? { ...rest, cleared } : rest;
}

// Everything was summarized (nothing but system messages kept): the state starts after the last part.
const pastEnd = (live) => {
  const last = live.at(-1)?.message;
  return { id: last?.id ?? "", part: last?.parts.length ?? 0 };
};

/**
 * One request's steps: what the model was sent first, and every compaction between steps. The
 * SDK's list of step messages either starts with the projection this returned last (ai 7
 * keeps prepareStep's messages) or is the request's messages plus every step's response (ai 5
 * and 6): then the kept messages start at the first one kept, found by identity.
 */
class StepCompaction {
  #maintain;
  #reapply;
  #state;
  #summary;
  #projection;
  #keptFrom = null;
  #keptStep;
  #record;
  #origins;
  #last;
  #signal;
  /** The results cleared so far (`messageId` null: one of this request's own steps). */
  #cleared;
  /** Whether a step cleared anything (the state to store then changes). */
  #clearedInSteps = false;

  constructor(maintain, state, kept, { origins = new Map(), last, signal, reapply } = {}) {
    this.#maintain = maintain;
    this.#reapply = reapply;
    this.#state = state;
    this.#summary = state?.summary ?? null;
    this.#projection = this.#summary ? projectSummary(this.#summary, "ai-sdk") : null;
    this.#cleared = state?.cleared ?? [];
    this.#origins = origins;
    this.#last = last;
    this.#signal = signal;
    this.initialMessages = kept === null ? null : this.#projection ? [this.#projection, ...kept] : kept;
    this.#first = firstNonSystem(kept ?? []) ?? null;
    this.prepareStep = (options) => this.#step(options);
  }

  #first;

  async #step({ messages, steps = [], abortSignal } = {}) {
    if (!Array.isArray(messages)) return undefined;
    let live = this.#live(messages);
    // ai 5 and 6 rebuild the step's messages from the uncleared ones: cleared again here.
    const before = live;
    ({ messages: live, entries: this.#cleared } = await this.#reapply(live, this.#cleared, this.#origins));
    // The SDK's own object of each copy made here: ai 5 and 6 hand the same list again.
    const sdkOwn = new Map(live.flatMap((message, index) => (message === before[index] ? [] : [[message, before[index]]])));
    const result = await this.#maintain(this.#summary, live, abortSignal ?? this.#signal);
    if (result.compacted) {
      this.#record = result.record;
      if (result.reason === "cleared") {
        // Rewritten in place, index for index: the new objects come from where theirs did.
        const cleared = newlyCleared(live, result.state.messages, this.#origins);
        mapOrigins(live, result.state.messages, this.#origins);
        this.#cleared = [...this.#cleared, ...cleared];
        this.#clearedInSteps = true;
        return { messages: this.#projection ? [this.#projection, ...result.state.messages] : result.state.messages };
      }
      this.#cleared = presentIn(this.#cleared, result.state.messages, this.#origins);
      this.#summary = result.state.summary;
      this.#projection = projectSummary(this.#summary, "ai-sdk");
      const keptFrom = firstNonSystem(result.state.messages) ?? null;
      this.#keptFrom = sdkOwn.get(keptFrom) ?? keptFrom;
      this.#keptStep = stepOf(this.#keptFrom, steps);
      return { messages: [this.#projection, ...result.state.messages] };
    }
    if (live !== before) return { messages: this.#projection ? [this.#projection, ...live] : live };
    return this.#projection ? { messages: [this.#projection, ...live] } : undefined;
  }

  /** The SDK's step messages without the projection and what the summary covers. */
  #live(messages) {
    if (this.#projection && messages[0] === this.#projection) return messages.slice(1);
    const at = this.#keptFrom ? messages.indexOf(this.#keptFrom) : -1;
    // System messages before the cut stay (never cut); the earlier projection is a user message.
    if (at >= 0) return [...messages.slice(0, at).filter((m) => m.role === "system"), ...messages.slice(at)];
    // The kept message was not found (the SDK copied the list): the request's own messages.
    return this.#state?.summary && messages[0] === this.initialMessages?.[0] ? messages.slice(1) : messages;
  }

  /**
   * The chat state to store once the response is complete (`onFinish`'s `responseMessage`):
   * `prepare`'s, or the compaction made between steps mapped onto the UIMessages, with the
   * results cleared so far.
   */
  stateAfter(responseMessage) {
    if (this.#keptFrom === null && !this.#clearedInSteps) return this.#state;
    const response = guardedOr(() => readUiMessage(responseMessage, "responseMessage"), null);
    const id = response && response.id !== "" ? response.id : null;
    // Results of this request's steps are parts of the response message; without its id (no
    // `generateMessageId`) they cannot be named, and are cleared again when due.
    const cleared = this.#cleared.flatMap((entry) => (entry.messageId !== null ? [entry] : id === null ? [] : [{ ...entry, messageId: id }]));
    if (this.#keptFrom === null) {
      const first = this.#origins.get(this.#first) ?? { id: id ?? "", part: 0 };
      const base = this.#state ?? { summary: "", firstKeptId: first.id, firstKeptPart: first.part, record: null };
      return withCleared({ ...base, record: this.#record ?? base.record }, cleared);
    }
    const next = (messageId, part) => withCleared({ summary: this.#summary, firstKeptId: messageId, firstKeptPart: part, record: this.#record }, cleared);
    const origin = this.#origins.get(this.#keptFrom);
    if (origin) return next(origin.id, origin.part);
    // Kept from step `#keptStep` of this response: its `step-start` part in the response message
    // (which continues the last posted message when it has the same id). Without an id the
    // client will know (`generateMessageId` unset), the between-steps compaction is not kept.
    if (this.#keptStep === undefined || id === null) return this.#state;
    const offset = this.#last && this.#last.id === response.id ? this.#last.parts.length : 0;
    let step = -1;
    for (let index = offset; index < response.parts.length; index++) {
      if (response.parts[index]?.type === "step-start" && ++step === this.#keptStep) return next(response.id, index);
    }
    return this.#state;
  }
}

/** Which step's response produced `message` (the SDK may hand out copies: compared as JSON). */
function stepOf(message, steps) {
  if (!message) return undefined;
  const text = JSON.stringify(message);
  const at = steps.findIndex((step) => (step?.response?.messages ?? []).some((m) => m === message || JSON.stringify(m) === text));
  return at >= 0 ? at : undefined;
}
