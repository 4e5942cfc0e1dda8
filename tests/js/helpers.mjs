// Shared fixtures for the JS suites (they run inside a temp project that installed the packed
// tarball, so "context-compaction" resolves to exactly what ships).

export const user = (text) => ({ role: "user", content: text });
export const say = (text) => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });
export const call = (id, name = "read", args = { path: `${id}.ts` }) => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
  stopReason: "toolUse",
});
export const result = (id, text = "ok", toolName = "read") => ({
  role: "toolResult",
  toolCallId: id,
  toolName,
  content: [{ type: "text", text }],
});

/** A conversation of `turns` user/tool/answer turns. */
export function conversation(turns = 6) {
  const messages = [];
  for (let i = 0; i < turns; i++) {
    messages.push(user(`question ${i}: please look at file ${i} and explain it`));
    messages.push(call(`c${i}`));
    messages.push(result(`c${i}`, `contents of file ${i} `.repeat(20)));
    messages.push(say(`answer ${i}: it does things `.repeat(5)));
  }
  return messages;
}

/** Two turns that read large tool results (`alpha…`, `beta…`), then a new question. */
export function readTurns() {
  const big = (label) => Array.from({ length: 1500 }, (_, i) => `${label}${i}`).join(" ");
  return [
    user("read the sources"),
    call("c1", "read", { path: "src/a.rs" }),
    result("c1", big("alpha"), "read"),
    call("c2", "bash", { command: "cargo test" }),
    result("c2", big("beta"), "bash"),
    say("done"),
    user("and now?"),
  ];
}

/** A summarizer config whose generate is `fn`, with short retry delays unless given. */
export function generator(fn, extra = {}) {
  return { model: "summary-model", generate: fn, retry: { delaysMs: [5, 10] }, ...extra };
}

export function httpError(status, message = `HTTP ${status}`) {
  const err = new Error(message);
  err.status = status;
  return err;
}

/** Number of live timers in this process (Node's own bookkeeping). */
export function liveTimers() {
  return process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
}

/** `messages` behind Proxies that count the reads of their `key` (`content` unless given): `{ messages, reads() }`. */
export function countingContent(messages, key = "content") {
  let reads = 0;
  const proxies = messages.map(
    (m) =>
      new Proxy(m, {
        get(target, name, receiver) {
          if (name === key) reads++;
          return Reflect.get(target, name, receiver);
        },
      }),
  );
  return { messages: proxies, reads: () => reads };
}
