// The packaging suite: the packed tarball installed into small fresh projects of each stack our
// users have, each built with its own tool and no configuration beyond its starter's, then run
// (Node, headless Chromium, `next start`, workerd). Every app works on the same conversation
// (scenario.js): pages and workers must show the plan Node shows, servers must return the
// compaction Node makes (against a stub model on 127.0.0.1). Pages plan on the plan-only module
// (`context-compaction/plan`), a page that shows `ChatPreview` (chat-page.js, built by every
// bundler) on the preview module (`context-compaction/ai-sdk-preview`), routes and workers run
// the whole one; the suite checks which module each output carries and prints what each stack
// ships (gzip) for a plan-only page, a ChatPreview page and a route. The app files are the
// recipes of the README and docs/recipes.md.
//   CC_ROOT=<repo> CC_TARBALL=<context-compaction-x.tgz> node --test tests/packaging/
// Installs are cached per app under $CC_CACHE (default ~/.cache/context-compaction/packaging),
// keyed by the app's lockfile; a missing cache is filled from the registry.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { ArrayState, idle, installCached, launchChromium, modelStub, run, serveDir, spawnServer, waitForHttp } from "./tools.mjs";
import { conversation } from "./scenario.js";
import { reachedFiles } from "../js/package-files.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = process.env.CC_ROOT ?? join(here, "../..");
const tarball = process.env.CC_TARBALL;
const cache = process.env.CC_CACHE ?? join(homedir(), ".cache/context-compaction/packaging");
if (!tarball) throw new Error("set CC_TARBALL to the packed package (scripts/test-packaging does)");

/** Each module as a file and a stretch from the middle of its inlined copy (wasm-inline.js, plan-wasm-inline.js, preview-wasm-inline.js). */
function moduleOf(name, inline) {
  const inlined = /"([A-Za-z0-9+/=]{50000,})"/.exec(readFileSync(join(root, "dist", inline), "utf8"))[1];
  return { name, wasm: readFileSync(join(root, "dist", `${name}.wasm`)), marker: inlined.slice(20_000, 20_064) };
}
const modules = {
  whole: moduleOf("context_compaction", "wasm-inline.js"),
  plan: moduleOf("context_compaction_plan", "plan-wasm-inline.js"),
  preview: moduleOf("context_compaction_preview", "preview-wasm-inline.js"),
};
/** The module each kind of output must carry: a page that plans, a ChatPreview page, a route (or worker). */
const moduleFor = { page: "plan", chat: "preview", route: "whole" };
/** Per stack, what it ships (gzip bytes) for a plan-only page, a ChatPreview page and a route (or worker), with notes. */
const sizes = new Map();
let reference;
/** The line chat-page.js shows: what the package's ChatPreview plans in Node. */
let chatReference;
let chromium;
let model;
let modelEnv;

before(async () => {
  chromium = await launchChromium(root);
  model = await modelStub();
  modelEnv = { OPENAI_BASE_URL: `http://127.0.0.1:${model.address().port}/v1`, OPENAI_API_KEY: "test" };
  const { ChatPreview } = await import(pathToFileURL(join(root, "dist/ai-sdk-preview.js")).href);
  const { chat, chatOptions, planLine } = await import(pathToFileURL(join(here, "chat-scenario.js")).href);
  const preview = new ChatPreview(chatOptions);
  preview.update(chat());
  chatReference = planLine(preview.plan());
  assert.match(chatReference, /^Would summarize \d+ messages/, "the chat scenario compacts");
});
after(async () => {
  await chromium?.close();
  model?.close();
  const kb = (bytes) => (bytes === undefined ? "—" : `${(bytes / 1024).toFixed(1)} KB`);
  console.log("\n| stack | plan-only page or worker (gzip) | ChatPreview page (gzip) | route or worker, whole module (gzip) | what is counted |\n|---|---:|---:|---:|---|");
  for (const [stack, { page, chat, route, notes }] of sizes) console.log(`| ${stack} | ${kb(page)} | ${kb(chat)} | ${kb(route)} | ${notes.join("; ")} |`);
});

