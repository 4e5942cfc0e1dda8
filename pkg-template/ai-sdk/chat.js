// Compaction for `useChat` round trips and long tool loops. `useChat` posts the whole history
// every turn, so the route stores a small state per chat (the summary and the UIMessage id and
// part where the kept messages start). `prepare` plans the posted UIMessages as `ChatPreview`
// does (`plan.js`: the same input, options and state, with the usage their `metadata`
// carries), compacts when maintenance says so, and converts what is kept into the model
// messages to send. Between the steps of one request, `prepareStep` carries the compaction on
// over model messages (ai 5 and 6 rebuild each step's messages from their own list; ai 7 keeps
// what prepareStep returned: both are handled). With the `clearing` option, old tool results
// are cleared before anything is summarized, and the state lists them so that every later
// request clears them again (`plan.js` for the posted messages, `clearing.js` for a
// request's steps). Ahead of time, `prepareAhead` (after the response: `after()` in Next.js,
// `ctx.waitUntil` in a Worker) makes the summary the next compaction would make; the app stores
// it beside the chat's state and hands it to the next `prepare`, which commits it when due.
// A pending summary names its cut by UIMessage id and part, as the state does, and the core
// checks by digest that the chat still holds what it covers: a late or stale one is harmless.
import { CompactionError, Compactor, ContextManager, projectSummary } from "context-compaction";
import { convertLive, isPinnedModel, read, readUiMessage } from "./ui.js";
import { mapOrigins, newlyCleared, presentIn as presentInSteps, reapply } from "./clearing.js";
import { CHAT_ONLY_KEYS, chatInput, clearableOf, clearedBetween, compactorConfig, pendingCut, presentIn, readChatOptions, withFirstSummarized } from "./plan.js";
import { guardedOr, list, record } from "../host/host.js";

const invalid = (message) => new CompactionError("invalid_config", `invalid config: ${message}`);
const bad = (message, cause) => new CompactionError("invalid_request", `invalid request: ${message}`, cause === undefined ? undefined : { cause });

/** Compaction for an AI SDK chat route (see the README's AI SDK section). */
export class ChatCompaction {
  #compactor;
  #manager;
  #convert;
  #system;
  #maxOutputTokens;
  #estimator;
  #clearable;

  constructor(options) {
    const read = readChatOptions(options, "ChatCompaction", CHAT_ONLY_KEYS);
    if (typeof read.convertToModelMessages !== "function") throw invalid('ChatCompaction: convertToModelMessages must be the function from "ai"');
    this.#convert = read.convertToModelMessages;
    this.#system = read.system ?? null;
    this.#maxOutputTokens = read.maxOutputTokens ?? null;
    this.#estimator = read.estimator;
    this.#compactor = new Compactor(compactorConfig(read, read.summarizer));
    this.#clearable = clearableOf(this.#compactor, read);
    const { contextWindowTokens, reserveTokens, estimator, onEvent, aheadRatio } = read;
    this.#manager = new ContextManager({ compactor: this.#compactor, contextWindowTokens, reserveTokens, estimator, onEvent, aheadRatio });
  }

