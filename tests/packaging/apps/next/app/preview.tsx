"use client";
// A client component that previews the plan: `ready()` loads the WebAssembly module in the
// browser, then planning is synchronous (cheap enough to run on every keystroke).
import { useEffect, useState } from "react";
import { Compactor, ready } from "context-compaction";
import { planSummary } from "./scenario.js";

export default function Preview() {
  const [plan, setPlan] = useState("");
  useEffect(() => {
    ready().then(() => setPlan(JSON.stringify(planSummary({ Compactor }))));
  }, []);
  return <pre id="plan">{plan}</pre>;
}