// The page recipe is one file for every bundler (apps/vite, quoted in the README): the other
// apps get copies. esbuild and Rollup do not bundle workers, so theirs stops before the worker.
const withoutWorker = (text) => {
  const at = text.indexOf("\nconst worker = new Worker(");
  assert.ok(at > 0, "apps/vite/src/main.js starts a worker");
  return text.slice(0, at + 1).trimEnd() + "\n";
};
const sharedFiles = {
  vite6: [["vite/index.html", "index.html"], ["vite/src/main.js", "src/main.js"], ["vite/src/worker.js", "src/worker.js"]],
  webpack: [["vite/src/main.js", "src/index.js"], ["vite/src/worker.js", "src/worker.js"]],
  esbuild: [["vite/src/main.js", "src/main.js", withoutWorker]],
  rollup: [["vite/src/main.js", "src/main.js", withoutWorker]],
  // The AI SDK chat route the round trips drive (ai-sdk.test.mjs), in the Next.js app.
  next: [["ai-sdk/app/api/chat/route.ts", "app/api/chat/route.ts"], ["ai-sdk/app/store.ts", "app/store.ts"], ["ai-sdk/app/compaction.ts", "app/compaction.ts"]],
};

/** A fresh copy of `apps/<app>` with its dependencies (cached) and the tarball installed. */
async function prepare(app, scenarioDir = "src") {
  const source = join(here, "apps", app);
  const dir = join(cache, app);
  await installCached(source, dir);
  for (const [from, to, change = (text) => text] of sharedFiles[app] ?? []) {
    mkdirSync(dirname(join(dir, to)), { recursive: true });
    writeFileSync(join(dir, to), change(readFileSync(join(here, "apps", from), "utf8")));
  }
  cpSync(join(here, "scenario.js"), join(dir, scenarioDir, "conversation.js"));
  await run("npm", ["install", "--no-save", "--prefer-offline", "--no-audit", "--no-fund", tarball], { cwd: dir });
  return dir;
}

/** Files under `dir` that carry the package: a module (inlined or as a file) or its code. */
function shipped(dir) {
  const found = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(m?js|wasm)$/.test(name)) {
        const bytes = readFileSync(path);
        const carries = Object.fromEntries(Object.entries(modules).map(([kind, m]) => [kind, bytes.includes(m.marker) || bytes.equals(m.wasm)]));
        if (Object.values(carries).some(Boolean) || bytes.includes("context-compaction is not loaded yet")) found.push({ path, carries, gzip: gzipSync(bytes).length });
      }
    }
  };
  walk(dir);
  return found;
}

/**
 * Records what an output ships (its files `only` keeps) as the stack's plan-only `page`, its
 * ChatPreview page (`chat`) or its `route` (or worker), and checks that it carries its module
 * exactly once (`moduleFor`: the plan-only one, the preview one, the whole one) and no other.
 */
function measure(stack, kind, dir, { only = () => true, note } = {}) {
  const files = shipped(dir).filter((f) => only(f.path));
  const want = moduleFor[kind];
  const copies = files.filter((f) => f.carries[want]).length;
  assert.equal(copies, 1, `${stack}: the ${want} module ${copies === 0 ? "is missing" : `ships ${copies} times`} in ${dir}`);
  for (const other of Object.keys(modules).filter((m) => m !== want)) {
    const wrong = files.filter((f) => f.carries[other]).map((f) => f.path);
    assert.deepEqual(wrong, [], `${stack}: a ${kind} ships the ${other} module`);
  }
  const entry = sizes.get(stack) ?? { notes: [] };
  entry[kind] = files.reduce((sum, f) => sum + f.gzip, 0);
  if (note) entry.notes.push(note);
  sizes.set(stack, entry);
}

