// The compaction options of the route's ChatCompaction and of the page's ChatPreview (both import
// this file): the same window, reserve and thresholds on both sides.
export const compactionOptions = {
  contextWindowTokens: 128_000,
  reserveTokens: 16_384, // kept free for the answer: compaction starts above 128,000 − 16,384
  keepRecentTokens: 20_000, // the latest ~20k tokens stay word for word
};
