// The shipped heuristic (bit masks over 64-byte blocks, classified with wasm SIMD) counts exactly
// what the byte-at-a-time definition counts, written out here in JS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { HeuristicEstimator } from "context-compaction";

/** The definition (scan/src/score.rs `bytewise`): hundredths of a token, rounded. */
function reference(text) {
  const bytes = new TextEncoder().encode(text);
  const upper = (b) => b >= 65 && b <= 90;
  const lower = (b) => b >= 97 && b <= 122;
  const alpha = (b) => upper(b) || lower(b);
  const digit = (b) => b >= 48 && b <= 57;
  const space = (b) => b === 32 || b === 9;
  // A capital ending four letters that go UULU or ULUU (bytes before the text are not letters).
  const mixed = (k) =>
    k >= 3 &&
    upper(bytes[k]) &&
    upper(bytes[k - 3]) &&
    ((lower(bytes[k - 1]) && upper(bytes[k - 2])) || (upper(bytes[k - 1]) && lower(bytes[k - 2])));
  let total = 0;
  for (let i = 0; i < bytes.length; ) {
    const start = i;
    const b = bytes[i++];
    if (alpha(b)) {
      let prev = b;
      while (i < bytes.length && alpha(bytes[i]) && !(upper(bytes[i]) && lower(prev))) prev = bytes[i++];
      total += 100 + 25 * Math.max(0, i - start - 6);
      for (let k = start; k < i; k++) if (mixed(k)) total += 251;
    } else if (digit(b)) {
      while (i < bytes.length && digit(bytes[i])) i++;
      total += 61 + 100 * Math.ceil((i - start) / 3);
      if (start > 0 && space(bytes[start - 1])) total += 63;
    } else if (b === 10) total += 100;
    else if (space(b)) {
      while (i < bytes.length && space(bytes[i])) i++;
      if (i - start >= 2) total += 50;
    } else if (b < 128) {
      if (b > 32 && b < 127) total += 40;
    } else if (b >= 0xf0) total += 237;
    else if (b >= 0xe0) total += 86;
    else if (b >= 0xc0) total += 26;
  }
  return bytes.length === 0 ? 0 : Math.max(1, Math.floor((total + 50) / 100));
}

test("the shipped heuristic equals its definition on the real session", () => {
  const estimator = new HeuristicEstimator();
  const lines = readFileSync(`${process.env.CC_ROOT}/tests/fixtures/large-session.jsonl`, "utf8").split("\n");
  for (const line of lines) assert.equal(estimator.countTokens(line), reference(line));
});

test("the shipped heuristic equals its definition on generated text", () => {
  const estimator = new HeuristicEstimator();
  // Every class, and the bytes just outside each range the classifier tests.
  const pieces = ["a", "Z", "camelCase", "0", "12345", " ", "\t", "\n", ".", "{", "é", "日本", "😀", "\u0001", "\u007f",
    "Ab", "AB", "aGVsbG8", " 7", "\u0800", "\u{10000}", "\u{10ffff}",
    "@", "[", "`", "/", ":", "!", "~", "\u001f", "\u0080", "\u07ff", "\uffff"];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  for (let round = 0; round < 2000; round++) {
    let text = "";
    const length = next() % 200;
    for (let k = 0; k < length; k++) text += pieces[next() % pieces.length];
    assert.equal(estimator.countTokens(text), reference(text), JSON.stringify(text));
  }
});
