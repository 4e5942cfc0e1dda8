// The README's usage example is examples/usage.mjs, verbatim, and it runs against a local stub;
// so do the examples docs/formats.md and docs/clearing.md quote.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const README_FIGURES = ["summarizing 758 messages, keeping from #763", "estimate 144335 → 21281 tokens"];

test("the README usage example is examples/usage.mjs and it runs", async () => {
  const example = readFileSync(new URL("./examples/usage.mjs", import.meta.url), "utf8");
  const readme = readFileSync(new URL("./README.md", import.meta.url), "utf8");
  assert.ok(readme.includes("```js\n" + example + "```"), "README must quote examples/usage.mjs exactly");

  const bodies = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      bodies.push(JSON.parse(body));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { content: "## Goal\nFix the tokenizer." } }], usage: { prompt_tokens: 900, completion_tokens: 12 } }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  process.env.OPENAI_BASE_URL = `http://127.0.0.1:${server.address().port}/v1`;
  process.env.OPENAI_API_KEY = "test";
  // The sample agent session of tests/fixtures: 914 messages, about 143k tokens.
  const session = readFileSync(new URL("./large-session.jsonl", import.meta.url), "utf8")
    .split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)).filter((e) => e.type === "message").map((e) => e.message)
    // Without the usage it recorded, which would make the estimates Anthropic's own counts (the
    // docs/usage.md); the figures quoted are the local estimate's.
    .map(({ usage: _, ...message }) => message);
  const logs = [];
  const log = console.log;
  console.log = (...args) => logs.push(args.join(" "));
  let state;
  try {
    const { fitToWindow } = await import("./examples/usage.mjs");
    state = await fitToWindow({ systemPrompt: "You are a coding agent.", summary: "", messages: session });
  } finally {
    console.log = log;
    server.close();
  }
  // The cut splits a turn whose beginning is short: it is quoted, one call for the history.
  assert.equal(bodies.length, 1);
  assert.equal(bodies[0].model, "gpt-4.1-mini");
  // The figures the README quotes.
  assert.deepEqual(logs, README_FIGURES);
  assert.ok(readme.includes(logs.join("\n")), "README must show the example's output");
  assert.ok(state.summary.startsWith("## Goal"));
  assert.equal(state.messages[0], session[session.length - state.messages.length]);
});

test("the docs/formats.md example is examples/formats.mjs and it runs", async () => {
  const example = readFileSync(new URL("./examples/formats.mjs", import.meta.url), "utf8");
  const doc = readFileSync(new URL("./docs/formats.md", import.meta.url), "utf8");
  assert.ok(doc.includes("```js\n" + example + "```"), "docs/formats.md must quote examples/formats.mjs exactly");
  const logs = [];
  const log = console.log;
  console.log = (...args) => logs.push(args.join(" "));
  try {
    await import("./examples/formats.mjs");
  } finally {
    console.log = log;
  }
  assert.equal(JSON.parse(logs[0]).type, "message");
});

test("the docs/clearing.md example is examples/clearing.mjs, and it clears without a model call", async () => {
  const example = readFileSync(new URL("./examples/clearing.mjs", import.meta.url), "utf8");
  const doc = readFileSync(new URL("./docs/clearing.md", import.meta.url), "utf8");
  assert.ok(doc.includes("```js\n" + example + "```"), "docs/clearing.md must quote examples/clearing.mjs exactly");
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    res.writeHead(500).end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  process.env.OPENAI_BASE_URL = `http://127.0.0.1:${server.address().port}/v1`;
  const logs = [];
  const log = console.log;
  console.log = (...args) => logs.push(args.join(" "));
  try {
    await import("./examples/clearing.mjs");
  } finally {
    console.log = log;
    server.close();
  }
  assert.equal(requests, 0, "no summary was asked for");
  assert.match(logs[0], /^cleared: \d+ results cleared, \d+ → \d+ tokens$/);
  assert.match(logs[1], /^\[Tool result cleared to save context: read of src\/file0\.ts, about [\d,]+ tokens\. Read the file again if it is needed\.\]$/);
  assert.ok(doc.includes("```text\n" + logs.join("\n") + "\n```"), "docs/clearing.md must show the example's output");
});
