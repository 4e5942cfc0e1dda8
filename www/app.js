// The preview page: plans in the page (the package's wasm build) and shows what a compaction
// would do. Served with the package under ./pkg/ (scripts/serve.mjs).
import init, { Compactor, estimate, openAICompatibleGenerator } from "./pkg/web.js";

const $ = (id) => document.getElementById(id);
const controls = ["window", "reserve", "keep", "ratio"];
const format = (n) => Math.round(n).toLocaleString("en-US");
let messages = [];
let bars = [];
let scheduled = false;

await init();
// A summarizer that is never called: the preview only plans.
const previewSummarizer = { summarize: async () => "" };

/** Messages from pasted or dropped text: a JSON array, `{ messages }`, or JSON lines. */
export function parseConversation(text) {
  const trimmed = text.trim();
  if (!trimmed) throw new Error("nothing to load");
  if (trimmed.startsWith("[") || trimmed.startsWith("{\"messages\"")) {
    const value = JSON.parse(trimmed);
    const list = Array.isArray(value) ? value : value.messages;
    if (!Array.isArray(list)) throw new Error("expected an array of messages");
    return list;
  }
  return trimmed.split("\n").filter((l) => l.trim()).flatMap((line, i) => {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch (e) {
      throw new Error(`line ${i + 1}: ${e.message}`);
    }
    if (entry && entry.message) return entry.type === undefined || entry.type === "message" ? [entry.message] : [];
    return entry && entry.role ? [entry] : [];
  });
}

function setConversation(list) {
  messages = list;
  const bar = (m, i) => {
    const el = document.createElement("div");
    el.className = "bar";
    el.dataset.index = i;
    return el;
  };
  bars = messages.map(bar);
  $("bars").replaceChildren(...bars);
  schedule();
}

function values() {
  return Object.fromEntries(controls.map((id) => [id, Number($(id).value)]));
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    try {
      render();
      showError(null);
    } catch (e) {
      showError(e);
    }
  });
}

function showError(error) {
  $("error").hidden = !error;
  $("error").textContent = error ? `${error.code ? `${error.code}: ` : ""}${error.message}` : "";
}

/** Where the last assistant message has calls without results: that tail is always kept. */
function inFlightStart() {
  const last = messages.findLastIndex((m) => m.role === "assistant");
  if (last < 0) return messages.length;
  const answered = new Set(messages.slice(last + 1).filter((m) => m.role === "toolResult").map((m) => m.toolCallId));
  const calls = Array.isArray(messages[last].content) ? messages[last].content.filter((b) => b.type === "toolCall") : [];
  return calls.some((c) => !answered.has(c.id)) ? last : messages.length;
}

/** Tool-call pairs (call index, result index) that forbid cuts between `cut` and `boundary`. */
function constrainingPairs(cut, boundary) {
  const calls = new Map();
  const pairs = [];
  messages.forEach((m, j) => {
    if (m.role === "toolResult" && calls.has(m.toolCallId)) {
      const i = calls.get(m.toolCallId);
      if (i >= cut && i < boundary && j >= cut) pairs.push([i, j, m.toolName ?? "tool"]);
    }
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const b of m.content) if (b.type === "toolCall") calls.set(b.id, j);
    }
  });
  return pairs;
}

function keepBoundary(tokens, keep) {
  let kept = 0;
  let start = tokens.length;
  while (kept < keep && start > 0) kept += tokens[--start];
  return kept >= keep ? start : 0;
}

