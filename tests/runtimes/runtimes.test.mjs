// The same scenario in Node, Chromium pages (web and default entries), a module Web Worker,
// and workerd, all against the installed tarball; servers listen on 127.0.0.1 only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
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

// The packaging suite's static server (and Chromium launcher), from the repository.
const { launchChromium, serveDir } = await import(join(root, "tests/packaging/tools.mjs"));

test("the scenario passes in Chromium: pages (web and default entries) and a Web Worker", async () => {
  const server = await serveDir(here);
  const browser = await launchChromium(root);
  try {
    const errors = [];
    const open = async (query) => {
      const page = await browser.newPage();
      page.on("pageerror", (e) => errors.push(String(e)));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      await page.goto(`http://127.0.0.1:${server.address().port}/page.html${query}`);
      return page;
    };
    for (const query of ["?entry=web", "?entry=ready"]) {
      const page = await open(query);
      await page.waitForFunction(() => window.__result, null, { timeout: 20_000 });
      assert.deepEqual(await page.evaluate(() => window.__result), expected, query);
    }
    const page = await open("");
    await page.waitForFunction(() => window.__result && window.__worker, null, { timeout: 20_000 });
    assert.deepEqual(await page.evaluate(() => window.__result), expected, "default entry without ready()");
    assert.deepEqual(await page.evaluate(() => window.__worker), expected, "module Web Worker");
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
  // Every ES module of the package (the workerd entry reaches what it needs), and the .wasm.
  const files = (await readdir(pkg, { recursive: true })).filter((f) => f.endsWith(".js") && f !== "wasm-inline.js");
  const esm = ["workerd-worker.mjs", "scenario.mjs", ...files.map((f) => `${pkg}/${f}`)];
  const modules = [
    ...esm.map((name) => `(name = "${name}", esModule = embed "${name}")`),
    `(name = "${pkg}/context_compaction.wasm", wasm = embed "${pkg}/context_compaction.wasm")`,
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
