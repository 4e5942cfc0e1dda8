// A page (Vite), and a module Web Worker.
import { Compactor, ready } from "context-compaction";
import { planSummary } from "./scenario.js";

ready().then(() => {
  document.querySelector("#plan").textContent = JSON.stringify(planSummary({ Compactor }));
});
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.onmessage = (event) => {
  document.querySelector("#worker").textContent = JSON.stringify(event.data);
};
