/**
 * The grounding check: every time, date, number and named item a briefing asserts must be backed by a
 * receipt of its run. Pure functions over prose and receipts; the runner decides what to do with the verdict.
 */
export { checkGrounding } from "./check.ts";
export { describeUnbacked, removeUnbackedSentences } from "./repair.ts";
export { splitSentences } from "./sentences.ts";
export type { Claim, ClaimKind, GroundingOptions, GroundingReport } from "./types.ts";
