/** Briefing runs as the core reads them; their changes are `run-lifecycle.ts`'s. */
import type { Database } from "../client.ts";
import { getUserRun, latestFinishedRun, morningRunOf } from "../queries/runs.ts";
import { userScheduledSlots } from "../queries/schedule.ts";

export function createRunStore(db: Database) {
  return {
    ofUser: (userId: number, runId: number) => getUserRun(db, userId, runId),
    scheduledOn: (userId: number, localDates: readonly string[]) =>
      userScheduledSlots(db, userId, localDates),
    latestFinished: (userId: number) => latestFinishedRun(db, userId),
    morningOf: (userId: number, localDate: string) => morningRunOf(db, userId, localDate),
  };
}
