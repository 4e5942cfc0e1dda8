// The poisoning check: many hostile calls in one process, then a fresh Compactor
// must plan the real session exactly as before, with wasm memory grown by at most a few MB.
// Each call below used to leave a borrow, an allocation or an externref slot behind.
import { sessionMessages } from "./walk-helpers.mjs";

const summarizer = { model: "m", generate: async () => "SUMMARY", retry: { delaysMs: [] } };

/** The session's plan by a fresh Compactor (typed arrays as plain arrays, for comparing). */
export function sessionPlan({ Compactor }, messages = sessionMessages()) {
  const compactor = new Compactor({ keepRecentTokens: 20_000, summarizer });
  const plan = compactor.plan({ messages, inputTokenBudget: 0 });
  compactor.free();
  return { ...plan, messageTokens: [...plan.messageTokens], messagesToSummarize: plan.messagesToSummarize.length, turnPrefixMessages: plan.turnPrefixMessages.length };
}

/** The hostile calls, one per kind; each returns its promise when it has one. */
export function hostileCalls({ Compactor, ContextManager, HeuristicEstimator, estimate }) {
  const compactor = new Compactor({ keepRecentTokens: 200, summarizer });
  const freed = new Compactor({ summarizer });
  freed.free();
  const history = compactor.conversation({});
  const manager = new ContextManager({ compactor, contextWindowTokens: 1_000 });
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable([], {});
    revoke();
    return proxy;
  };
  const messages = Array.from({ length: 40 }, (_, i) => ({ role: "user", content: `message ${i}` }));
  const getterAt = (i) => {
    const copy = [...messages];
    copy[i] = Object.defineProperty({ role: "user" }, "content", { get() { throw new Error("trap"); }, enumerable: true });
    return copy;
  };
  const trapLength = new Proxy(messages, { get: (t, k) => { if (k === "length") throw new Error("trap"); return t[k]; } });
  const buffer = new ArrayBuffer(8);
  structuredClone(buffer, { transfer: [buffer] });
  return [
    () => compactor.plan({ messages: revoked() }),
    () => compactor.plan({ messages: trapLength }),
    () => compactor.plan({ messages: getterAt(35) }),
    () => compactor.plan({ messages: getterAt(2).slice(0, 5) }),
    () => compactor.planBytes(buffer),
    () => compactor.planBytes("[1e999, {\"role\":\"user\"}]"),
    () => estimate({ messages: revoked() }),
    () => history.append(revoked()),
    () => history.append(getterAt(35)),
    () => freed.plan({ messages }),
    () => freed.free(),
    () => compactor.compact({ messages: revoked() }),
    () => freed.compact({ messages }),
    () => compactor.apply({ messages }, { firstKeptIndex: 2 ** 32 + 2 }),
    () => manager.maintain({ messages, get summary() { throw new Error("trap"); } }),
    () => new Compactor({ summarizer: { ...summarizer, retry: { delaysMs: revoked() } } }),
    () => new HeuristicEstimator().countTokens(null),
  ];
}

/** Makes `count` hostile calls (cycling through the kinds); every one must fail cleanly. */
export async function poison(api, count) {
  const calls = hostileCalls(api);
  for (let i = 0; i < count; i++) {
    try {
      const returned = calls[i % calls.length]();
      if (returned instanceof Promise) await returned.catch((e) => expectClean(api, e));
    } catch (e) {
      expectClean(api, e);
    }
  }
}

function expectClean({ CompactionError }, error) {
  if (!(error instanceof CompactionError)) throw new Error(`escaped: ${error?.stack ?? error}`);
}
