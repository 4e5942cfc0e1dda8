// The long fuzz run (scripts/fuzz): `node fuzz-main.mjs RUNS SEED` inside a project that
// installed the packed package. Prints the count, the date and the result on its last line.
import * as api from "context-compaction";
import { fuzz } from "./fuzz.mjs";
import { poison, sessionPlan } from "./poison.mjs";

const runs = Number(process.argv[2] ?? 1_000_000);
const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);
const unhandled = [];
process.on("unhandledRejection", (reason) => unhandled.push(reason));

const started = Date.now();
const want = sessionPlan(api);
const ran = await fuzz(api, { runs, seed, reportEvery: 100_000 });
if (unhandled.length > 0) throw new Error(`unhandled rejections: ${unhandled.length}`);
// After every case, a fresh Compactor still plans the real session exactly as before.
await poison(api, 1_000);
if (JSON.stringify(sessionPlan(api)) !== JSON.stringify(want)) throw new Error("the session plans differently after the run");
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`fuzz: ${ran} cases, seed ${seed}, ${new Date().toISOString().slice(0, 10)}, ${minutes} min: 0 escapes, 0 traps, 0 poisonings`);