  /**
   * The model messages to send for the UIMessages the client posted and the chat's stored
   * state: the summary first, the compacted prefix dropped, the results the state lists as
   * cleared cleared again, compacting when due (with `clearing`, clearing first). Resolves to
   * `{ messages, state, compacted, reason, record, error?, prepareStep, stateAfter }`.
   */
  async prepare(messages, state, options = {}) {
    const { signal, pending, focus } = callOptions(options, "options");
    const chat = chatInput(messages, state, { clearable: this.#clearable });
    const valid = chat.state;
    const located = pending === null ? null : { ...pending, ...pendingCut(chat.live, pending) };
    const result = await this.#manager.maintain(this.#uiRequest(valid?.summary ?? null, chat.messages), { signal, maxOutputTokens: this.#maxOutputTokens, focus, pending: located });
    const kept = result.compacted ? read(() => list(result.state.messages, "state.messages")) : chat.messages;
    // Where each message sent came from among the posted ones: the core says so of what it kept.
    const from = keptFrom(result, chat);
    const record = withFirstSummarized(result.record, chat.messages, (message) => postedOf(message, chat));
    // The stored entries whose results are still sent, and what this clearing added.
    const entries = presentIn(valid?.cleared ?? [], kept);
    let next = entries.length === (valid?.cleared?.length ?? 0) ? valid : withCleared(valid, entries);
    // A trimmed message is sent as trimmed; the stored state does not change (the client
    // posts the message whole again, and it is trimmed again).
    if (result.compacted && result.reason !== "trimmed") {
      // The kept messages start at the record's first kept message (a clearing cuts nothing):
      // the system and pinned messages before it are kept too, and stay before it.
      const at = suffixStart(kept, from, result.record);
      const first = at < 0 ? pastEnd(chat.live) : from[at].posted;
      const fresh = clearedIn(result.record, kept, from, chat.offsets);
      next = withCleared({ summary: result.state.summary ?? "", firstKeptId: first.id, firstKeptPart: first.part, record }, [...entries, ...fresh]);
    }
    const live = kept.map((message, index) => ({ message: readUiMessage(message, `messages[${index}]`), from: 0, base: from[index].posted.part }));
    const { messages: model, origins } = await convertLive(this.#convert, live);
    // A pending summary not looked at (below the threshold) is still the one to keep, and the
    // one a step that passes the threshold commits (and may clear what it keeps: the core says
    // where each kept message came from, so the step's clearing is mapped as any other).
    const unused = result.pending === undefined ? pending : null;
    const ahead = unused === null ? null : this.#stepDraft(unused, located, chat, valid?.summary ?? null, model, origins);
    const steps = new StepCompaction(this.#maintainer(), next, model, { origins, last: chat.live.at(-1)?.message, signal, reapply: this.#reapplier(), ahead });
    return {
      messages: steps.initialMessages,
      state: next,
      compacted: result.compacted,
      reason: result.reason,
      record,
      ...(result.error ? { error: result.error } : {}),
      ...(result.pending ? { pending: result.pending } : {}),
      prepareStep: steps.prepareStep,
      stateAfter: (responseMessage) => steps.stateAfter(responseMessage),
      prepareAhead: (responseMessage, more = {}) => {
        const after = withResponse(messages, responseMessage);
        return this.prepareAhead(after, steps.stateAfter(responseMessage), { ...callOptions(more, "options"), pending: unused });
      },
    };
  }

  /**
   * Ahead-of-time compaction, after a response and off the request path: resolves to the
   * pending summary to store beside the chat's state (`{ summary, firstKeptId, firstKeptPart,
   * digest, previousDigest, ... }`: hand it to the next `prepare` as `pending`), the `pending`
   * given while it still covers the chat, or `null`. Rejects when the summary fails or is
   * aborted: keep what you stored.
   */
  async prepareAhead(messages, state, options = {}) {
    const { signal, pending, focus } = callOptions(options, "options");
    const chat = chatInput(messages, state, { clearable: this.#clearable });
    const located = pending === null ? null : { ...pending, ...pendingCut(chat.live, pending) };
    const request = this.#uiRequest(chat.state?.summary ?? null, chat.messages);
    const draft = await this.#manager.prepareAhead(request, { signal, maxOutputTokens: this.#maxOutputTokens, focus, pending: located });
    if (draft === null) return null;
    if (draft === located) return pending;
    return stored(draft, chat);
  }

  /** A `prepareStep` for one tool loop over model messages (no stored chat state). */
  prepareStep(options) {
    return new StepCompaction(this.#maintainer(), null, null, { signal: signalOf(options, "options"), reapply: this.#reapplier() }).prepareStep;
  }

  /** The maintenance state of the chat's UIMessages (what `ChatPreview` plans too). */
  #uiRequest(summary, messages) {
    return { format: "ai-sdk-ui", systemPrompt: this.#system, summary, messages };
  }

  /** Maintenance of model messages under `summary` (between the steps of a request), with a pending draft of them when given. */
  #maintain(summary, messages, signal, pending = null) {
    return this.#manager.maintain({ format: "ai-sdk", systemPrompt: this.#system, summary, messages }, { signal, maxOutputTokens: this.#maxOutputTokens, ...(pending === null ? {} : { pending }) });
  }

  /**
   * For a request whose `prepare` stayed below the threshold with pending draft `pending` (of
   * the posted chat; `located` its cut in `chat.messages`): the same draft over the model
   * messages `model` sent first (`origins`: the posted message and part each starts at), as the
   * core rebases it (it checks that the draft covers the chat as posted, then cuts it at the
   * model message that starts where the pending's cut is and takes its digest there), with that
   * origin (`at`) to find the cut again in a step's messages. A step's commit checks the digest
   * against the step's messages. `null` when it does not cover the chat, the core refuses it
   * (a CompactionError) or no model message starts there: the steps then summarize as they
   * would without it.
   */
  #stepDraft(pending, located, chat, summary, model, origins) {
    const at = { id: pending.firstKeptId, part: pending.firstKeptPart };
    const first = model.findIndex((message) => sameOrigin(posted(origins.get(message)), at));
    if (first < 0) return null;
    const onto = { format: "ai-sdk", systemPrompt: this.#system, summary, messages: model };
    try {
      const draft = this.#compactor.rebase(this.#uiRequest(summary, chat.messages), located, onto, { firstKeptIndex: first, firstKeptPart: 0 });
      return { draft, at };
    } catch (error) {
      // Stale, or model messages the core cannot read (the step's own maintenance names them):
      // it covers nothing. Anything else is not the package's refusal (a bug): it surfaces.
      if (error instanceof CompactionError) return null;
      throw error;
    }
  }

  /** A request of model messages for the compactor (the route's estimator, as maintenance has it). */
  #request(messages) {
    return this.#estimator === undefined || this.#estimator === null ? { messages } : { messages, estimator: this.#estimator };
  }

  #reapplier() {
    return (messages, entries, origins) => reapply(this.#compactor, this.#request(messages), entries, origins);
  }

  #maintainer() {
    return (summary, messages, signal, pending) => this.#maintain(summary, messages, signal, pending);
  }

  free() {
    this.#manager.free();
    this.#compactor.free();
  }

  [Symbol.dispose]() {
    this.free();
  }
}

// A message that is not a system message (one whose role cannot be read counts as not).
const notSystem = (message) => guardedOr(() => message.role !== "system", true);
const firstNonSystem = (messages) => messages.find(notSystem);

/** `{ signal, pending, focus }` of a call's options (or nothing), read once. */
function callOptions(options, path) {
  const copy = read(() => record(options, path));
  if (options !== undefined && options !== null && copy === null) throw bad(`${path} must be an object ({ signal, pending, focus })`);
  const given = copy?.pending ?? null;
  const pending = given === null ? null : read(() => record(given, `${path}.pending`));
  if (given !== null && pending === null) throw bad(`${path}.pending must be a pending summary (from prepareAhead) or null`);
  return { signal: copy?.signal, pending, focus: copy?.focus };
}

/** A draft of `chat.messages` as the app stores it: its cut by UIMessage id and posted part. */
function stored(draft, chat) {
  const live = chat.live[draft.firstKeptIndex];
  if (live === undefined) return { ...draft, firstKeptId: pastEnd(chat.live).id, firstKeptPart: pastEnd(chat.live).part };
  return { ...draft, firstKeptId: live.message.id, firstKeptPart: draft.firstKeptPart + live.from };
}

/** The chat's UIMessages once `responseMessage` is in (it continues the last one when it has its id). */
function withResponse(messages, responseMessage) {
  const posted = read(() => list(messages, "messages")) ?? [];
  if (responseMessage === undefined || responseMessage === null) return posted;
  const id = guardedOr(() => responseMessage.id, undefined);
  const last = posted.at(-1);
  const continues = last !== undefined && id !== undefined && guardedOr(() => last.id, undefined) === id;
  return continues ? [...posted.slice(0, -1), responseMessage] : [...posted, responseMessage];
}

/**
 * Where the suffix maintenance kept starts among `kept` (its messages; `origins[k].index` the
 * message of its request `kept[k]` came from, as the core gives it): the first message that
 * is not a system message and came from the record's first kept message or after it (the
 * system and pinned messages before the cut are kept in front of it); -1 when there is none.
 */
function suffixStart(kept, origins, record) {
  const cut = record?.firstKeptIndex ?? 0;
  return kept.findIndex((message, k) => origins[k].index >= cut && notSystem(message));
}

/**
 * Where each message maintenance `result` returned came from among the UIMessages it was given
 * (`chat.messages`): `{ index, sent, part, posted }`, that message's index and the message, the
 * part the kept one starts at (the core's `origins`), and that place in the posted UIMessages
 * (`{ id, part }`). When it rewrote nothing, the messages themselves.
 */
function keptFrom(result, chat) {
  const place = (index, part) => {
    const sent = chat.messages[index];
    const offset = chat.offsets.get(sent);
    return { index, sent, part, posted: { id: offset?.id ?? "", part: (offset?.from ?? 0) + part } };
  };
  if (!result.compacted) return chat.messages.map((_, index) => place(index, 0));
  return result.origins.map(({ index, part }) => place(index, part));
}

/**
 * The state's entries for the results a maintenance whose record is `record` cleared in `kept`
 * (its messages; `from` where each came from, see `keptFrom`; `offsets` where each message sent
 * starts in the posted one): each kept message compared with the one it came from (from its
 * part on), for the messages the receipt lists as rewritten (a clearing, or one after a
 * committed pending summary).
 */
function clearedIn(record, kept, from, offsets) {
  if (!(record?.receipt?.cleared?.length > 0)) return [];
  const at = new Map(offsets);
  const before = from.map(({ sent, part }) => {
    if (part === 0) return sent;
    const rest = { ...sent, parts: guardedOr(() => sent.parts.slice(part), []) };
    at.set(rest, { ...at.get(sent), from: (at.get(sent)?.from ?? 0) + part });
    return rest;
  });
  return clearedBetween(before, kept, at);
}

/** The signal of `options` (`{ signal }` or nothing), read once. */
function signalOf(options, path) {
  const copy = read(() => record(options, path));
  if (options !== undefined && options !== null && copy === null) throw bad(`${path} must be an object ({ signal })`);
  return copy?.signal;
}

/** Where UIMessage `message` (one of `chat.messages`) starts in the posted history: its id and part. */
function postedOf(message, chat) {
  const known = chat.offsets.get(message);
  return known ? { id: known.id, part: known.from } : undefined;
}

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

  /** The pending draft rebased onto the model messages, and its cut's origin (`ChatCompaction`'s `#stepDraft`), until a step commits or drops it. */
  #ahead;

  constructor(maintain, state, kept, { origins = new Map(), last, signal, reapply, ahead = null } = {}) {
    this.#maintain = maintain;
    this.#ahead = ahead;
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

  async #step(options) {
    const { messages, steps, abortSignal } = stepOptions(options);
    let live = this.#live(messages);
    markOwnSteps(live, steps, this.#origins);
    // ai 5 and 6 rebuild the step's messages from the uncleared ones: cleared again here.
    const before = live;
    ({ messages: live, entries: this.#cleared } = await this.#reapply(live, this.#cleared, this.#origins));
    // The SDK's own object of each copy made here: ai 5 and 6 hand the same list again.
    const sdkOwn = new Map(live.flatMap((message, index) => (message === before[index] ? [] : [[message, before[index]]])));
    const withUsage = carryUsage(live, steps);
    // The pending draft `prepare` was given, cut where it cut the posted chat: committed by the
    // step that passes the threshold, without a summary call.
    const originOf = (message) => {
      const own = withUsage.restore([message])[0];
      return posted(this.#origins.get(own) ?? this.#origins.get(sdkOwn.get(own)));
    };
    const pending = this.#ahead === null ? null : pendingIn(withUsage.messages, this.#ahead, originOf);
    const result = await this.#maintain(this.#summary, withUsage.messages, abortSignal ?? this.#signal, pending);
    // A step message that cannot be read would fail the SDK's own request too: named here.
    if (result.error?.code === "invalid_request") throw result.error;
    // Used (committed, or stale) or not placeable: the next steps summarize as usual.
    if (pending === null || result.pending !== undefined) this.#ahead = null;
    if (result.compacted) {
      const kept = withUsage.restore(result.state.messages);
      result.state.messages = kept;
      // The step message each kept one came from (the core's origins): a rewritten one (cleared,
      // trimmed) is a new object, from where its message came from.
      const from = result.origins.map(({ index }) => live[index]);
      const cleared = newlyCleared(from, kept, this.#origins);
      mapOrigins(from, kept, this.#origins);
      if (result.reason === "trimmed") return { messages: this.#projection ? [this.#projection, ...kept] : kept };
      // Where its summary starts, for the receipt: a posted message (not one of this request's steps).
      this.#record = withFirstSummarized(result.record, withUsage.messages, (message) => posted(this.#origins.get(message) ?? this.#origins.get(sdkOwn.get(message))));
      if (result.reason === "cleared") {
        this.#cleared = [...this.#cleared, ...cleared];
        this.#clearedInSteps = true;
        return { messages: this.#projection ? [this.#projection, ...kept] : kept };
      }
      // A summary (a committed pending one may be followed by a clearing of what it kept).
      this.#cleared = [...presentInSteps(this.#cleared, kept, this.#origins), ...cleared];
      this.#summary = result.state.summary;
      this.#projection = projectSummary(this.#summary, "ai-sdk");
      // The suffix starts at the record's first kept message, after the system and pinned
      // messages kept before it; found again by the step's own object (ai 5 and 6 hand the SDK's).
      const at = suffixStart(kept, result.origins, result.record);
      const keptFrom = at < 0 ? null : from[at];
      this.#keptFrom = sdkOwn.get(keptFrom) ?? keptFrom;
      this.#keptStep = stepOf(this.#keptFrom, steps);
      return { messages: [this.#projection, ...kept] };
    }
    if (live !== before) return { messages: this.#projection ? [this.#projection, ...live] : live };
    return this.#projection ? { messages: [this.#projection, ...live] } : undefined;
  }

  /** The SDK's step messages without the projection and what the summary covers. */
  #live(messages) {
    if (this.#projection && messages[0] === this.#projection) return messages.slice(1);
    const at = this.#keptFrom ? messages.indexOf(this.#keptFrom) : -1;
    // System and pinned messages before the cut stay (never cut); the earlier projection is a user message.
    const stays = (m) => guardedOr(() => m.role === "system", false) || isPinnedModel(m);
    if (at >= 0) return [...messages.slice(0, at).filter(stays), ...messages.slice(at)];
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
    // Where each step of this response starts in the response message (which continues the
    // last posted message when it has the same id).
    const offset = response && this.#last && this.#last.id === response.id ? this.#last.parts.length : 0;
    const starts = response ? stepStartParts(response.parts, offset) : [];
    // Results of this request's steps are parts of the response message, in the step they
    // came from; without its id (no `generateMessageId`) they cannot be named, and are cleared
    // again when due.
    const named = ({ messageId: _, step, ...entry }) => ({ messageId: id, toolCallId: entry.toolCallId, ...(starts[step] > 0 ? { part: starts[step] } : {}), text: entry.text, ...(entry.arguments ? { arguments: true } : {}) });
    const cleared = this.#cleared.flatMap((entry) => (entry.messageId !== null ? [entry] : id === null ? [] : [named(entry)]));
    if (this.#keptFrom === null) {
      const first = posted(this.#origins.get(this.#first)) ?? { id: id ?? "", part: 0 };
      const base = this.#state ?? { summary: "", firstKeptId: first.id, firstKeptPart: first.part, record: null };
      return withCleared({ ...base, record: this.#record ?? base.record }, cleared);
    }
    const next = (messageId, part) => withCleared({ summary: this.#summary, firstKeptId: messageId, firstKeptPart: part, record: this.#record }, cleared);
    const origin = posted(this.#origins.get(this.#keptFrom));
    if (origin) return next(origin.id, origin.part);
    // Kept from step `#keptStep` of this response: its `step-start` part in the response
    // message. Without an id the client will know (`generateMessageId` unset), the
    // between-steps compaction is not kept.
    if (this.#keptStep === undefined || id === null) return this.#state;
    const at = starts[this.#keptStep];
    return at === undefined ? this.#state : next(response.id, at);
  }
}

/** An origin of a posted UIMessage (`{ id, part }`), not of one of this request's steps. */
const posted = (origin) => (origin && origin.id !== null ? origin : undefined);

/** Whether two origins (`{ id, part }`, or undefined) name the same place of a posted UIMessage. */
const sameOrigin = (a, b) => a !== undefined && b !== undefined && a.id === b.id && a.part === b.part;

/**
 * The rebased pending draft (`ahead`: `{ draft, at }`) cut where its origin `at` starts among a
 * step's `messages` (`originOf` gives theirs), or null when none starts there. Only the index
 * moves: the core's commit checks the draft's digest against the step's messages.
 */
function pendingIn(messages, { draft, at }, originOf) {
  const first = messages.findIndex((message) => sameOrigin(originOf(message), at));
  return first < 0 ? null : { ...draft, firstKeptIndex: first };
}

/** Where each step of a response starts: its `step-start` parts from `offset` on. */
function stepStartParts(parts, offset) {
  const starts = [];
  for (let index = offset; index < parts.length; index++) {
    if (guardedOr(() => parts[index]?.type === "step-start", false)) starts.push(index);
  }
  return starts;
}

/**
 * Marks the model messages of `live` that came from this request's steps with their step
 * (`{ id: null, step }` in `origins`): a model that numbers its calls per response sends
 * `call_0` in every step, so a cleared result is named by its step as well as its id. Found by
 * identity in the steps' responses, else as JSON (the SDK may hand out copies).
 */
function markOwnSteps(live, steps, origins) {
  const unknown = live.filter((message) => !origins.has(message) && guardedOr(() => message.role !== "user" && message.role !== "system", false));
  if (unknown.length === 0) return;
  const produced = steps.map((step) => guardedOr(() => [...(step?.response?.messages ?? [])], []));
  const byIdentity = new Map(produced.flatMap((messages, step) => messages.map((message) => [message, step])));
  let byText = null;
  for (const message of unknown) {
    let step = byIdentity.get(message);
    if (step === undefined) {
      byText ??= new Map(produced.flatMap((messages, k) => messages.map((m) => [guardedOr(() => JSON.stringify(m), null), k])));
      step = byText.get(guardedOr(() => JSON.stringify(message), null) ?? undefined);
    }
    if (step !== undefined) origins.set(message, { id: null, step });
  }
}

/** Which step's response produced `message` (the SDK may hand out copies: compared as JSON). */
function stepOf(message, steps) {
  if (!message) return undefined;
  const text = guardedOr(() => JSON.stringify(message), null);
  const produced = (step) => guardedOr(() => [...(step?.response?.messages ?? [])].some((m) => m === message || (text !== null && JSON.stringify(m) === text)), false);
  const at = steps.findIndex(produced);
  return at >= 0 ? at : undefined;
}

/**
 * `messages` with what the provider counted for the last step's request on the assistant
 * message that step produced (the last one): a copy with the step's `usage`, so that
 * maintenance between steps is anchored to the provider's count as `prepare` is. `restore`
 * puts the SDK's own message back in a list maintenance returned.
 */
function carryUsage(messages, steps) {
  const none = { messages, restore: (list) => list };
  const usage = guardedOr(() => record(steps.at(-1)?.usage, "usage"), null);
  if (usage === null) return none;
  const at = messages.findLastIndex((message) => guardedOr(() => message.role === "assistant", false));
  const copy = at < 0 ? null : guardedOr(() => record(messages[at], "message"), null);
  if (copy === null) return none;
  copy.usage = usage;
  const own = messages[at];
  return { messages: messages.with(at, copy), restore: (list) => list.map((message) => (message === copy ? own : message)) };
}

/** `prepareStep`'s options as the SDK passes them (`{ messages, steps, abortSignal }`), read once. */
function stepOptions(options) {
  const copy = read(() => record(options, "prepareStep options"));
  if (copy === null) throw bad("prepareStep options must be the AI SDK's step options ({ messages, steps })");
  const messages = read(() => list(copy.messages, "prepareStep options.messages"));
  if (messages === null) throw bad("prepareStep options.messages must be an array of model messages");
  const steps = copy.steps === undefined ? [] : read(() => list(copy.steps, "prepareStep options.steps"));
  if (steps === null) throw bad("prepareStep options.steps must be an array");
  return { messages, steps, abortSignal: copy.abortSignal };
}
