// Must NOT compile: an OpenAI Chat message passed as canonical, a canonical part inside an
// Anthropic message. The suite requires errors that name the offending value.
import { Compactor } from "context-compaction";

const compactor = new Compactor({ summarizer: { summarize: async () => "" } });
compactor.plan({ messages: [{ role: "tool", tool_call_id: "c1", content: "done" }] });
compactor.plan({ format: "anthropic", messages: [{ role: "assistant", content: [{ type: "toolCall", id: "1", name: "read", arguments: {} }] }] });
