// A consumer of `context-compaction/plan` and `context-compaction/ai-sdk-preview`: it must
// type-check, and every @ts-expect-error line proves that a wrong use is rejected.
import { Compactor, HeuristicEstimator, ready, estimate, CompactionError, type Message, type Plan } from "context-compaction/plan";
import { ChatPreview, type ChatPendingDraft, type ChatPreviewPlan, type Draft } from "context-compaction/ai-sdk-preview";

await ready();
// No summarizer needed; the whole Compactor's config is taken as it is.
const planner = new Compactor({ keepRecentTokens: 20_000, clearing: true });
new Compactor();
new Compactor({ keepRecentTokens: 1, summarizer: { summarize: async () => "" } });
const messages: Message[] = [{ role: "user", content: "hi" }];
const plan: Plan | null = planner.plan({ messages, inputTokenBudget: 10 });
const estimator = new HeuristicEstimator({ imageTokens: 1_000 });
const total: number = estimate({ messages, estimator }).total;
planner.planBytes(JSON.stringify(messages), { inputTokenBudget: 10 })?.messageSpans;
planner.conversation({ format: "openai-chat" }).append({ role: "user", content: "hi" });
// @ts-expect-error planning only: no apply
planner.apply({ messages }, plan);
// @ts-expect-error planning only: no summarizerInput
planner.summarizerInput({ messages }, plan);
// @ts-expect-error keepRecentTokens is a number
new Compactor({ keepRecentTokens: "many" });
const preview = new ChatPreview({ contextWindowTokens: 128_000 });
preview.update([]);
const previewed: ChatPreviewPlan | null = preview.plan();
// A pending summary stored beside the state: a draft located by its first kept UIMessage.
declare const draft: Draft;
const pending: ChatPendingDraft = draft;
preview.update([], null, { pending });
// @ts-expect-error a pending summary needs its digests
preview.update([], null, { pending: { summary: "s", firstKeptId: "m1", firstKeptPart: 0 } });
const covers: boolean | undefined = preview.pending()?.covers;
const stillCovers: boolean = planner.covers({ format: "ai-sdk-ui", messages: [] }, draft);
planner.digest({ messages }, { firstKeptIndex: 0 });
// @ts-expect-error planning only: no commit
planner.commit({ messages }, draft);
preview.free();
planner[Symbol.dispose]();
console.log(plan, total, previewed, covers, stillCovers, CompactionError);