/** Whether a file of the installed package `dir` is one Node loads for `entries` (their static imports and requires). */
function loadedBy(dir, entries) {
  const seen = reachedFiles(dir, entries);
  return (path) => seen.has(path.slice(dir.length + 1));
}

/** The text each selector shows once the page has filled it. */
async function pageTexts(url, selectors = ["#plan"]) {
  const page = await chromium.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // Failed loads are reported with their URL; a browser's own favicon request is no error.
  page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && errors.push(m.text()));
  page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && errors.push(`${r.status()} ${r.url()}`));
  try {
    // A dev server compiles a page on its first request: on a loaded 2-core machine `next dev`
    // took over 30 s (Playwright's default) for `/`.
    await page.goto(url, { timeout: 120_000 });
    const out = [];
    for (const selector of selectors) {
      await filled(page, selector, 30_000);
      const text = await page.textContent(selector);
      assert.ok(text, `${url}: ${selector} stayed empty; page errors: ${errors.join("\n") || "none"}`);
      out.push(text);
    }
    assert.deepEqual(errors, []);
    return out;
  } finally {
    await page.close();
  }
}

/**
 * Waits until `selector` shows text, up to `ms`. A dev server may reload the page (Vite does
 * when it finds a dependency late); the wait starts again on the new page.
 */
async function filled(page, selector, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      await page.waitForFunction((s) => document.querySelector(s)?.textContent, selector, { timeout: Math.max(1, end - Date.now()) });
      return;
    } catch (error) {
      if (!/context was destroyed|navigat/i.test(String(error))) return;
      await page.waitForLoadState("load").catch(() => {});
    }
  }
}

async function servedTexts(dir, path, selectors) {
  const server = await serveDir(dir);
  try {
    return await pageTexts(`http://127.0.0.1:${server.address().port}/${path}`, selectors);
  } finally {
    server.close();
  }
}

/**
 * The ChatPreview page (chat-page.js and its chat) built in app `dir` by `build(entry, out)`
 * into `dir/dist-chat` (a page `script` the suite writes, unless the bundler writes its own
 * index.html): in Chromium it must show what ChatPreview plans in Node, and it must carry the
 * preview module alone.
 */
async function chatPage(stack, dir, build, { script, module = false, note } = {}) {
  const source = join(dir, "chat");
  const out = join(dir, "dist-chat");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(source, { recursive: true });
  cpSync(join(here, "chat-page.js"), join(source, "main.js"));
  cpSync(join(here, "chat-scenario.js"), join(source, "chat-conversation.js"));
  const page = (src, type) => `<!doctype html>\n<meta charset="utf-8">\n<title>ChatPreview</title>\n<pre id="chat"></pre>\n<script ${type ? 'type="module" ' : ""}src="${src}"></script>\n`;
  // Vite bundles the module scripts of the page it builds.
  writeFileSync(join(source, "index.html"), page("./main.js", true));
  await build("chat/main.js", out);
  if (script) writeFileSync(join(out, "index.html"), page(script, module));
  assert.deepEqual(await servedTexts(out, "index.html", ["#chat"]), [chatReference], `${stack}: the ChatPreview page`);
  measure(stack, "chat", out, { note });
}

test("the recipes of the README and docs/recipes.md are the apps this suite builds, verbatim", () => {
  const quoted = {
    "README.md": ["vite/src/main.js", "vite/src/worker.js", "worker/src/index.js", "node/main.mjs", "ai-sdk/app/compaction.ts", "ai-sdk/app/api/chat/route.ts", "ai-sdk/app/store.ts", "next/app/chat/compaction-preview.tsx"],
    "docs/recipes.md": ["ai-sdk/route-ai5-ai6.ts", "ai-sdk/agent.ts", "ai-sdk/agent-route.ts", "next/app/api/compact/route.ts", "next/app/api/edge/route.ts", "next/app/preview.tsx", "next/app/chat/page.tsx", "worker-chat/src/index.ts", "worker-chat/wrangler.jsonc"],
  };
  for (const [doc, recipes] of Object.entries(quoted)) {
    const text = readFileSync(join(root, doc), "utf8");
    for (const recipe of recipes) {
      const app = readFileSync(join(here, "apps", recipe), "utf8");
      assert.ok(text.includes("\n" + app + "```"), `${doc} must quote tests/packaging/apps/${recipe} exactly`);
    }
  }
});

