/**
 * Every write to `briefing_runs` and `deliveries`: the run's state machine as guarded transitions. Each
 * transition is one UPDATE (or INSERT) whose WHERE clause holds the states it leaves and, where a process
 * owns the run or the row, that owner — so when processes race, one statement matches and the rest match
 * nothing. `db/stores/run-lifecycle.ts` offers these as the core's `RunLifecycle` port.
 */
import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { NewDelivery, RunResult, SlotClaim } from "../../src/core/domain.ts";
import type { Database } from "../client.ts";
import {
  type BriefingRun,
  briefingRuns,
  type Delivery,
  deliveries,
  messages,
  type RunState,
  type SlotName,
} from "../schema/index.ts";
import { orphanedBy } from "./leases.ts";

export type { NewDelivery, RunResult, SlotClaim };

export const INTERRUPTED_SEND_REASON = "interrupted mid-send; not re-sent to avoid a duplicate";

async function move(
  db: Database,
  runId: number,
  from: readonly RunState[],
  changes: Partial<typeof briefingRuns.$inferInsert>,
  extra: SQL | undefined,
  at: Date,
): Promise<BriefingRun | undefined> {
  const [run] = await db
    .update(briefingRuns)
    .set({ ...changes, updatedAt: at })
    .where(and(eq(briefingRuns.id, runId), inArray(briefingRuns.state, [...from]), extra))
    .returning();
  return run;
}

/** (none) → claimed (or skipped): the partial unique index on (user, slot, local date) lets one insert win. */
export async function claimRun(
  db: Database,
  slot: SlotClaim,
  owner: string,
  at: Date,
  outcome: { state: "claimed" } | { state: "skipped"; reason: string } = { state: "claimed" },
): Promise<BriefingRun | undefined> {
  const [run] = await db
    .insert(briefingRuns)
    .values({
      userId: slot.userId,
      slot: slot.slot,
      localDate: slot.localDate,
      trigger: "schedule",
      state: outcome.state,
      reason: outcome.state === "skipped" ? outcome.reason : null,
      claimedBy: owner,
      claimedAt: at,
      notAfter: slot.notAfter,
      updatedAt: at,
    })
    .onConflictDoNothing()
    .returning();
  return run;
}

export async function createManualRun(
  db: Database,
  run: { userId: number; slot: SlotName; localDate: string; owner: string; at: Date },
): Promise<BriefingRun> {
  const [created] = await db
    .insert(briefingRuns)
    .values({
      userId: run.userId,
      slot: run.slot,
      localDate: run.localDate,
      trigger: "manual",
      state: "generating",
      claimedBy: run.owner,
      claimedAt: run.at,
      updatedAt: run.at,
    })
    .returning();
  if (!created) throw new Error("run insert returned nothing");
  return created;
}

/**
 * claimed → generating by its owner. An attempt that was interrupted (the run was reclaimed since) left
 * messages behind; they go in the same transaction, or the retake's receipts would sit next to the first's.
 */
export async function startRun(
  db: Database,
  runId: number,
  userId: number,
  owner: string,
  at: Date,
): Promise<BriefingRun | undefined> {
  return db.transaction(async (tx) => {
    const run = await move(
      tx,
      runId,
      ["claimed"],
      { state: "generating" },
      and(eq(briefingRuns.userId, userId), eq(briefingRuns.claimedBy, owner)),
      at,
    );
    if (run) await tx.delete(messages).where(eq(messages.runId, run.id));
    return run;
  });
}

export function finishRun(
  db: Database,
  runId: number,
  owner: string,
  result: RunResult,
  at: Date,
): Promise<BriefingRun | undefined> {
  return move(
    db,
    runId,
    ["generating"],
    { ...result, state: "generated", generatedAt: at },
    eq(briefingRuns.claimedBy, owner),
    at,
  );
}

export function failRun(
  db: Database,
  runId: number,
  owner: string,
  reason: string,
  at: Date,
): Promise<BriefingRun | undefined> {
  return move(
    db,
    runId,
    ["claimed", "generating"],
    { state: "failed", reason },
    eq(briefingRuns.claimedBy, owner),
    at,
  );
}

export function reclaimRun(
  db: Database,
  runId: number,
  previousOwner: string,
  owner: string,
  at: Date,
): Promise<BriefingRun | undefined> {
  return move(
    db,
    runId,
    ["claimed", "generating"],
    { state: "claimed", claimedBy: owner, reason: "generation restarted after an interruption" },
    eq(briefingRuns.claimedBy, previousOwner),
    at,
  );
}

export function skipRun(
  db: Database,
  runId: number,
  reason: string,
  at: Date,
): Promise<BriefingRun | undefined> {
  return move(db, runId, ["generated"], { state: "skipped", reason }, undefined, at);
}

/** generated → delivering, and its outbox rows, together. */
export async function beginRunDelivery(
  db: Database,
  runId: number,
  rows: readonly NewDelivery[],
  at: Date,
): Promise<BriefingRun | undefined> {
  return db.transaction(async (tx) => {
    const run = await move(tx, runId, ["generated"], { state: "delivering" }, undefined, at);
    if (!run || rows.length === 0) return run;
    await tx
      .insert(deliveries)
      .values(
        rows.map((row) => ({
          runId,
          userId: run.userId,
          platform: row.platform,
          identityId: row.identityId,
          state: row.state ?? "pending",
          lastError: row.lastError ?? null,
          nextAttemptAt: at,
          sentAt: row.state === "sent" ? at : null,
          createdAt: at,
        })),
      )
      .onConflictDoNothing();
    return run;
  });
}

