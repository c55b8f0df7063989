/**
 * Step 5, when the model gave nothing usable: the deterministic briefing. The runner gathers whatever
 * coverage still lacks, then writes plain lines from the receipts.
 */
import { DateTime } from "luxon";
import { type Fallback, type Produced, type RunContext, runnerCalls } from "../context.ts";
import { COVERAGE, DIGEST_EXTRAS, missingCoverage } from "../coverage.ts";
import { buildDigest } from "../digest.ts";
import { slotTitle } from "../slot-prompts.ts";

export async function digest(context: RunContext, fallback: Fallback): Promise<Produced> {
  let { trace } = fallback;
  const missing = missingCoverage([...COVERAGE[context.slot], ...DIGEST_EXTRAS], trace.receipts);
  if (missing.length > 0) trace = (await runnerCalls(context, trace, missing)).trace;
  const day = DateTime.fromISO(context.localDate).toFormat("cccc d LLLL");
  const prose = buildDigest(trace.receipts, {
    heading: `Your ${slotTitle(context.slot)} for ${day}:`,
    note: fallback.note,
    changes: fallback.changes,
  });
  return {
    kind: "produced",
    prose,
    mode: "digest",
    grounding: fallback.verdict ?? { claimsChecked: 0, unbacked: [], action: "digest" },
    reason: fallback.reason,
    trace,
    changes: fallback.changes,
  };
}
