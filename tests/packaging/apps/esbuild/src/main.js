// A page: `ready()` loads the WebAssembly module asynchronously, then every call is synchronous.
import { Compactor, ready } from "context-compaction";
import { planSummary } from "./scenario.js";

ready().then(() => {
  document.querySelector("#plan").textContent = JSON.stringify(planSummary({ Compactor }));
});
