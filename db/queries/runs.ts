import { and, asc, desc, eq, inArray, isNull, lt } from "drizzle-orm";
import type { Database } from "../client.ts";
import { type BriefingRun, briefingRuns, messages, type SlotName, users } from "../schema/index.ts";
import { NotFoundError } from "./users.ts";

/** States in which a run has prose a person can read and follow up on. */
export const FINISHED_STATES = ["generated", "delivering", "delivered"] as const;

export async function createRun(
  db: Database,
  values: { userId: number; slot: SlotName; localDate: string; trigger: "schedule" | "manual"; at: Date },
): Promise<BriefingRun> {
  const [run] = await db
    .insert(briefingRuns)
    .values({
      userId: values.userId,
      slot: values.slot,
      localDate: values.localDate,
      trigger: values.trigger,
      state: "generating",
      claimedAt: values.at,
      updatedAt: values.at,
    })
    .returning();
  if (!run) throw new Error("run insert returned nothing");
  return run;
}

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

/**
 * A claimed (scheduler) run moves to generating; refuses runs another worker already finished, and another
 * user's run when `userId` is given. Messages already attached belong to an earlier attempt that stopped
 * mid-generation (the scheduler's retake puts a stalled run back to `claimed`, so either state may carry
 * them): they go in the same transaction, or the retake's receipts would sit next to the first attempt's.
 */
export async function startClaimedRun(
  db: Database,
  runId: number,
  at: Date,
  options: { userId?: number } = {},
): Promise<BriefingRun> {
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(briefingRuns)
      .where(eq(briefingRuns.id, runId))
      .limit(1)
      .for("update");
    if (!existing) throw new NotFoundError(`no run ${runId}`);
    if (options.userId !== undefined && existing.userId !== options.userId)
      throw new Error(`run ${runId} belongs to another user`);
    if (existing.state !== "claimed" && existing.state !== "generating")
      throw new Error(`run ${runId} is ${existing.state}, not claimed`);
    await tx.delete(messages).where(eq(messages.runId, runId));
    const [run] = await tx
      .update(briefingRuns)
      .set({ state: "generating", updatedAt: at })
      .where(eq(briefingRuns.id, runId))
      .returning();
    if (!run) throw new NotFoundError(`no run ${runId}`);
    return run;
  });
}

/** What a finished generation writes on its run. */
export type RunResult = Pick<
  BriefingRun,
  | "mode"
  | "route"
  | "endpoint"
  | "model"
  | "turns"
  | "toolCalls"
  | "promptTokens"
  | "evalTokens"
  | "timings"
  | "grounding"
  | "prose"
  | "reason"
>;

export async function finishRun(
  db: Database,
  runId: number,
  result: RunResult,
  at: Date,
): Promise<BriefingRun> {
  const [run] = await db
    .update(briefingRuns)
    .set({ ...result, state: "generated", generatedAt: at, updatedAt: at })
    .where(eq(briefingRuns.id, runId))
    .returning();
  if (!run) throw new NotFoundError(`no run ${runId}`);
  return run;
}

export async function failRun(db: Database, runId: number, reason: string, at: Date): Promise<void> {
  await db
    .update(briefingRuns)
    .set({ state: "failed", reason, updatedAt: at })
    .where(eq(briefingRuns.id, runId));
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
