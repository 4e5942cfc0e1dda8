// The preview page: plans in the page (the package's wasm build) and shows what a compaction
// would do. Served with the package under ./pkg/ (scripts/serve.mjs).
import init, { Compactor, ContextManager, estimate, openAICompatibleGenerator } from "./pkg/web.js";

const $ = (id) => document.getElementById(id);
const controls = ["window", "reserve", "keep", "ratio", "protect"];
const format = (n) => Math.round(n).toLocaleString("en-US");
let messages = [];
// The stored summary of what came before `messages` (set by a commit), part of every request.
let summary = "";
let bars = [];
let scheduled = false;
// Placeholders of the results the current clear plan clears, by message index (for the hover).
let clearedTexts = new Map();
// Bumped on every render, so that a trim preview finishing late does not paint over a newer one.
let renders = 0;

await init();
// A summarizer that is never called: the preview only plans.
const previewSummarizer = { summarize: async () => "" };
// The draft under review: `{ draft, forced }` (`forced`: made on the cut a forced compaction
// makes, the trigger not firing), and the controller of a draft being made.
let review = null;
let drafting = null;

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

/** Shows `list` (after the stored summary `stored`); a new conversation drops the last receipt. */
function setConversation(list, stored = "", receipt = null) {
  messages = list;
  summary = stored;
  showReceipt(receipt);
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

/** The `clearing` config the controls describe, `undefined` when the step is off. */
function clearingConfig(v) {
  if (!$("clearing").checked) return undefined;
  const neverClear = $("never-clear").value.split(",").map((name) => name.trim()).filter(Boolean);
  return { protectRecentTokens: v.protect, neverClear, clearArguments: $("clear-args").checked };
}

function compactorFor(v, summarizer) {
  return new Compactor({ keepRecentTokens: v.keep, triggerRatio: v.ratio, clearing: clearingConfig(v), summarizer });
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
  $("protect-out").textContent = format(v.protect);
  $("clearing-controls").disabled = !$("clearing").checked;
  const budget = Math.max(0, v.window - v.reserve);
  const request = { messages, summary, inputTokenBudget: budget };
  const compactor = compactorFor(v, previewSummarizer);
  let plan;
  let shown;
  try {
    plan = compactor.plan(request);
    // When the trigger does not fire, still show the cut a forced compaction would make.
    shown = plan ?? forcedPlan(compactor);
  } finally {
    compactor.free();
  }
  const estimated = estimate(request);
  const view = { v, budget, plan, shown, total: estimated.total, tokens: shown ? shown.messageTokens : estimated.messages, flight: inFlightStart() };
  const generation = ++renders;
  document.body.dataset.fires = String(Boolean(plan));
  document.body.dataset.kind = plan?.kind === "clear" ? "clear" : plan ? "summary" : "none";
  document.body.dataset.trim = "none";
  clearedTexts = new Map();
  if (plan?.kind === "clear") renderClear(view);
  else renderSummary(view);
  // Nothing left to summarize and still over the window: the provider would refuse the request,
  // and overflow recovery would trim the newest tool result (with clearing on).
  if (!shown && $("clearing").checked && view.total > budget) previewTrim(view, generation);
  if ($("input-details").open) showSummarizerInput(v, plan?.kind === "clear" ? null : shown, plan?.kind === "clear");
}

function forcedPlan(compactor) {
  try {
    return compactor.plan({ messages, summary, requireReduction: true });
  } catch {
    return null;
  }
}

/** Colours the bars: `status(i)` names each one's class, heights from the estimated tokens. */
function paintBars(tokens, status, cut = -1) {
  const max = Math.max(1, ...tokens);
  bars.forEach((el, i) => {
    el.className = `bar ${status(i)}${i === cut ? " cut" : ""}`;
    // Square-root heights keep small messages visible next to large tool results.
    el.style.setProperty("--h", `${Math.max(2, Math.sqrt(tokens[i] / max) * 100)}%`);
  });
}

const stat = (label, value, cls = "") => `<div class="${cls}"><dt>${label}</dt><dd>${value}</dd></div>`;

function headStats({ v, budget, plan, total }) {
  // Over the threshold without a plan: nothing can be removed (overflow recovery may trim).
  const trigger = plan ? "fires" : total > budget * v.ratio ? "over, nothing to remove" : "does not fire";
  return [
    stat("messages", format(messages.length)),
    stat("estimate now", format(total)),
    stat("threshold", format(budget * v.ratio)),
    ...(summary ? [stat("stored summary", `${format(estimate({ messages: [], summary }).summary)} tokens`)] : []),
    stat("trigger", trigger, trigger === "does not fire" ? "" : "fires"),
  ];
}

/** A summary plan (or, when the trigger does not fire, the cut a forced compaction would make). */
function renderSummary(view) {
  const { v, budget, plan, shown, tokens, flight, total } = view;
  const historyEnd = shown ? shown.messagesToSummarize.length : 0;
  const cut = shown ? shown.firstKeptIndex : messages.length;
  const status = (i) => (i >= flight ? "inflight" : !shown || i >= cut ? "kept" : i < historyEnd ? "summarized" : "prefix");
  paintBars(tokens, status, shown ? cut : -1);
  $("bars").classList.toggle("cut-end", Boolean(shown) && cut === messages.length);
  document.body.dataset.cut = shown ? String(cut) : "none";
  document.body.dataset.split = String(Boolean(shown?.splitTurn));
  document.body.dataset.cleared = "0";

  const over = total > budget * v.ratio;
  const clearing = !$("clearing").checked ? [] : [stat("clearing", plan ? "not enough: summarize" : over ? "nothing to clear" : "not needed")];
  $("stats").innerHTML = [
    ...headStats(view),
    ...clearing,
    stat(plan ? "cut at" : "cut if forced", shown ? `#${cut}${shown.splitTurn ? " (split turn)" : ""}` : "nothing to cut"),
    stat("summarized", shown ? format(historyEnd) : "0"),
    stat("turn prefix", shown ? format(shown.turnPrefixMessages.length) : "0"),
    stat("estimate after", shown ? `${format(shown.estimateAfterWithoutSummary)} + summary` : format(total)),
  ].join("");

  const pairs = shown ? constrainingPairs(cut, Math.min(keepBoundary(tokens, v.keep), flight)) : [];
  const notes = pairs.slice(0, 50).map(([i, j, name]) => `<li>#${i} → #${j} (${name}): the cut cannot fall between them</li>`);
  if (shown && flight < messages.length) notes.unshift(`<li>#${flight}: tool calls in flight, kept with everything after</li>`);
  $("pairs-title").textContent = "Tool-call pairs that constrained the cut";
  $("pairs").innerHTML = notes.join("") || "<li>none</li>";
}

/** A clear plan: the old tool results it replaces by placeholders, and no summary. */
function renderClear(view) {
  const { plan, tokens, flight } = view;
  const argumentIndices = new Set(plan.argumentMessages);
  for (const r of plan.clearedResults) clearedTexts.set(r.index, r.text);
  const status = (i) => `${i >= flight ? "inflight" : clearedTexts.has(i) ? "cleared" : "kept"}${argumentIndices.has(i) ? " arguments" : ""}`;
  paintBars(tokens, status);
  $("bars").classList.remove("cut-end");
  document.body.dataset.cut = "none";
  document.body.dataset.split = "false";
  document.body.dataset.cleared = String(plan.clearedResults.length);

  $("stats").innerHTML = [
    ...headStats(view),
    stat("plan", "clear (no model call)", "cleared"),
    stat("results cleared", format(plan.clearedResults.length)),
    stat("tokens freed", format(plan.tokensFreed)),
    stat("arguments cleared", format(argumentIndices.size)),
    stat("estimate after", format(plan.estimateAfter)),
  ].join("");

  $("pairs-title").textContent = "Tool results cleared (no model call)";
  const escape = (text) => text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]);
  $("pairs").innerHTML = plan.clearedResults.slice(0, 200)
    .map((r) => `<li>#${r.index} ${escape(r.toolName ?? "tool")}, ${format(r.tokens)} tokens → ${escape(r.text)}</li>`).join("");
}