test("Node: ES module and CommonJS", async () => {
  const dir = await prepare("node", ".");
  const [line, record] = (await run("node", ["main.mjs"], { cwd: dir, env: modelEnv })).trim().split("\n");
  reference = { line, record: JSON.parse(record) };
  assert.match(line, /^Summarize \d+ messages, keep from #\d+: \d+ → \d+ tokens before the summary$/);
  assert.equal(reference.record.firstKeptIndex, 121, line);
  assert.equal((await run("node", ["main.cjs"], { cwd: dir })).trim(), line);
  const installed = join(dir, "node_modules/context-compaction");
  const note = "what Node loads from node_modules (ESM and CJS)";
  measure("Node", "page", installed, { only: loadedBy(installed, ["plan.js", "plan.cjs"]), note });
  measure("Node", "route", installed, { only: loadedBy(installed, ["index.js", "index.cjs"]) });
  measure("Node", "chat", installed, { only: loadedBy(installed, ["ai-sdk-preview.js", "ai-sdk-preview.cjs"]) });
});

test("esbuild: a page bundle (iife)", async () => {
  const dir = await prepare("esbuild");
  await run("npm", ["run", "build"], { cwd: dir });
  assert.deepEqual(await servedTexts(dir, "index.html"), [reference.line]);
  measure("esbuild", "page", join(dir, "dist"));
  await chatPage("esbuild", dir, (entry, out) => run("npx", ["esbuild", entry, "--bundle", "--minify", `--outfile=${out}/main.js`], { cwd: dir }), { script: "main.js" });
});

test("Rollup 4: a page bundle (ES module)", async () => {
  const dir = await prepare("rollup");
  await run("npm", ["run", "build"], { cwd: dir });
  assert.deepEqual(await servedTexts(dir, "index.html"), [reference.line]);
  measure("Rollup 4", "page", join(dir, "dist"));
  await chatPage("Rollup 4", dir, (entry, out) => run("npx", ["rollup", entry, "--dir", out, "--format", "es", "--plugin", "node-resolve={browser: true}"], { cwd: dir }), { script: "main.js", module: true });
});

test("webpack 5: a page and a module Web Worker", async () => {
  const dir = await prepare("webpack");
  await run("npm", ["run", "build"], { cwd: dir });
  assert.deepEqual(await servedTexts(dir, "index.html", ["#plan", "#worker"]), [reference.line, reference.line]);
  measure("webpack 5", "page", join(dir, "dist"), { only: (path) => path.endsWith("main.js"), note: "the worker's chunk carries its own copy" });
  await chatPage("webpack 5", dir, (entry, out) => run("npx", ["webpack", "--mode", "production", "--entry", `./${entry}`, "--output-path", out], { cwd: dir }), { script: "main.js" });
});

for (const [app, name] of [["vite", "Vite 8"], ["vite6", "Vite 6"]]) {
  test(`${name}: build and dev server, a page and a module Web Worker`, async () => {
    const dir = await prepare(app);
    await run("npm", ["run", "build"], { cwd: dir });
    assert.deepEqual(await servedTexts(join(dir, "dist"), "index.html", ["#plan", "#worker"]), [reference.line, reference.line]);
    const port = await freePort();
    const dev = spawnServer("npx", ["vite", "--host", "127.0.0.1", "--port", String(port), "--strictPort"], { cwd: dir });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/`, dev);
      assert.deepEqual(await pageTexts(`http://127.0.0.1:${port}/`, ["#plan", "#worker"]), [reference.line, reference.line]);
    } finally {
      dev.stop();
    }
    measure(name, "page", join(dir, "dist"), { only: (path) => !/worker/.test(path), note: "the worker's bundle carries its own copy" });
    // Vite builds the page's own index.html (chat/index.html) into dist-chat.
    await chatPage(name, dir, (entry, out) => run("npx", ["vite", "build", "chat", "--outDir", out, "--emptyOutDir"], { cwd: dir }));
  });
}

