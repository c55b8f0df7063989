/**
 * A generated briefing on its way to the outbox. The scheduler hands it over as the runner made it; after
 * a restart (a run generated but never enqueued, or rows still pending) it is rebuilt from what the runner
 * stored — run prose and receipts — so delivery needs nothing from the process that generated it.
 */
import type { Database } from "../../db/client.ts";
import { listRunReceipts } from "../../db/queries/messages.ts";
import { getRunWithTimeZone } from "../../db/queries/runs.ts";
import type { BriefingRun } from "../../db/schema/index.ts";
import type { BriefingMessage } from "../core/assistant.ts";
import { statusChecks, statusRow } from "../core/briefing/status-row.ts";

export interface GeneratedBriefing {
  message: BriefingMessage;
  /** When the run was claimed: for a scheduled run, the tick its slot came due in. */
  claimedAt: Date;
  /** Past this the briefing is not sent (set when a scheduled run is claimed); null for manual runs. */
  notAfter: Date | null;
  /** The user's zone, for reasons written in local time. */
  timeZone: string;
}

export class UndeliverableRunError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UndeliverableRunError";
  }
}

/** What to post, from the runner's outcome (which carries more than a post needs). */
export function briefingMessageOf(outcome: BriefingMessage): BriefingMessage {
  const { runId, userId, slot, localDate, prose, checks, statusRow, mode } = outcome;
  return { runId, userId, slot, localDate, prose, checks, statusRow, mode };
}

/** Reads a run back as a briefing to deliver, with its state; undefined when the run is gone. */
export async function loadGeneratedBriefing(
  db: Database,
  runId: number,
): Promise<{ state: BriefingRun["state"]; briefing: GeneratedBriefing } | undefined> {
  const found = await getRunWithTimeZone(db, runId);
  if (!found) return undefined;
  const { run, timeZone } = found;
  if (!run.prose || run.prose.trim() === "")
    throw new UndeliverableRunError(`run ${runId} has no briefing text`);
  const checks = statusChecks(await listRunReceipts(db, runId));
  return {
    state: run.state,
    briefing: {
      message: {
        runId: run.id,
        userId: run.userId,
        slot: run.slot,
        localDate: run.localDate,
        prose: run.prose,
        checks,
        statusRow: statusRow(checks),
        mode: run.mode ?? "agentic",
      },
      claimedAt: run.claimedAt,
      notAfter: run.notAfter,
      timeZone,
    },
  };
}