/**
 * What overflow recovery would do when the provider refuses the request and nothing can be
 * summarized: runs `ContextManager.run` with a send that refuses once, and shows the trim.
 */
async function previewTrim(view, generation) {
  const { v, tokens } = view;
  document.body.dataset.trim = "pending";
  const compactor = compactorFor(v, previewSummarizer);
  const manager = new ContextManager({ compactor, contextWindowTokens: v.window, reserveTokens: v.reserve });
  let refused = false;
  const send = async () => {
    if (refused) return null;
    refused = true;
    throw Object.assign(new Error("request too large"), { status: 413 });
  };
  let outcome;
  try {
    const ran = await manager.run({ messages, summary }, send);
    outcome = { record: ran.compactions[0], index: ran.state.messages.findIndex((m, i) => m !== messages[i]) };
  } catch (error) {
    outcome = { error };
  } finally {
    manager.free();
    compactor.free();
  }
  if (generation !== renders) return;
  const { record, index, error } = outcome;
  if (error || record?.kind !== "trim" || index < 0) {
    document.body.dataset.trim = "none";
    $("stats").insertAdjacentHTML("beforeend", stat("trim", `nothing to trim${error?.code ? ` (${error.code})` : ""}`));
    return;
  }
  bars[index].className = "bar trimmed";
  document.body.dataset.trim = String(index);
  $("stats").insertAdjacentHTML("beforeend", [
    stat("on overflow", `trim #${index}`, "trimmed"),
    stat("tokens trimmed", format(record.tokensFreed)),
    stat("estimate after trim", format(record.estimateAfter)),
  ].join(""));
  $("pairs-title").textContent = "Trimmed on overflow";
  $("pairs").innerHTML = `<li>#${index} (${format(tokens[index])} tokens): its head and tail are kept, the middle replaced by a marker</li>`;
}