/** POSTs the scenario's conversation to a compaction endpoint; its record must be Node's. */
async function compactsLikeNode(url, what) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: conversation() }) });
  const body = await response.text();
  assert.equal(response.status, 200, `${what}: ${body.slice(0, 2000)}`);
  const result = JSON.parse(body);
  assert.deepEqual(result.record, reference.record, what);
  assert.equal(result.messages.length, conversation().length - reference.record.firstKeptIndex, what);
}

/** The page's preview and both routes of a running Next.js server; the useChat page and its route. */
async function nextAppWorks(port) {
  await compactsLikeNode(`http://127.0.0.1:${port}/api/compact`, "Node route");
  await compactsLikeNode(`http://127.0.0.1:${port}/api/edge`, "edge route");
  // The plan entry's edge-light condition: an edge route that only plans.
  const planned = await fetch(`http://127.0.0.1:${port}/api/plan-edge`, { method: "POST", body: JSON.stringify({ messages: conversation() }) });
  assert.equal(await planned.text(), reference.line, "the planning edge route");
  assert.deepEqual(await pageTexts(`http://127.0.0.1:${port}/`), [reference.line]);
  await chatPageWorks(`http://127.0.0.1:${port}/chat`);
  await chatRouteAnswers(`http://127.0.0.1:${port}/api/chat-edge`);
}

/** One useChat request to a chat route: the mock model's answer streams back. */
async function chatRouteAnswers(url) {
  const messages = [{ id: "u1", role: "user", parts: [{ type: "text", text: "Hello" }] }];
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "chat-1", messages }) });
  const body = await response.text();
  assert.equal(response.status, 200, `${url}: ${body.slice(0, 2000)}`);
  assert.match(body, /"delta":"Hello from the mock model\."/, url);
}

/** The useChat page: its preview before and after one turn answered by the route (mock model). */
async function chatPageWorks(url) {
  const page = await chromium.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    // `next dev` compiles the page on this first request (20 s and more on a loaded machine).
    await page.goto(url, { timeout: 120_000 });
    const preview = page.locator("#preview");
    await preview.filter({ hasText: "Fits: nothing to compact (0 messages)" }).waitFor({ timeout: 60_000 });
    // The preview reads the chat's state from the route (its GET) once each response is complete.
    const stateRead = page.waitForResponse((response) => response.request().method() === "GET" && response.url().includes("/api/chat?id="), { timeout: 60_000 });
    await page.fill("#input", "Hello");
    await page.press("#input", "Enter");
    await page.locator(".message", { hasText: "assistant: Hello from the mock model." }).waitFor({ timeout: 60_000 });
    await preview.filter({ hasText: "Fits: nothing to compact (2 messages)" }).waitFor({ timeout: 10_000 });
    assert.equal((await stateRead).status(), 200, "the route's GET served the chat's state");
    assert.deepEqual(errors, []);
  } catch (error) {
    throw new Error(`${url}: ${error.message}; page errors: ${errors.join("\n") || "none"}`);
  } finally {
    await page.close();
  }
}

