// Clearing old tool results before summarizing, measured on two sessions replayed answer by
// answer through a `ContextManager` (`maintain` before each assistant message, whose state then
// grows by that message), at 100k, 128k and 200k windows (reserve 16,384, the manager's default;
// default `keepRecentTokens` and trigger ratio; the plain local estimate: the fixture's usage is
// left off, as it would describe the uncleared history). The summarizer is a stub answering a
// fixed summary (its size is printed), so no model is called and the figures count calls and
// tokens, not summary quality.
//
// (a) "fixture x2": tests/fixtures/large-session.jsonl twice over (bench/workloads.mjs's
//     `history`, fresh tool-call ids for the second round), 1,828 messages.
// (b) "edit-heavy": the same 1,828 messages, rewritten so that more of the estimated tokens are
//     in tool-call arguments, as in an agent that writes files (the fixture holds 37% there
//     already, by this estimate; this one 62%: each line printed says). Deterministically:
//     every `bash` call whose output is at least 400 characters, and every second `read` call
//     (counted in order over the replay), becomes a `write` call whose arguments are
//     `{ path, content }`: `content` is the text of the result it answered (real file contents
//     and command output from the fixture), `path` the read's own path, or `out/<call id>.txt`
//     for a command. Its result becomes `Wrote <n> characters to <path>.` The tokens move from
//     the results into the arguments; the messages, their order and every other call stay.
//
//   node bench/clearing.mjs            # the table: clearing off, and `clearing: true`
//   node bench/clearing.mjs --explicit # also the explicit options of the old defaults
//
// Prints, for each session, window and clearing setting, the summary calls, the clearings
// (results cleared), the tokens each freed, and the least one clearing freed.
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { history } from "./workloads.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}/dist/index.js`)) execFileSync(`${root}/scripts/build`, { stdio: "inherit" });
const { Compactor, ContextManager, estimate } = await import(`${root}/dist/index.js`);

const WINDOWS = [100_000, 128_000, 200_000];
const summaryText = Array.from({ length: 300 }, (_, i) => `- point ${i}: what was decided and why`).join("\n");

const fixture = history(914 * 2).map(({ usage, ...rest }) => rest);

/** The text of a canonical result's content. */
const resultText = (content) => (typeof content === "string" ? content : content.filter((b) => b.type === "text").map((b) => b.text).join("\n"));

/** Session (b): see the header. */
function editHeavy(messages) {
  const out = structuredClone(messages);
  const calls = new Map();
  for (const m of out) if (m.role === "assistant") for (const b of m.content) if (b.type === "toolCall") calls.set(b.id, b);
  let reads = 0;
  for (const m of out) {
    if (m.role !== "toolResult") continue;
    const call = calls.get(m.toolCallId);
    if (!call) continue;
    const text = resultText(m.content);
    const read = call.name === "read" && reads++ % 2 === 0;
    const bash = call.name === "bash" && text.length >= 400;
    if (!read && !bash) continue;
    const path = read ? call.arguments.path ?? call.arguments.file_path : `out/${call.id}.txt`;
    call.name = "write";
    call.arguments = { path, content: text };
    m.toolName = "write";
    m.content = [{ type: "text", text: `Wrote ${text.length} characters to ${path}.` }];
  }
  return out;
}

/** The share of `messages`' estimated tokens that is in tool-call arguments. */
function argumentShare(messages) {
  const total = estimate({ summary: "", messages }).total;
  const bare = messages.map((m) => (m.role === "assistant" ? { ...m, content: m.content.map((b) => (b.type === "toolCall" ? { ...b, arguments: {} } : b)) } : m));
  return (total - estimate({ summary: "", messages: bare }).total) / total;
}

async function replay(messages, window, clearing) {
  const compactor = new Compactor({ clearing, summarizer: { summarize: async () => summaryText } });
  const manager = new ContextManager({ compactor, contextWindowTokens: window });
  let state = { summary: "", messages: [] };
  const tally = { summaries: 0, summaryFreed: 0, clearings: 0, cleared: 0, clearFreed: 0, smallest: Infinity };
  for (const message of messages) {
    if (message.role === "assistant") {
      const out = await manager.maintain(state);
      if (out.error) throw out.error;
      const record = out.record;
      if (out.reason === "cleared") {
        tally.clearings++;
        tally.cleared += record.clearedResults;
        tally.clearFreed += record.estimateBefore - record.estimateAfter;
        tally.smallest = Math.min(tally.smallest, record.estimateBefore - record.estimateAfter);
      } else if (out.reason === "compacted") {
        tally.summaries++;
        tally.summaryFreed += record.estimateBefore - record.estimateAfter;
      }
      state = out.state;
    }
    state = { ...state, messages: [...state.messages, message] };
  }
  manager.free();
  compactor.free();
  return tally;
}

const thousands = (n) => Math.round(n).toLocaleString("en-US");
const percent = (x) => `${(x * 100).toFixed(0)}%`;
const settings = [
  ["off", false],
  ["`true`", true],
];
if (process.argv.includes("--explicit")) settings.push(["`{ protectRecentTokens: 40000, clearArguments: false }`", { protectRecentTokens: 40_000, clearArguments: false }]);

const sessions = [
  ["fixture x2", fixture],
  ["edit-heavy", editHeavy(fixture)],
];
const summaryTokens = estimate({ summary: summaryText, messages: [] }).summary;
console.log(`stub summary ${thousands(summaryTokens)} tokens; reserve 16,384`);
for (const [name, messages] of sessions) {
  const total = estimate({ summary: "", messages }).total;
  console.log(`${name}: ${messages.length} messages, ${thousands(total)} tokens, ${percent(argumentShare(messages))} in tool-call arguments`);
}
console.log("| session | window | clearing | summary calls | tokens freed by summaries | clearings (results cleared) | tokens freed by clearing | least one clearing freed |");
console.log("|---|---:|---|---:|---:|---:|---:|---:|");
for (const [name, messages] of sessions) {
  for (const window of WINDOWS) {
    for (const [setting, clearing] of settings) {
      const t = await replay(messages, window, clearing);
      console.log(`| ${name} | ${thousands(window / 1000)}k | ${setting} | ${t.summaries} | ${thousands(t.summaryFreed)} | ${t.clearings} (${t.cleared}) | ${thousands(t.clearFreed)} | ${t.clearings ? thousands(t.smallest) : "-"} |`);
    }
  }
}
