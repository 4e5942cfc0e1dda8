// The same scenario in Node, a Chromium page (web and browser entries), a module Web Worker,
// and workerd, all against the installed tarball; servers listen on 127.0.0.1 only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join } from "node:path";
import { run } from "./scenario.mjs";
import * as api from "context-compaction";

const here = process.cwd();
const root = process.env.CC_ROOT;
const expected = await run(api);

test("the scenario passes in Node", () => {
  assert.equal(expected.sameObjects, true);
  assert.equal(typeof expected.longCut, "number", String(expected.longCut));
  assert.equal(expected.attempts, 2);
  assert.equal(expected.configCode, "invalid_config");
  assert.equal(expected.abortedCode, "aborted");
  assert.equal(expected.abortedQuickly, true);
  assert.ok(expected.summary.startsWith("SUMMARY"));
});

const types = { ".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

async function serve() {
  const server = createServer(async (req, res) => {
    const path = join(here, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!path.startsWith(here)) return res.writeHead(403).end();
    try {
      const body = await readFile(path);
      res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return server;
}

test("the scenario passes in Chromium: page (web and browser entries) and a Web Worker", async () => {
  const { chromium } = await import(join(root, "node_modules/playwright-core/index.mjs"));
  const server = await serve();
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(`http://127.0.0.1:${server.address().port}/page.html`);
    await page.waitForFunction(() => window.__web && window.__browser && window.__worker, null, { timeout: 20_000 });
    const results = await page.evaluate(() => ({ web: window.__web, browser: window.__browser, worker: window.__worker }));
    for (const [entry, result] of Object.entries(results)) assert.deepEqual(result, expected, entry);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});

test("the scenario passes in workerd", async () => {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const pkg = "node_modules/context-compaction";
  const esm = ["workerd-worker.mjs", "scenario.mjs", ...["workerd", "api", "error", "manager", "generators", "walk", "host", "web/context_compaction"].map((f) => `${pkg}/${f}.js`)];
  const modules = [
    ...esm.map((name) => `(name = "${name}", esModule = embed "${name}")`),
    `(name = "${pkg}/web/context_compaction_bg.wasm", wasm = embed "${pkg}/web/context_compaction_bg.wasm")`,
  ];
  await writeFile("config.capnp", `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${modules.join(",\n    ")} ],
  compatibilityDate = "2025-01-01",
);
`);
  const child = spawn(join(root, "node_modules/.bin/workerd"), ["serve", "config.capnp"], { stdio: ["ignore", "inherit", "inherit"] });
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    let result;
    for (let i = 0; i < 100 && !result; i++) {
      try {
        result = await (await fetch(`http://127.0.0.1:${port}/`)).json();
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.deepEqual(result, expected);
  } finally {
    clearTimeout(killer);
    child.kill("SIGKILL");
  }
});
