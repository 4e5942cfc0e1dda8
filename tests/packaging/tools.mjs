// Process, server and browser helpers of the packaging suite. Servers listen on 127.0.0.1 only;
// every process started here is stopped by the test that started it (or by its timeout).
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";

/**
 * Runs a command to completion and resolves to its output; its output on failure is in the
 * rejection. Asynchronous, so servers in this process (the model stub) keep answering.
 */
export function run(command, args, { cwd, env, timeoutMs = 600_000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, encoding: "utf8", maxBuffer: 64 << 20, timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(" ")} (in ${cwd}) failed:\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** A long-running process (a server); `stop()` ends it and its children (its own group). */
export function spawnServer(command, args, { cwd, env, timeoutMs = 120_000 } = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const kill = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  const timer = setTimeout(kill, timeoutMs);
  child.stop = () => {
    clearTimeout(timer);
    kill();
  };
  child.output = () => output;
  return child;
}

/** Waits until `url` answers (any status), or fails with the server's output if it exits. */
export async function waitForHttp(url, child, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${child.output()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`${url} did not answer in ${timeoutMs} ms:\n${child.output()}`);
}

const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".css": "text/css" };

/** Serves `dir` statically on 127.0.0.1 (a random port). */
export async function serveDir(dir) {
  const server = createServer(async (req, res) => {
    const path = normalize(join(dir, decodeURIComponent(new URL(req.url, "http://x").pathname)));
    if (!path.startsWith(dir)) return res.writeHead(403).end();
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

/** Debian's Chromium, headless, through the repository's playwright-core. */
export async function launchChromium(root) {
  const { chromium } = await import(join(root, "node_modules/playwright-core/index.mjs"));
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** A stub of an OpenAI-compatible model on 127.0.0.1: every summary request gets the same answer. */
export async function modelStub() {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { content: "## Goal\nFix the failing step in every module." } }], usage: { prompt_tokens: 900, completion_tokens: 12 } }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return server;
}

/**
 * A fresh copy of the app `source` in `dir`, its dependencies installed from its lockfile once
 * (kept while the lockfile is unchanged) and everything else copied anew.
 */
export async function installCached(source, dir) {
  const lock = join(source, "package-lock.json");
  const want = existsSync(lock) ? createHash("sha256").update(readFileSync(lock)).digest("hex") : "no-lock";
  const stamp = join(dir, ".installed");
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== want) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    cpSync(join(source, "package.json"), join(dir, "package.json"));
    if (existsSync(lock)) {
      cpSync(lock, join(dir, "package-lock.json"));
      await run("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: dir });
    }
    writeFileSync(stamp, want);
  }
  // Build output goes too (`.next` included): Turbopack's cache takes an installed package of
  // the same version for unchanged, so a rebuilt tarball was served from a former build (a page
  // whose glue and module came from two builds never loaded).
  for (const name of readdirSync(dir)) {
    if (!["node_modules", "package-lock.json", ".installed"].includes(name)) rmSync(join(dir, name), { recursive: true, force: true });
  }
  cpSync(source, dir, { recursive: true, filter: (path) => !path.includes("node_modules") });
}

/** What `useChat` keeps: the AI SDK's ChatState over a plain array (for its `AbstractChat`). */
export class ArrayState {
  status = "ready";
  error = undefined;
  messages = [];
  pushMessage = (message) => (this.messages = [...this.messages, message]);
  popMessage = () => (this.messages = this.messages.slice(0, -1));
  replaceMessage = (index, message) => (this.messages = this.messages.map((m, i) => (i === index ? message : m)));
  snapshot = (value) => structuredClone(value);
}

/** Resolves once an `AbstractChat` has finished its request; rejects with its error. */
export async function idle(chat) {
  while (chat.status === "submitted" || chat.status === "streaming") await new Promise((r) => setTimeout(r, 1));
  if (chat.error) throw chat.error;
}