function showSummarizerInput(v, plan, cleared) {
  const generator = new Compactor({ keepRecentTokens: v.keep, triggerRatio: v.ratio, summarizer: { model: "preview", generate: async () => "" } });
  const focus = $("focus").value.trim() || undefined;
  const prompts = plan ? generator.summarizerInput({ messages, summary, focus }, plan) : [];
  generator.free();
  $("summarizer-input").textContent = prompts.length
    ? prompts.map((p) => `── ${p.purpose} ──\n${p.prompt}`).join("\n\n")
    : cleared ? "(nothing would be summarized: clearing old tool results is enough)" : "(nothing would be summarized)";
}

async function runForReal() {
  const out = $("run-out");
  out.hidden = false;
  out.textContent = "compacting…";
  const v = values();
  const generate = openAICompatibleGenerator({ baseURL: $("base-url").value, apiKey: $("api-key").value });
  const compactor = compactorFor(v, { model: $("model").value, generate });
  // A clear plan is performed as planned (no model call); otherwise a summary is forced.
  const clears = document.body.dataset.kind === "clear";
  try {
    const result = await compactor.compact(clears ? { messages, summary, inputTokenBudget: Math.max(0, v.window - v.reserve) } : { messages, summary, requireReduction: true });
    const head = result.record?.kind === "clear" ? `(${result.record.clearedResults} tool results cleared, no summary)` : result.summary;
    out.textContent = `${head}\n\n${JSON.stringify({ ...result.record, summary: undefined }, null, 2)}`;
  } catch (e) {
    out.textContent = `${e.code ?? "error"}: ${e.message}`;
  } finally {
    compactor.free();
  }
}

/**
 * The summarizer a draft is made with: the endpoint of "Run it for real" when it has a base URL,
 * else a local stand-in that needs no model (the demo has none): deterministic, it lists the
 * user's requests and the tools used, so that there is a summary to read and edit.
 */
function draftSummarizer() {
  const baseURL = $("base-url").value.trim();
  if (baseURL) {
    const generate = openAICompatibleGenerator({ baseURL, apiKey: $("api-key").value });
    return { by: `model ${$("model").value} at ${baseURL}`, summarizer: { model: $("model").value, generate } };
  }
  return { by: "a local stand-in (no model): it lists requests and tools, it does not understand them", summarizer: { summarize: async (req) => localSummary(req) } };
}

/** The local stand-in's summary of canonical messages: the user's requests, the tools used. */
export function localSummary({ previousSummary, messages, turnPrefixMessages, focus }) {
  const all = [...messages, ...turnPrefixMessages];
  const text = (m) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.filter((b) => b.type === "text").map((b) => b.text).join(" ") : "");
  const requests = all.filter((m) => m.role === "user").map(text).map((t) => t.replace(/\s+/g, " ").trim()).filter(Boolean);
  const tools = new Map();
  for (const m of all) {
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (b.type === "toolCall") tools.set(b.name, (tools.get(b.name) ?? 0) + 1);
  }
  const lines = [`Local summary (no model) of ${format(all.length)} messages.`];
  if (focus) lines.push(`Focus: ${focus}`);
  if (previousSummary) lines.push(`Before them: ${previousSummary.split("\n")[0].slice(0, 200)}`);
  lines.push("", "User requests:", ...requests.slice(0, 12).map((t) => `- ${t.slice(0, 160)}`));
  if (requests.length > 12) lines.push(`- … and ${format(requests.length - 12)} more`);
  if (tools.size > 0) lines.push("", `Tools used: ${[...tools].map(([name, n]) => `${name} ×${n}`).join(", ")}`);
  return lines.join("\n");
}

