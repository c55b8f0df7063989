/**
 * What a platform posts for a run: read from the run itself, the briefing's only copy, whether the process
 * that wrote it delivers it or another one does after a restart.
 */
import type { BriefingMessage } from "../assistant.ts";
import type { BriefingRun } from "../domain.ts";
import { BriefbotError } from "../errors.ts";
import { statusRow } from "./status-row.ts";

/** A run that cannot be posted: it has no briefing text. */
export class UndeliverableRunError extends BriefbotError {
  constructor(message: string) {
    super("undeliverable", message);
  }
}

export function briefingMessageOf(run: BriefingRun): BriefingMessage {
  if (!run.prose || run.prose.trim() === "")
    throw new UndeliverableRunError(`run ${run.id} has no briefing text`);
  // Runs written before checks were stored carry none: the briefing goes out without its status row.
  const checks = run.checks ?? [];
  return {
    runId: run.id,
    userId: run.userId,
    slot: run.slot,
    localDate: run.localDate,
    prose: run.prose,
    checks,
    statusRow: statusRow(checks),
    mode: run.mode ?? "agentic",
  };
}
