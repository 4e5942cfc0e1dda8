// The Worker example (examples/worker) in workerd itself: bundled with esbuild the way wrangler
// does (the `workerd` export condition, the .wasm as a module), a Durable Object with its storage
// on disk (the test restarts workerd), and a stub model server; everything on 127.0.0.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { call, conversation, result, say, user } from "./helpers.mjs";
import { openAIText, startStub } from "./stub.mjs";

const root = process.env.CC_ROOT;
const project = process.cwd();

const freePort = () => new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

async function bundle() {
  const { build } = await import(join(root, "node_modules/esbuild/lib/main.js"));
  const out = mkdtempSync(join(tmpdir(), "worker-"));
  await build({
    entryPoints: [join(root, "examples/worker/src/worker.js")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    nodePaths: [join(project, "node_modules")],
    loader: { ".wasm": "copy" },
    outdir: out,
    logLevel: "silent",
  });
  return { out, files: readdirSync(out) };
}

async function startWorker(dir, files, modelUrl) {
  const port = await freePort();
  const wasm = files.find((f) => f.endsWith(".wasm"));
  mkdirSync(join(dir, "storage"), { recursive: true });
  writeFileSync(join(dir, "config.capnp"), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    # Outbound fetches may reach this machine's loopback only (the stub model server).
    (name = "loopback", network = (allow = ["local"])),
    (name = "storage", disk = (path = "${join(dir, "storage")}", writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "${wasm}", wasm = embed "${wasm}"),
  ],
  compatibilityDate = "2025-01-01",
  globalOutbound = "loopback",
  bindings = [
    (name = "CONVERSATIONS", durableObjectNamespace = "Conversation"),
    (name = "MODEL_URL", text = "${modelUrl}"),
    (name = "KEEP_RECENT_TOKENS", text = "2000"),
    (name = "PROTECT_RECENT_TOOL_TOKENS", text = "2000"),
  ],
  durableObjectNamespaces = [ (className = "Conversation", uniqueKey = "context-compaction-test") ],
  durableObjectStorage = (localDisk = "storage"),
);
`);
  const child = spawn(join(root, "node_modules/.bin/workerd"), ["serve", "config.capnp"], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${base}/`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = () => {
    clearTimeout(killer);
    child.kill("SIGKILL");
    return exited;
  };
  return { base, stop };
}

/** Turns `from` to `to - 1` of `conversation()`: each reads a file with a tool. */
const turns = (from, to) => conversation(to).slice(4 * from);

test("the Worker example compacts conversations at the edge", async (t) => {
  const { out, files } = await bundle();
  const size = files.reduce((sum, f) => sum + gzipSync(readFileSync(join(out, f))).length, 0);
  console.log(`# worker bundle: ${files.join(" + ")}, ${size} bytes gzip`);
  // Workers' limits: 3 MB (free) / 10 MB (paid) compressed.
  assert.ok(size < 3 * 1024 * 1024);

  let summaries = 0;
  let perCompaction = 0;
  let failing = false;
  const stub = await startStub(() => {
    summaries++;
    return failing ? [400, { error: { message: "model refused" } }] : openAIText("## Goal\nWhat the user wanted.");
  });
  let worker = await startWorker(out, files, `${stub.url}/v1`);
  const post = (id, messages) => fetch(`${worker.base}/conversations/${id}/messages`, { method: "POST", body: JSON.stringify(messages) }).then((r) => r.json());
  const context = (id, window = 20000) => fetch(`${worker.base}/conversations/${id}/context?window=${window}&reserve=1000`).then((r) => r.json());
  const stored = (id) => fetch(`${worker.base}/conversations/${id}`).then((r) => r.json());
  try {
    // 200 turns: clearing their old tool results is not enough, so these summarize.
    await t.test("append a long conversation, fetch the context: compacted", async () => {
      const messages = conversation(200);
      for (let i = 0; i < messages.length; i += 100) await post("a", messages.slice(i, i + 100));
      const got = await context("a");
      perCompaction = summaries;
      assert.equal(got.compacted, true, JSON.stringify(got.error));
      assert.equal(got.reason, "compacted");
      assert.ok(got.summary.startsWith("## Goal"));
      assert.equal(got.messages[0].role, "user");
      assert.match(got.messages[0].content, /^The conversation history before this point was compacted/);
      assert.ok(got.messages.length < messages.length);
      const saved = await stored("a");
      assert.equal(saved.summary, got.summary);
      assert.equal(saved.messages.length, got.messages.length - 1);
      assert.deepEqual(saved.messages.at(-1), messages.at(-1));
      // Below the threshold now: the next request does not compact again.
      assert.equal((await context("a")).compacted, false);
    });

    await t.test("a failing summarizer leaves the stored conversation untouched", async () => {
      const messages = conversation(200);
      await post("b", messages);
      failing = true;
      const got = await context("b");
      failing = false;
      assert.equal(got.compacted, false);
      assert.equal(got.reason, "rewriteFailed");
      assert.equal(got.error.code, "summarization");
      const saved = await stored("b");
      assert.equal(saved.summary, "");
      assert.deepEqual(saved.messages, messages);
    });

    await t.test("two concurrent requests for one conversation cannot both compact it", async () => {
      await post("c", conversation(200));
      const before = summaries;
      const [first, second] = await Promise.all([context("c"), context("c")]);
      assert.deepEqual([first.compacted, second.compacted].sort(), [false, true]);
      // Exactly the model calls of one compaction (history, and the prefix of a split turn).
      assert.equal(summaries - before, perCompaction);
      assert.deepEqual(first.messages, second.messages);
    });

    // A 40k window: clearing the old results of 200 turns is enough, and rewrites 183 of them
    // (more than one 128-key write).
    const wide = 40000;
    await t.test("a tool-heavy chat is cleared first, with no model call, and stored cleared", async () => {
      const messages = conversation(200);
      await post("d", messages);
      const before = summaries;
      const got = await context("d", wide);
      assert.equal(summaries, before, "clearing calls no model");
      assert.deepEqual([got.compacted, got.reason, got.record.kind, got.summary], [true, "cleared", "clear", ""]);
      assert.ok(got.record.tokensFreed > 0 && got.record.estimateAfter < got.record.estimateBefore);
      // Nothing is dropped: the old tool results are placeholders that say what was there.
      assert.equal(got.messages.length, messages.length);
      const rewritten = got.messages.flatMap((m, i) => (JSON.stringify(m) === JSON.stringify(messages[i]) ? [] : [[i, m]]));
      assert.equal(rewritten.length, got.record.clearedResults);
      for (const [i, m] of rewritten) {
        assert.equal(m.role, "toolResult");
        assert.equal(m.toolCallId, messages[i].toolCallId);
        assert.match(m.content[0].text, /^\[Tool result cleared to save context: read of c\d+\.ts, about [\d,]+ tokens/);
      }
      // The newest tool output (PROTECT_RECENT_TOOL_TOKENS) is untouched.
      assert.deepEqual(got.messages.slice(-8), messages.slice(-8));
      assert.deepEqual(await stored("d"), { summary: "", messages: got.messages });
      assert.equal((await context("d", wide)).compacted, false);
    });

    await t.test("the cleared chat survives a restart, and grows until clearing is not enough", async () => {
      const kept = await stored("d");
      await worker.stop();
      worker = await startWorker(out, files, `${stub.url}/v1`);
      assert.deepEqual(await stored("d"), kept);
      assert.equal((await context("d", wide)).compacted, false);
      const reasons = [];
      for (let from = 200; from < 800 && !reasons.includes("compacted"); from += 4) {
        const added = turns(from, from + 4);
        await post("d", added);
        const before = summaries;
        const got = await context("d", wide);
        reasons.push(got.reason);
        assert.ok(got.reason === "compacted" ? summaries > before : summaries === before, got.reason);
        const saved = await stored("d");
        assert.equal(saved.summary, got.summary);
        assert.deepEqual(saved.messages, got.summary ? got.messages.slice(1) : got.messages);
        assert.deepEqual(saved.messages.at(-1), added.at(-1));
      }
      // Clearing again as old results pile up, then one summary when it no longer suffices.
      assert.equal(reasons.at(-1), "compacted", reasons.join());
      assert.ok(reasons.includes("cleared"), reasons.join());
    });
  } finally {
    await worker.stop();
    await stub.close();
    rmSync(out, { recursive: true, force: true });
  }
});
