import { and, asc, desc, eq, inArray, isNull, lt } from "drizzle-orm";
import type { Database } from "../client.ts";
import { type BriefingRun, briefingRuns, users } from "../schema/index.ts";

/** States in which a run has prose a person can read and follow up on. */
export const FINISHED_STATES = ["generated", "delivering", "delivered"] as const;

export async function getRun(db: Database, runId: number): Promise<BriefingRun | undefined> {
  const [run] = await db.select().from(briefingRuns).where(eq(briefingRuns.id, runId)).limit(1);
  return run;
}

/** A run with its user's time zone, in one query. */
export async function getRunWithTimeZone(
  db: Database,
  runId: number,
): Promise<{ run: BriefingRun; timeZone: string } | undefined> {
  const [row] = await db
    .select({ run: briefingRuns, timeZone: users.timeZone })
    .from(briefingRuns)
    .innerJoin(users, eq(users.id, briefingRuns.userId))
    .where(eq(briefingRuns.id, runId))
    .limit(1);
  return row;
}

/** One of the user's runs; another user's id is "not there". */
export async function getUserRun(
  db: Database,
  userId: number,
  runId: number,
): Promise<BriefingRun | undefined> {
  const [run] = await db
    .select()
    .from(briefingRuns)
    .where(and(eq(briefingRuns.id, runId), eq(briefingRuns.userId, userId)))
    .limit(1);
  return run;
}

/** The user's most recent run that produced a briefing. */
export async function latestFinishedRun(db: Database, userId: number): Promise<BriefingRun | undefined> {
  const [run] = await db
    .select()
    .from(briefingRuns)
    .where(and(eq(briefingRuns.userId, userId), inArray(briefingRuns.state, [...FINISHED_STATES])))
    .orderBy(desc(briefingRuns.id))
    .limit(1);
  return run;
}

/** Runs not yet archived, created before `before`; the retention roll-up's work list. */
export async function listRunsToArchive(
  db: Database,
  before: Date,
  userId?: number,
): Promise<Array<Pick<BriefingRun, "id" | "userId" | "claimedAt">>> {
  return db
    .select({ id: briefingRuns.id, userId: briefingRuns.userId, claimedAt: briefingRuns.claimedAt })
    .from(briefingRuns)
    .where(
      and(
        isNull(briefingRuns.archivedAt),
        lt(briefingRuns.claimedAt, before),
        userId === undefined ? undefined : eq(briefingRuns.userId, userId),
      ),
    )
    .orderBy(asc(briefingRuns.id));
}

/** The user's morning briefing for a local date that produced prose (scheduled or manual), latest first. */
export async function morningRunOf(
  db: Database,
  userId: number,
  localDate: string,
): Promise<BriefingRun | undefined> {
  const [run] = await db
    .select()
    .from(briefingRuns)
    .where(
      and(
        eq(briefingRuns.userId, userId),
        eq(briefingRuns.slot, "morning"),
        eq(briefingRuns.localDate, localDate),
        inArray(briefingRuns.state, [...FINISHED_STATES]),
      ),
    )
    .orderBy(desc(briefingRuns.id))
    .limit(1);
  return run;
}