test("Next.js 16 (Turbopack): client component, Node route, edge route; next build and start, next dev", async () => {
  const dir = await prepare("next", "app");
  const env = { NEXT_TELEMETRY_DISABLED: "1", ...modelEnv };
  await run("npx", ["next", "build"], { cwd: dir, env });
  // The static files hold both pages' previews: each is counted without the other's module.
  const without = (module) => (path) => !readFileSync(path).includes(modules[module].marker);
  measure("Next.js 16", "page", join(dir, ".next/static"), { only: without("preview"), note: "page: the client's static files but the ChatPreview chunk" });
  measure("Next.js 16", "chat", join(dir, ".next/static"), { only: without("plan"), note: "ChatPreview: the client's static files but the plan-only page's chunk" });
  measure("Next.js 16", "route", join(dir, ".next/server/chunks"), { only: (path) => !path.includes("/ssr/"), note: "route: the Node routes' server chunks" });
  // The edge routes' chunks hold the package's code for both; each module is a .wasm file of its own.
  const planOnly = (path) => readFileSync(path).equals(modules.plan.wasm);
  measure("Next.js 16 (edge)", "route", join(dir, ".next/server/edge"), { only: (path) => !planOnly(path), note: "route: the edge routes' chunks and whole module" });
  measure("Next.js 16 (edge)", "page", join(dir, ".next/server/edge"), { only: (path) => !readFileSync(path).equals(modules.whole.wasm), note: "plan-only: the edge chunks and the plan-only module (an edge route that only plans)" });
  for (const command of ["start", "dev"]) {
    const port = await freePort();
    const server = spawnServer("npx", ["next", command, "-H", "127.0.0.1", "-p", String(port)], { cwd: dir, env });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/api/compact`, server);
      await nextAppWorks(port);
    } finally {
      server.stop();
    }
  }
});

/**
 * Bundles `dir` (or its `script`) with wrangler (dry run) into `dir/out` (or `outdir`) and writes a workerd config there serving it
 * on 127.0.0.1:`port`, with `bindings` and `extra` fields of the worker and `services` beside it.
 */
async function wranglerBuild(dir, port, { bindings = [], extra = "", services = [], script, outdir = "out" } = {}) {
  await run("npx", ["wrangler", "deploy", "--dry-run", "--outdir", outdir, ...(script ? [script] : [])], { cwd: dir, env: { CI: "1", WRANGLER_SEND_METRICS: "false" } });
  const out = join(dir, outdir);
  const modules = readdirSync(out).filter((f) => /\.(js|wasm)$/.test(f));
  // The bundle of the worker's main module (named after it with a `script`).
  const main = modules.includes("index.js") ? "index.js" : modules.find((f) => f.endsWith(".js"));
  writeFileSync(join(out, "config.capnp"), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ ${["(name = \"main\", worker = .worker)", "(name = \"local\", network = (allow = [\"private\", \"local\"]))", ...services].join(", ")} ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${[main, ...modules.filter((f) => f !== main)]
    .map((f) => `(name = "${f}", ${f.endsWith(".wasm") ? "wasm" : "esModule"} = embed "${f}")`)
    .join(", ")} ],
  compatibilityDate = "2025-11-01",
  bindings = [ ${bindings.join(", ")} ],
  globalOutbound = "local",${extra}
);
`);
  return out;
}

/** workerd serving the config in `out`, answering on `port`. */
async function startWorkerd(dir, out, port) {
  const workerd = spawnServer(join(dir, "node_modules/.bin/workerd"), ["serve", "--experimental", "config.capnp"], { cwd: out });
  await waitForHttp(`http://127.0.0.1:${port}/`, workerd);
  return workerd;
}

test("Cloudflare Worker: bundled by wrangler (dry run), run in workerd", async () => {
  const dir = await prepare("worker");
  const port = await freePort();
  const bindings = [`(name = "OPENAI_BASE_URL", text = "${modelEnv.OPENAI_BASE_URL}")`, '(name = "OPENAI_API_KEY", text = "test")'];
  const out = await wranglerBuild(dir, port, { bindings });
  const workerd = await startWorkerd(dir, out, port);
  try {
    await compactsLikeNode(`http://127.0.0.1:${port}/`, "Worker");
  } finally {
    workerd.stop();
  }
  measure("Cloudflare Worker (wrangler)", "route", out);
  // A Worker that only plans: the plan entry's workerd condition, the plan-only module.
  const planPort = await freePort();
  const planOut = await wranglerBuild(dir, planPort, { script: "src/plan.js", outdir: "out-plan" });
  const planner = await startWorkerd(dir, planOut, planPort);
  try {
    const response = await fetch(`http://127.0.0.1:${planPort}/`, { method: "POST", body: JSON.stringify(conversation()) });
    assert.equal(await response.text(), reference.line);
  } finally {
    planner.stop();
  }
  measure("Cloudflare Worker (wrangler)", "page", planOut, { note: "plan-only: a Worker that only plans" });
});

test("Cloudflare Worker: the AI SDK chat route, its compaction state in a Durable Object", async () => {
  const dir = await prepare("worker-chat");
  // Typed as a user types a Worker: `wrangler types` for Env and the runtime, then tsc (strict).
  await run("npm", ["run", "check"], { cwd: dir, env: { CI: "1", WRANGLER_SEND_METRICS: "false" } });
  const storage = join(dir, "durable-objects");
  mkdirSync(storage, { recursive: true });
  const port = await freePort();
  const out = await wranglerBuild(dir, port, {
    bindings: ['(name = "CHAT_STATE", durableObjectNamespace = "ChatState")'],
    // On disk, so that the states outlive the workerd process the test restarts.
    extra: `\n  durableObjectNamespaces = [ (className = "ChatState", uniqueKey = "worker-chat-app-ChatState", enableSql = true) ],\n  durableObjectStorage = (localDisk = "chat-states"),`,
    services: [`(name = "chat-states", disk = (path = "${storage}", writable = true))`],
  });
  writeFileSync(join(dir, "load.mjs"), "export const load = (name) => import(name);\n");
  const { load } = await import(pathToFileURL(join(dir, "load.mjs")));
  const ai = await load("ai");
  const chat = new (class extends ai.AbstractChat {})({ id: "chat-1", state: new ArrayState(), transport: new ai.DefaultChatTransport({ api: `http://127.0.0.1:${port}/` }) });
  const reports = [];
  let workerd = await startWorkerd(dir, out, port);
  let restartAt;
  try {
    for (let turn = 0; turn < CHAT_TURNS; turn++) {
      // A new process (a new isolate) right after a compaction, when the next request has no
      // reason to summarize: what the route knows of the chat now comes from storage alone.
      if (restartAt === undefined && turn >= CHAT_RESTART && compactedLast(reports)) {
        restartAt = turn;
        workerd = await restart(workerd, () => startWorkerd(dir, out, port));
      }
      await chat.sendMessage({ text: `Turn ${turn}: fix the failing step in module ${turn} and run the tests.` });
      await idle(chat);
      const text = chat.messages.at(-1).parts.map((part) => part.text ?? "").join("");
      const report = /^Report (\{.*\})$/s.exec(text);
      assert.ok(report, `turn ${turn}: the model's answer is ${text.slice(0, 300)}`);
      reports.push(JSON.parse(report[1]));
    }
  } finally {
    workerd.stop();
  }
  checkWorkerChat(reports, restartAt);
  measure("Cloudflare Worker, AI SDK chat route (wrangler)", "route", out, { note: "the whole bundle: `ai` included" });
});

const CHAT_TURNS = 26;
/** From which turn on the Worker is restarted (after the first compaction from there). */
const CHAT_RESTART = 8;

/** Whether the latest turn's request made a summarizer call. */
function compactedLast(reports) {
  const [last, prior] = [reports.at(-1), reports.at(-2)];
  return last !== undefined && last.summaries > (prior?.isolate === last.isolate ? prior.summaries : 0);
}

/** Stops workerd as a host would (SIGTERM, then its exit) and starts it again. */
async function restart(workerd, start) {
  const exited = new Promise((resolve) => workerd.once("exit", resolve));
  process.kill(-workerd.pid, "SIGTERM");
  await exited;
  workerd.stop();
  return start();
}

/**
 * What the mock model reported of every prompt: every tool call with its result, the prompt
 * within the window, the latest summary first once there is one, a summary made only when the
 * chat outgrew the stored one (never again for turns already summarized, nor after the restart).
 */
function checkWorkerChat(reports, restartAt) {
  const covered = new Map();
  let before = { ids: [], isolate: undefined, summaries: 0 };
  for (const [turn, report] of reports.entries()) {
    const where = `turn ${turn}: ${JSON.stringify(report)}`;
    assert.equal(report.turn, turn, where);
    assert.equal(report.paired, true, `${where}: a tool call without its result`);
    assert.ok(report.chars < 128_000 * 4, `${where}: the prompt outgrew the window`);
    const summaries = [...report.first.matchAll(/Summary (\w+#\d+) covers turns \[([\d,]*)\]/g)];
    const ids = summaries.map((m) => m[1]);
    const made = report.isolate === before.isolate ? report.summaries - before.summaries : report.summaries;
    if (made === 0) assert.deepEqual(ids, before.ids, `${where}: the summary changed without a summarizer call`);
    else assert.notDeepEqual(ids, before.ids, `${where}: ${made} summarizer calls, and the model was not sent their summary`);
    if (before.ids.length) assert.ok(ids.length > 0, `${where}: the summary is not the first message`);
    for (const [, id, turns] of summaries) {
      for (const covers of turns.split(",").filter(Boolean)) {
        const by = covered.get(covers) ?? id;
        assert.equal(by, id, `${where}: turn ${covers} summarized by ${by} and again by ${id}`);
        covered.set(covers, id);
      }
    }
    before = { ids, isolate: report.isolate, summaries: report.summaries };
  }
  assert.ok(restartAt !== undefined, `no compaction from turn ${CHAT_RESTART} on to restart after`);
  const restarted = reports[restartAt];
  assert.notEqual(restarted.isolate, reports[restartAt - 1].isolate, "workerd restarted");
  assert.match(reports[restartAt - 1].first, /<summary>/, "the chat was compacted before the restart");
  assert.equal(restarted.summaries, 0, "the first request after the restart re-summarized: the state did not persist");
  const compactions = new Set(reports.map((r) => r.first).filter((first) => first.includes("<summary>"))).size;
  assert.ok(compactions >= 2, `${compactions} compactions in ${CHAT_TURNS} turns`);
  assert.ok(covered.has("0"), "turn 0 was never summarized");
}

test("TypeScript 5.9 and 7: strict consumers (node16, nodenext, bundler, strictest, a .cts) without skipLibCheck", async () => {
  const dir = await prepare("types", ".");
  for (const tsc of ["tsc", "tsgo"]) {
    for (const config of ["node16", "nodenext", "bundler", "strictest", "disposable"]) {
      await run(join(dir, "node_modules/.bin", tsc), ["-p", `tsconfig.${config}.json`], { cwd: dir });
    }
    // A wrong-format message fails with an error that names it (not "not assignable to never").
    const wrong = spawnSync(join(dir, "node_modules/.bin", tsc), ["-p", "tsconfig.wrong-format.json"], { cwd: dir, encoding: "utf8" });
    assert.notEqual(wrong.status, 0, `${tsc}: wrong-format.ts compiled`);
    const errors = wrong.stdout.split("\n").filter((line) => line.includes("error TS"));
    assert.equal(errors.length, 2, wrong.stdout);
    assert.match(errors[0], /Type '"tool"' is not assignable to type '"(user|assistant|toolResult)"/);
    assert.match(errors[1], /Type '"toolCall"' is not assignable to type '.*"tool_use"/);
    assert.doesNotMatch(wrong.stdout, /never/);
  }
  const offered = JSON.parse(await run("node", ["completions.mjs"], { cwd: dir }));
  assert.deepEqual(offered, ["compaction", "redacted_thinking", "text", "thinking", "tool_use"]);
});

function freePort() {
  return import("node:net").then(
    ({ createServer }) =>
      new Promise((resolve) => {
        const probe = createServer().listen(0, "127.0.0.1", () => {
          const { port } = probe.address();
          probe.close(() => resolve(port));
        });
      }),
  );
}
