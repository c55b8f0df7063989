/**
 * Rebuilds the message to post from what the runner stored (run prose + its receipts), so delivery after
 * a restart needs nothing from the process that generated it.
 */
import type { Database } from "../../db/client.ts";
import { listRunReceipts } from "../../db/queries/messages.ts";
import { getRun } from "../../db/queries/runs.ts";
import type { BriefingMessage } from "../core/assistant.ts";
import { statusChecks, statusRow } from "../core/briefing/status-row.ts";
import { isSlotName } from "../core/domain.ts";

export class UndeliverableRunError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UndeliverableRunError";
  }
}

export async function loadBriefingMessage(db: Database, runId: number): Promise<BriefingMessage> {
  const run = await getRun(db, runId);
  if (!run) throw new UndeliverableRunError(`run ${runId} no longer exists`);
  if (!run.prose || run.prose.trim() === "")
    throw new UndeliverableRunError(`run ${runId} has no briefing text`);
  const receipts = await listRunReceipts(db, runId);
  const checks = statusChecks(receipts);
  const slot = isSlotName(run.slot) ? run.slot : "morning";
  const mode = run.mode === "legacy" || run.mode === "digest" ? run.mode : "agentic";
  return {
    runId: run.id,
    userId: run.userId,
    slot,
    localDate: run.localDate,
    prose: run.prose,
    checks,
    statusRow: statusRow(checks),
    mode,
  };
}