/** The request a draft is made for (and committed onto): the budget's, or a forced compaction's. */
function draftRequest(forced) {
  const v = values();
  const focus = $("focus").value.trim() || undefined;
  return forced ? { messages, summary, focus, requireReduction: true } : { messages, summary, focus, inputTokenBudget: Math.max(0, v.window - v.reserve) };
}

/** "Draft summary": the summary a compaction would store, made and not applied, to edit. */
async function makeDraft() {
  drafting?.abort();
  const controller = new AbortController();
  drafting = controller;
  const { by, summarizer } = draftSummarizer();
  const compactor = compactorFor(values(), summarizer);
  setDraft("pending", `drafting with ${by}…`);
  try {
    let forced = false;
    let plan = compactor.plan(draftRequest(false));
    if (!plan) [forced, plan] = [true, compactor.plan(draftRequest(true))];
    if (!plan || plan.kind === "clear") {
      setDraft("none", plan ? "clearing old tool results is enough: there is no summary to draft" : "nothing to summarize");
      return;
    }
    const draft = await compactor.draft(draftRequest(forced), plan, { signal: controller.signal });
    if (drafting !== controller) return;
    review = { draft, forced };
    $("draft-text").value = draft.summary;
    $("draft-info").textContent = `Covers messages #0–#${draft.firstKeptIndex - (draft.firstKeptPart > 0 ? 0 : 1)}${draft.firstKeptPart > 0 ? ` (up to part ${draft.firstKeptPart})` : ""}${forced ? ", a forced compaction (the trigger does not fire)" : ""}; digest ${draft.digest}. Edit it, then commit it or discard it.`;
    document.body.dataset.draftCut = String(draft.firstKeptIndex);
    setDraft("ready", `drafted by ${by}`);
  } catch (e) {
    if (drafting === controller) setDraft("none", `${e.code ?? "error"}: ${e.message}`);
  } finally {
    if (drafting === controller) drafting = null;
    compactor.free();
  }
}

/** "Commit": the draft as edited, applied to the history (refused as `stale` if it changed). */
function commitDraft() {
  if (!review) return;
  const compactor = compactorFor(values(), previewSummarizer);
  try {
    const result = compactor.commit(draftRequest(review.forced), { ...review.draft, summary: $("draft-text").value });
    discardDraft("committed");
    setConversation(result.messages, result.summary, result.record);
    showError(null);
  } catch (e) {
    showError(e);
  } finally {
    compactor.free();
  }
}

/** "Discard": drops the draft (or stops one being made); nothing changes. */
function discardDraft(state = "none") {
  drafting?.abort();
  drafting = null;
  review = null;
  setDraft(state, "");
}

function setDraft(state, by) {
  document.body.dataset.draft = state;
  $("draft-by").textContent = by || "by a local stand-in (no model), or the endpoint below once filled in";
  $("draft-panel").hidden = state !== "ready";
  $("draft").disabled = state === "pending";
}

/** What the last commit covered (`record.receipt`), and the summary now stored. */
function showReceipt(record) {
  const receipt = record?.receipt;
  $("receipt").hidden = !receipt;
  $("receipt").innerHTML = receipt ? [
    stat("summarized", `${format(receipt.summarizedMessages)} messages`),
    stat("summarized tokens", format(receipt.summarizedTokens)),
    stat("digest of what it covers", receipt.digest ?? "—", "digest"),
  ].join("") : "";
  $("summary-details").hidden = !summary;
  $("summary-now").textContent = summary;
}

function load(text) {
  try {
    setConversation(parseConversation(text));
  } catch (e) {
    showError(e);
  }
}

for (const id of [...controls, "clearing", "never-clear", "clear-args"]) $(id).addEventListener("input", schedule);
$("input-details").addEventListener("toggle", schedule);
$("load").addEventListener("click", () => load($("paste").value));
$("file").addEventListener("change", async () => load(await $("file").files[0].text()));
$("draft").addEventListener("click", makeDraft);
$("commit").addEventListener("click", commitDraft);
$("discard").addEventListener("click", () => discardDraft());
$("focus").addEventListener("input", schedule);
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
    const cleared = clearedTexts.has(i) ? ` → ${clearedTexts.get(i)}` : "";
    $("hover").textContent = `#${i} ${m.role}: ${text.replace(/\s+/g, " ").slice(0, 140)}${cleared}`;
  }
});

load(await (await fetch("./sample.jsonl")).text());
setDraft("none", "");
document.body.dataset.ready = "true";