/**
 * delivering → delivered or failed, derived from the rows in the same statement, once none is open:
 * all sent → delivered; some sent → delivered with the failures as the reason; none sent → failed.
 */
export function settleRun(
  db: Database,
  runId: number,
  at: Date,
  reason?: string,
): Promise<BriefingRun | undefined> {
  const rowsOf = sql`from ${deliveries} where ${deliveries.runId} = ${briefingRuns.id}`;
  const anySent = sql`exists (select 1 ${rowsOf} and ${deliveries.state} = 'sent')`;
  const failures = sql`(select string_agg(${deliveries.platform} || ': ' || coalesce(${deliveries.lastError}, 'failed'), '; ' order by ${deliveries.id}) ${rowsOf} and ${deliveries.state} = 'failed')`;
  return move(
    db,
    runId,
    ["delivering"],
    {
      state: sql`case when ${anySent} then 'delivered' else 'failed' end::run_state` as unknown as RunState,
      deliveredAt:
        sql`case when ${anySent} then ${at.toISOString()}::timestamptz else null end` as unknown as Date,
      reason:
        sql`case when not ${anySent} then ${failures} when ${failures} is not null then 'partly delivered; ' || ${failures} else ${reason ?? null}::text end` as unknown as string,
    },
    sql`exists (select 1 ${rowsOf}) and not exists (select 1 ${rowsOf} and ${deliveries.state} in ('pending', 'sending'))`,
    at,
  );
}

async function moveDelivery(
  db: Database,
  deliveryId: number,
  from: readonly Delivery["state"][],
  changes: Partial<typeof deliveries.$inferInsert>,
  extra?: SQL,
): Promise<Delivery | undefined> {
  const [row] = await db
    .update(deliveries)
    .set(changes)
    .where(and(eq(deliveries.id, deliveryId), inArray(deliveries.state, [...from]), extra))
    .returning();
  return row;
}

export function beginDeliveryAttempt(
  db: Database,
  deliveryId: number,
  owner: string,
  at: Date,
  target?: string,
): Promise<Delivery | undefined> {
  return moveDelivery(
    db,
    deliveryId,
    ["pending"],
    {
      ...(target !== undefined ? { target } : {}),
      state: "sending",
      sendingAt: at,
      sendingBy: owner,
      attempts: sql`${deliveries.attempts} + 1` as unknown as number,
    },
    sql`${deliveries.nextAttemptAt} <= ${at.toISOString()}::timestamptz`,
  );
}

export async function recordDeliveryProgress(
  db: Database,
  deliveryId: number,
  owner: string,
  progress: unknown,
): Promise<void> {
  await moveDelivery(db, deliveryId, ["sending"], { progress }, eq(deliveries.sendingBy, owner));
}

/** The platform confirmed the post: sent, even if meanwhile judged interrupted (the message exists). */
export function markDelivered(
  db: Database,
  deliveryId: number,
  owner: string,
  receipt: { platformMessageId: string; target: string },
  at: Date,
): Promise<Delivery | undefined> {
  return moveDelivery(
    db,
    deliveryId,
    ["sending", "failed"],
    {
      state: "sent",
      platformMessageId: receipt.platformMessageId,
      target: receipt.target,
      sentAt: at,
      lastError: null,
    },
    eq(deliveries.sendingBy, owner),
  );
}

export function retryDeliveryLater(
  db: Database,
  deliveryId: number,
  owner: string,
  error: string,
  nextAttemptAt: Date,
): Promise<Delivery | undefined> {
  return moveDelivery(
    db,
    deliveryId,
    ["sending"],
    { state: "pending", lastError: error, nextAttemptAt, sendingAt: null, sendingBy: null },
    eq(deliveries.sendingBy, owner),
  );
}

export function failDelivery(
  db: Database,
  deliveryId: number,
  reason: string,
): Promise<Delivery | undefined> {
  return moveDelivery(db, deliveryId, ["pending", "sending"], { state: "failed", lastError: reason });
}

/** Rows left sending by a process that is gone, failed in one statement; the run ids they belong to. */
export async function failInterruptedSends(
  db: Database,
  owner: string,
  at: Date,
  everyOtherOwner: boolean,
): Promise<number[]> {
  const rows = await db
    .update(deliveries)
    .set({ state: "failed", lastError: INTERRUPTED_SEND_REASON })
    .where(
      and(
        eq(deliveries.state, "sending"),
        isNull(deliveries.platformMessageId),
        orphanedBy(deliveries.sendingBy, owner, at, everyOtherOwner),
      ),
    )
    .returning({ runId: deliveries.runId });
  return [...new Set(rows.map((row) => row.runId))];
}

/** Claimed or generating runs whose owner's process is gone. */
export function orphanedRuns(
  db: Database,
  options: { owner: string; at: Date; everyOtherOwner: boolean },
): Promise<BriefingRun[]> {
  return db
    .select()
    .from(briefingRuns)
    .where(
      and(
        inArray(briefingRuns.state, ["claimed", "generating"]),
        orphanedBy(briefingRuns.claimedBy, options.owner, options.at, options.everyOtherOwner),
      ),
    )
    .orderBy(briefingRuns.id);
}
