// The chat agent. The route passes the chat it prepared as the call's options: its messages (the
// summary first, then what is kept) replace the history the SDK converted, and its prepareStep
// compacts between the steps of a long tool loop.
import { ToolLoopAgent, type ModelMessage } from "ai";
import type { PreparedChat } from "context-compaction/ai-sdk";
import { model, system, tools } from "./model";

export const agent = new ToolLoopAgent<PreparedChat<ModelMessage>, typeof tools>({
  model,
  instructions: system,
  tools,
  prepareCall: ({ options, ...call }) => ({ ...call, prompt: options.messages, prepareStep: options.prepareStep }),
});
