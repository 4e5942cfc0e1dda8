// The chat-loop section of docs/api.md is examples/chat-loop.mjs, verbatim; this drives it against a
// local stub: a long conversation is maintained, it goes on, then an overflow is recovered.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { conversation } from "./helpers.mjs";
import { openAIOverflow, openAIText, startStub } from "./stub.mjs";

test("the docs/api.md chat loop maintains a long conversation and recovers from an overflow", async () => {
  const example = readFileSync(new URL("./examples/chat-loop.mjs", import.meta.url), "utf8");
  const doc = readFileSync(new URL("./docs/api.md", import.meta.url), "utf8");
  assert.ok(doc.includes("```js\n" + example + "```"), "docs/api.md must quote examples/chat-loop.mjs exactly");

  let chats = 0;
  const stub = await startStub((req) => {
    if (req.body.model === "gpt-4.1-mini") return openAIText("## Goal\nKeep going.");
    chats++;
    // The provider rejects one request although the estimate said it fits.
    return chats === 3 ? openAIOverflow : openAIText(`answer ${chats}`);
  });
  process.env.OPENAI_BASE_URL = `${stub.url}/v1`;
  process.env.OPENAI_API_KEY = "test";
  const logs = [];
  const log = console.log;
  console.log = (...args) => logs.push(args.join(" "));
  try {
    const { turn } = await import("./examples/chat-loop.mjs");
    let state = { systemPrompt: "You help.", summary: "", messages: [], tools: [] };
    state = await turn(state, "hello");
    assert.equal(state.messages.at(-1).content[0].text, "answer 1");
    assert.deepEqual(logs, []);
    // A long history (about 120k estimated tokens) crosses the threshold of the 128k window.
    state = { ...state, messages: [...state.messages, ...conversation(700)] };
    state = await turn(state, "what now?");
    assert.equal(state.messages.at(-1).content[0].text, "answer 2");
    assert.deepEqual(logs, ["compactionStart (threshold)", "compactionEnd (threshold)"]);
    // The conversation goes on; then the provider rejects a request and recovery compacts.
    state = { ...state, messages: [...state.messages, ...conversation(20)] };
    state = await turn(state, "and then?");
    assert.equal(state.messages.at(-1).content[0].text, "answer 4");
    assert.deepEqual(logs.slice(2), ["compactionStart (overflow)", "compactionEnd (overflow)"]);
    assert.ok(state.summary.startsWith("## Goal"));
  } finally {
    console.log = log;
    await stub.close();
  }
});
