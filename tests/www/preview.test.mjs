// The preview page in real headless Chromium: it loads without console errors, renders a bar
// per message, moves the cut as the library's own plan says, shows a split turn's prefix, with
// clearing on paints the results a clear plan clears (and the result overflow recovery would
// trim), drafts a summary that is edited and committed as edited (with its receipt), and leaves
// screenshots in target/test-output/. The page is served from www/ and dist/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Compactor, ContextManager } from "context-compaction";

const root = process.env.CC_ROOT;
const { serve } = await import(join(root, "scripts/serve.mjs"));
const { chromium } = await import(join(root, "node_modules/playwright-core/index.mjs"));

const session = readFileSync(join(root, "tests/fixtures/large-session.jsonl"), "utf8")
  .split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)).filter((e) => e.type === "message").map((e) => e.message);

function expectedCut(messages, { window = 128000, reserve = 16384, keep = 20000, ratio = 0.8, clearing } = {}) {
  const compactor = new Compactor({ keepRecentTokens: keep, triggerRatio: ratio, clearing, summarizer: { summarize: async () => "" } });
  return compactor.plan({ messages, inputTokenBudget: Math.max(0, window - reserve) }) ?? compactor.plan({ messages, requireReduction: true });
}

test("the preview page", async (t) => {
  const server = await serve(0);
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const errors = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => (m.type() === "error" || m.type() === "warning") && errors.push(m.text()));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 20_000 });
    const settled = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await settled();

    await t.test("renders the sample: a bar per message and the library's cut", async () => {
      assert.equal(await page.locator(".bar").count(), session.length);
      const plan = expectedCut(session);
      assert.equal(await page.evaluate(() => document.body.dataset.cut), String(plan.firstKeptIndex));
      assert.equal(await page.locator(".bar.summarized").count(), plan.messagesToSummarize.length);
      assert.equal(await page.locator(".bar.prefix").count(), plan.turnPrefixMessages.length);
      mkdirSync(join(root, "target/test-output"), { recursive: true });
      await page.screenshot({ path: join(root, "target/test-output/preview.png") });
    });

    await t.test("moving a control moves the cut as plan says", async () => {
      for (const keep of [5000, 60000, 0]) {
        await page.locator("#keep").evaluate((el, v) => { el.value = String(v); el.dispatchEvent(new Event("input")); }, keep);
        await settled();
        const plan = expectedCut(session, { keep });
        assert.equal(await page.evaluate(() => document.body.dataset.cut), String(plan.firstKeptIndex), `keep ${keep}`);
      }
      await page.locator("#window").evaluate((el) => { el.value = "400000"; el.dispatchEvent(new Event("input")); });
      await settled();
      assert.equal(await page.evaluate(() => document.body.dataset.fires), "false");
    });

    await t.test("the summarizer input is shown on request", async () => {
      await page.locator("#input-details > summary").click();
      await settled();
      assert.match(await page.locator("#summarizer-input").textContent(), /\[User\]: /);
    });

    await t.test("clearing on: the results a clear plan clears are painted in their own colour", async () => {
      const set = (id, value) => page.locator(`#${id}`).evaluate((el, v) => { el.value = String(v); el.dispatchEvent(new Event("input")); }, value);
      const indices = (cls) => page.evaluate((c) => [...document.querySelectorAll(`.bar.${c}`)].map((el) => Number(el.dataset.index)), cls);
      await set("keep", 20000);
      await set("window", 200000);
      await settled();
      assert.deepEqual(await indices("cleared"), [], "off by default");
      await page.locator("#clearing").check();
      await settled();
      const clearing = { protectRecentTokens: 40000, neverClear: [], clearArguments: false };
      const plan = expectedCut(session, { window: 200000, clearing });
      assert.equal(plan.kind, "clear");
      assert.equal(await page.evaluate(() => document.body.dataset.kind), "clear");
      assert.deepEqual(await indices("cleared"), plan.clearedResults.map((r) => r.index));
      assert.equal(await page.locator(".bar.summarized").count(), 0);
      const stats = await page.locator("#stats").textContent();
      assert.ok(stats.includes(plan.tokensFreed.toLocaleString("en-US")), stats);
      assert.ok(stats.includes(plan.estimateAfter.toLocaleString("en-US")), stats);
      assert.ok((await page.locator("#pairs").textContent()).includes(plan.clearedResults[0].text));
      assert.match(await page.locator("#summarizer-input").textContent(), /clearing old tool results is enough/);
      await page.screenshot({ path: join(root, "target/test-output/preview-clearing.png") });

      // Protecting less recent tool output clears more, as plan says.
      await set("protect", 10000);
      await settled();
      const more = expectedCut(session, { window: 200000, clearing: { ...clearing, protectRecentTokens: 10000 } });
      assert.ok(more.clearedResults.length > plan.clearedResults.length);
      assert.deepEqual(await indices("cleared"), more.clearedResults.map((r) => r.index));

      // Never-clear tool names and cleared arguments.
      const name = more.clearedResults[0].toolName;
      await page.locator("#never-clear").fill(` ${name} `);
      await page.locator("#clear-args").check();
      await settled();
      const kept = expectedCut(session, { window: 200000, clearing: { protectRecentTokens: 10000, neverClear: [name], clearArguments: true } });
      assert.ok(kept.clearedResults.every((r) => r.toolName !== name));
      assert.deepEqual(await indices("cleared"), kept.clearedResults.map((r) => r.index));
      assert.deepEqual(await indices("arguments"), kept.argumentMessages);

      // Where clearing is not enough (a smaller window) the summary plan stands.
      await set("window", 128000);
      await settled();
      assert.equal(expectedCut(session, { clearing: { protectRecentTokens: 10000, neverClear: [name], clearArguments: true } }).kind, undefined);
      assert.equal(await page.evaluate(() => document.body.dataset.kind), "summary");
      assert.deepEqual(await indices("cleared"), []);
      assert.equal(await page.locator(".bar.summarized").count(), expectedCut(session).messagesToSummarize.length);
      assert.match(await page.locator("#stats").textContent(), /not enough: summarize/);
      await page.locator("#clear-args").uncheck();
      await page.locator("#never-clear").fill("");
      await set("protect", 40000);
      await page.locator("#clearing").uncheck();
      await settled();
    });

    await t.test("a pasted conversation with a split turn shows the prefix", async () => {
      const long = "x ".repeat(3000);
      const pasted = [
        { role: "user", content: "first question" },
        { role: "assistant", content: [{ type: "text", text: "first answer" }], stopReason: "stop" },
        { role: "user", content: "now do the big task" },
        { role: "assistant", content: [{ type: "toolCall", id: "a", name: "bash", arguments: { command: "make" } }], stopReason: "toolUse" },
        { role: "toolResult", toolCallId: "a", toolName: "bash", content: [{ type: "text", text: long }] },
        { role: "assistant", content: [{ type: "text", text: long }], stopReason: "stop" },
      ];
      await page.locator("summary", { hasText: "Load a conversation" }).click();
      await page.locator("#paste").fill(JSON.stringify(pasted));
      await page.locator("#load").click();
      await page.locator("#keep").evaluate((el) => { el.value = "1000"; el.dispatchEvent(new Event("input")); });
      await page.locator("#window").evaluate((el) => { el.value = "4000"; el.dispatchEvent(new Event("input")); });
      await settled();
      assert.equal(await page.locator(".bar").count(), pasted.length);
      const plan = expectedCut(pasted, { window: 4000, keep: 1000 });
      assert.equal(plan.splitTurn, true);
      assert.equal(await page.evaluate(() => document.body.dataset.split), "true");
      assert.equal(await page.locator(".bar.prefix").count(), plan.turnPrefixMessages.length);
      assert.equal(await page.evaluate(() => document.body.dataset.cut), String(plan.firstKeptIndex));
    });

    await t.test("bad pasted text is shown as an error, not thrown", async () => {
      await page.locator("#paste").fill("[{\"role\": \"robot\"}]");
      await page.locator("#load").click();
      await settled();
      assert.match(await page.locator("#error").textContent(), /invalid_request: .*messages\[0\]\.role/);
    });

    await t.test("clearing on: an oversized newest tool result shows the trim overflow recovery makes", async () => {
      const huge = `FIRST ${Array.from({ length: 8000 }, (_, i) => `log${i}`).join(" ")} LAST`;
      const pasted = [
        { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "cat big.log" } }], stopReason: "toolUse" },
        { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: huge }] },
      ];
      await page.locator("#paste").fill(JSON.stringify(pasted));
      await page.locator("#load").click();
      await page.locator("#reserve").evaluate((el) => { el.value = "0"; el.dispatchEvent(new Event("input")); });
      await page.locator("#window").evaluate((el) => { el.value = "8000"; el.dispatchEvent(new Event("input")); });
      await settled();
      assert.equal(await page.evaluate(() => document.body.dataset.trim), "none", "no trim with clearing off");
      assert.equal(await page.locator(".bar.trimmed").count(), 0);
      await page.locator("#clearing").check();
      await page.waitForFunction(() => document.body.dataset.trim !== "none" && document.body.dataset.trim !== "pending", null, { timeout: 10_000 });
      assert.equal(await page.evaluate(() => document.body.dataset.trim), "1");
      assert.equal(await page.locator(".bar.trimmed").count(), 1);
      // The figures of the library's own overflow recovery.
      const compactor = new Compactor({ keepRecentTokens: 1000, clearing: true, summarizer: { summarize: async () => "" } });
      let refused = false;
      const send = async () => {
        if (refused) return null;
        refused = true;
        throw Object.assign(new Error("too large"), { status: 413 });
      };
      const ran = await new ContextManager({ compactor, contextWindowTokens: 8000, reserveTokens: 0 }).run({ messages: pasted }, send);
      assert.equal(ran.compactions[0].kind, "trim");
      const stats = await page.locator("#stats").textContent();
      assert.ok(stats.includes(`trim #1`), stats);
      assert.ok(stats.includes(ran.compactions[0].tokensFreed.toLocaleString("en-US")), stats);
      await page.screenshot({ path: join(root, "target/test-output/preview-trim.png") });
      await page.locator("#clearing").uncheck();
    });
    await t.test("a drafted summary is shown, edited and committed as edited; the receipt follows", async () => {
      await page.goto(`http://127.0.0.1:${server.address().port}/`);
      await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 20_000 });
      await settled();
      assert.equal(await page.locator("#draft-panel").isVisible(), false, "no draft before one is asked for");
      await page.locator("#focus").fill("the failing tests");
      await page.locator("#draft").click();
      await page.waitForFunction(() => document.body.dataset.draft === "ready", null, { timeout: 10_000 });
      const plan = expectedCut(session);
      assert.equal(await page.evaluate(() => document.body.dataset.draftCut), String(plan.firstKeptIndex));
      const drafted = await page.locator("#draft-text").inputValue();
      assert.match(drafted, /^Local summary \(no model\) of /);
      assert.match(drafted, /Focus: the failing tests/);
      assert.match(await page.locator("#draft-by").textContent(), /local stand-in \(no model\)/);
      assert.equal(await page.locator(".bar").count(), session.length, "nothing applied yet");

      // Discard changes nothing; a new draft is the same text.
      await page.locator("#discard").click();
      assert.equal(await page.evaluate(() => document.body.dataset.draft), "none");
      assert.equal(await page.locator("#draft-panel").isVisible(), false);
      assert.equal(await page.locator(".bar").count(), session.length);
      await page.locator("#draft").click();
      await page.waitForFunction(() => document.body.dataset.draft === "ready", null, { timeout: 10_000 });
      assert.equal(await page.locator("#draft-text").inputValue(), drafted);
      await page.screenshot({ path: join(root, "target/test-output/preview-draft.png") });

      const edited = "Edited in the page: the user fixed the failing tests and kept the database schema.";
      await page.locator("#draft-text").fill(edited);
      await page.locator("#commit").click();
      await page.waitForFunction(() => document.body.dataset.draft === "committed", null, { timeout: 10_000 });
      await settled();
      assert.equal(await page.locator("#summary-now").textContent(), edited, "the stored summary is the edited text");
      assert.equal(await page.locator(".bar").count(), session.length - plan.firstKeptIndex, "the bars show the kept messages");
      // The receipt is the library's: what a summary of that cut covers, and its digest.
      const compactor = new Compactor({ keepRecentTokens: 20000, triggerRatio: 0.8, summarizer: { summarize: async () => edited } });
      const { record } = await compactor.compact({ messages: session, inputTokenBudget: 128000 - 16384 });
      const receipt = await page.locator("#receipt").textContent();
      assert.ok(receipt.includes(`${record.receipt.summarizedMessages.toLocaleString("en-US")} messages`), receipt);
      assert.ok(receipt.includes(record.receipt.summarizedTokens.toLocaleString("en-US")), receipt);
      assert.ok(receipt.includes(record.receipt.digest), receipt);
      assert.match(await page.locator("#stats").textContent(), /stored summary/);
      await page.screenshot({ path: join(root, "target/test-output/preview-committed.png") });

      // A draft of a history that changed since is refused as stale, and changes nothing.
      await page.goto(`http://127.0.0.1:${server.address().port}/`);
      await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 20_000 });
      await page.locator("#draft").click();
      await page.waitForFunction(() => document.body.dataset.draft === "ready", null, { timeout: 10_000 });
      const changed = session.slice();
      const first = session.findIndex((m) => m.role === "user");
      changed[first] = { ...changed[first], content: "changed after the draft" };
      await page.locator("summary", { hasText: "Load a conversation" }).click();
      await page.locator("#paste").evaluate((el, text) => { el.value = text; }, JSON.stringify(changed));
      await page.locator("#load").click();
      await settled();
      await page.locator("#commit").click();
      assert.match(await page.locator("#error").textContent(), /^stale: .*changed/);
      assert.equal(await page.locator(".bar").count(), session.length);
      assert.equal(await page.locator("#summary-now").textContent(), "");
      assert.equal(await page.evaluate(() => document.body.dataset.draft), "ready");
      await page.locator("#discard").click();
    });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.close();
  }
});