function render() {
  const v = values();
  $("window-out").textContent = format(v.window);
  $("reserve-out").textContent = format(v.reserve);
  $("keep-out").textContent = format(v.keep);
  $("ratio-out").textContent = v.ratio.toFixed(2);
  const compactor = new Compactor({ keepRecentTokens: v.keep, triggerRatio: v.ratio, summarizer: previewSummarizer });
  const budget = Math.max(0, v.window - v.reserve);
  const request = { messages, inputTokenBudget: budget };
  const plan = compactor.plan(request);
  // When the trigger does not fire, still show the cut a forced compaction would make.
  let shown = plan;
  if (!plan) {
    try {
      shown = compactor.plan({ messages, requireReduction: true });
    } catch {
      shown = null;
    }
  }
  const tokens = shown ? shown.messageTokens : estimate(request).messages;
  const total = estimate(request).total;
  const flight = inFlightStart();
  const max = Math.max(1, ...tokens);
  const historyEnd = shown ? shown.messagesToSummarize.length : 0;
  const cut = shown ? shown.firstKeptIndex : messages.length;
  bars.forEach((el, i) => {
    const status = i >= flight ? "inflight" : !shown || i >= cut ? "kept" : i < historyEnd ? "summarized" : "prefix";
    el.className = `bar ${status}${shown && i === cut ? " cut" : ""}`;
    // Square-root heights keep small messages visible next to large tool results.
    el.style.setProperty("--h", `${Math.max(2, Math.sqrt(tokens[i] / max) * 100)}%`);
  });
  $("bars").classList.toggle("cut-end", Boolean(shown) && cut === messages.length);
  document.body.dataset.cut = shown ? String(cut) : "none";
  document.body.dataset.fires = String(Boolean(plan));
  document.body.dataset.split = String(Boolean(shown?.splitTurn));
  compactor.free();

  const stat = (label, value, cls = "") => `<div class="${cls}"><dt>${label}</dt><dd>${value}</dd></div>`;
  $("stats").innerHTML = [
    stat("messages", format(messages.length)),
    stat("estimate now", format(total)),
    stat("threshold", format(budget * v.ratio)),
    stat("trigger", plan ? "fires" : "does not fire", plan ? "fires" : ""),
    stat(plan ? "cut at" : "cut if forced", shown ? `#${cut}${shown.splitTurn ? " (split turn)" : ""}` : "nothing to cut"),
    stat("summarized", shown ? format(historyEnd) : "0"),
    stat("turn prefix", shown ? format(shown.turnPrefixMessages.length) : "0"),
    stat("estimate after", shown ? `${format(shown.estimateAfterWithoutSummary)} + summary` : format(total)),
  ].join("");

  const pairs = shown ? constrainingPairs(cut, Math.min(keepBoundary(tokens, v.keep), flight)) : [];
  const notes = pairs.slice(0, 50).map(([i, j, name]) => `<li>#${i} → #${j} (${name}): the cut cannot fall between them</li>`);
  if (shown && flight < messages.length) notes.unshift(`<li>#${flight}: tool calls in flight, kept with everything after</li>`);
  $("pairs").innerHTML = notes.join("") || "<li>none</li>";
  if ($("input-details").open) showSummarizerInput(v, shown);
}

function showSummarizerInput(v, plan) {
  const generator = new Compactor({ keepRecentTokens: v.keep, triggerRatio: v.ratio, summarizer: { model: "preview", generate: async () => "" } });
  const prompts = plan ? generator.summarizerInput({ messages }, plan) : [];
  generator.free();
  $("summarizer-input").textContent = prompts.length
    ? prompts.map((p) => `── ${p.purpose} ──\n${p.prompt}`).join("\n\n")
    : "(nothing would be summarized)";
}

async function runForReal() {
  const out = $("run-out");
  out.hidden = false;
  out.textContent = "compacting…";
  const v = values();
  const compactor = new Compactor({
    keepRecentTokens: v.keep,
    triggerRatio: v.ratio,
    summarizer: { model: $("model").value, generate: openAICompatibleGenerator({ baseURL: $("base-url").value, apiKey: $("api-key").value }) },
  });
  try {
    const result = await compactor.compact({ messages, requireReduction: true });
    out.textContent = `${result.summary}\n\n${JSON.stringify({ ...result.record, summary: undefined }, null, 2)}`;
  } catch (e) {
    out.textContent = `${e.code ?? "error"}: ${e.message}`;
  } finally {
    compactor.free();
  }
}

function load(text) {
  try {
    setConversation(parseConversation(text));
  } catch (e) {
    showError(e);
  }
}

for (const id of controls) $(id).addEventListener("input", schedule);
$("input-details").addEventListener("toggle", schedule);
$("load").addEventListener("click", () => load($("paste").value));
$("file").addEventListener("change", async () => load(await $("file").files[0].text()));
$("endpoint").addEventListener("submit", (e) => {
  e.preventDefault();
  runForReal();
});
document.addEventListener("dragover", (e) => e.preventDefault());
document.addEventListener("drop", async (e) => {
  e.preventDefault();
  const file = e.dataTransfer?.files?.[0];
  if (file) load(await file.text());
});
$("bars").addEventListener("mousemove", (e) => {
  const i = Number(e.target.dataset?.index);
  if (Number.isInteger(i) && messages[i]) {
    const m = messages[i];
    const first = Array.isArray(m.content) ? m.content.find((b) => b.text || b.type === "toolCall") : { text: m.content };
    const text = first?.type === "toolCall" ? `${first.name} ${JSON.stringify(first.arguments)}` : first?.text ?? "";
    $("hover").textContent = `#${i} ${m.role}: ${text.replace(/\s+/g, " ").slice(0, 140)}`;
  }
});

load(await (await fetch("./sample.jsonl")).text());
document.body.dataset.ready = "true";
