/** Briefing runs for the core: manual runs, the claimed run's start, its result or failure, retention. */
import type { Database } from "../client.ts";
import { rollUpOldRuns } from "../queries/retention.ts";
import {
  createRun,
  failRun,
  finishRun,
  getUserRun,
  latestFinishedRun,
  type RunResult,
  startClaimedRun,
} from "../queries/runs.ts";
import { userScheduledSlots } from "../queries/schedule.ts";
import type { SlotName } from "../schema/index.ts";

export function createRunStore(db: Database) {
  return {
    createManual: (run: { userId: number; slot: SlotName; localDate: string; at: Date }) =>
      createRun(db, { ...run, trigger: "manual" }),
    start: (runId: number, userId: number, at: Date) => startClaimedRun(db, runId, at, { userId }),
    finish: (runId: number, result: RunResult, at: Date) => finishRun(db, runId, result, at),
    fail: (runId: number, reason: string, at: Date) => failRun(db, runId, reason, at),
    ofUser: (userId: number, runId: number) => getUserRun(db, userId, runId),
    scheduledOn: (userId: number, localDates: readonly string[]) =>
      userScheduledSlots(db, userId, localDates),
    latestFinished: (userId: number) => latestFinishedRun(db, userId),
    archiveOld: async (options: { now: Date; retentionDays: number; userId?: number }) =>
      (await rollUpOldRuns(db, options)).archivedRuns,
  };
}
