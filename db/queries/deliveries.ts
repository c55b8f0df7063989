/**
 * The delivery outbox. A row moves pending → sending → sent | failed (or back to pending for a retry).
 * `sending` is written, with `sendingAt`, before the platform call, so a crash mid-send is visible.
 */
import { and, eq, inArray, isNull, lt, lte, notInArray, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { type Delivery, deliveries, type Identity, identities } from "../schema/index.ts";

export type DeliveryPlatform = Delivery["platform"];

export interface DeliveryTarget {
  platform: DeliveryPlatform;
  target: string;
}

/**
 * Who receives a user's briefings: one linked account per platform (one delivery per platform and run is
 * the outbox key, so the first linked account wins). Where on the platform is the sender's to resolve.
 */
export async function recipientsOf(db: Database, userId: number): Promise<Identity[]> {
  const rows = await db.select().from(identities).where(eq(identities.userId, userId)).orderBy(identities.id);
  const seen = new Set<string>();
  return rows.filter((row) => {
    if (seen.has(row.platform)) return false;
    seen.add(row.platform);
    return true;
  });
}

/** Adds outbox rows for a run; rows that already exist (same run and platform) are left alone. */
export async function enqueueDeliveries(
  db: Database,
  run: { runId: number; userId: number },
  targets: Array<DeliveryTarget & { state?: "pending" | "sent" | "failed"; lastError?: string }>,
  now: Date,
): Promise<void> {
  if (targets.length === 0) return;
  await db
    .insert(deliveries)
    .values(
      targets.map((target) => ({
        runId: run.runId,
        userId: run.userId,
        platform: target.platform,
        target: target.target,
        state: target.state ?? "pending",
        lastError: target.lastError ?? null,
        nextAttemptAt: now,
        sentAt: target.state === "sent" ? now : null,
        createdAt: now,
      })),
    )
    .onConflictDoNothing();
}

/** Due pending deliveries on the given platforms, oldest first, leaving out ids this process already holds. */
export async function dueDeliveries(
  db: Database,
  options: { now: Date; platforms: DeliveryPlatform[]; limit: number; excludeIds?: number[] },
): Promise<Delivery[]> {
  if (options.platforms.length === 0) return [];
  const exclude = options.excludeIds ?? [];
  return db
    .select()
    .from(deliveries)
    .where(
      and(
        eq(deliveries.state, "pending"),
        lte(deliveries.nextAttemptAt, options.now),
        inArray(deliveries.platform, options.platforms),
        exclude.length > 0 ? notInArray(deliveries.id, exclude) : undefined,
      ),
    )
    .orderBy(deliveries.nextAttemptAt, deliveries.id)
    .limit(options.limit);
}

/**
 * Records the attempt just before the platform call: pending → sending, with `sendingAt`. Only one
 * replica's update matches; the others get undefined and must not send.
 */
export async function startDeliveryAttempt(
  db: Database,
  id: number,
  now: Date,
): Promise<Delivery | undefined> {
  const [row] = await db
    .update(deliveries)
    .set({ state: "sending", sendingAt: now, attempts: sql`${deliveries.attempts} + 1` })
    .where(and(eq(deliveries.id, id), eq(deliveries.state, "pending"), lte(deliveries.nextAttemptAt, now)))
    .returning();
  return row;
}

/**
 * The platform confirmed the post; `target` is where it went (the sender's resolved chat or channel).
 * Written whatever the current state: the message exists.
 */
export async function markDeliverySent(
  db: Database,
  id: number,
  sent: { platformMessageId: string; target: string },
  now: Date,
): Promise<void> {
  await db
    .update(deliveries)
    .set({
      state: "sent",
      platformMessageId: sent.platformMessageId,
      target: sent.target,
      sentAt: now,
      lastError: null,
    })
    .where(eq(deliveries.id, id));
}

export async function markDeliveryRetry(
  db: Database,
  id: number,
  error: string,
  nextAttemptAt: Date,
): Promise<void> {
  await db
    .update(deliveries)
    .set({ state: "pending", lastError: error, nextAttemptAt, sendingAt: null })
    .where(and(eq(deliveries.id, id), eq(deliveries.state, "sending")));
}

export async function markDeliveryFailed(db: Database, id: number, error: string): Promise<void> {
  await db
    .update(deliveries)
    .set({ state: "failed", lastError: error })
    .where(and(eq(deliveries.id, id), inArray(deliveries.state, ["pending", "sending"])));
}

export const INTERRUPTED_SEND_REASON = "interrupted mid-send; not re-sent to avoid a duplicate";

/**
 * Deliveries left in `sending` with no message id since before `before`: their process died during the
 * platform call, so nobody knows whether the message went out. They are failed, never re-sent.
 * Returns the affected run ids.
 */
export async function failInterruptedSends(db: Database, before: Date): Promise<number[]> {
  const rows = await db
    .update(deliveries)
    .set({ state: "failed", lastError: INTERRUPTED_SEND_REASON })
    .where(
      and(
        eq(deliveries.state, "sending"),
        isNull(deliveries.platformMessageId),
        lt(deliveries.sendingAt, before),
      ),
    )
    .returning({ runId: deliveries.runId });
  return [...new Set(rows.map((row) => row.runId))];
}

export async function deliveriesOfRun(db: Database, runId: number): Promise<Delivery[]> {
  return db.select().from(deliveries).where(eq(deliveries.runId, runId)).orderBy(deliveries.id);
}

/** Runs that still have deliveries in flight or waiting (for settling runs after a restart). */
export async function runIdsWithOpenDeliveries(db: Database): Promise<number[]> {
  const rows = await db
    .selectDistinct({ runId: deliveries.runId })
    .from(deliveries)
    .where(inArray(deliveries.state, ["pending", "sending"]));
  return rows.map((row) => row.runId);
}

export async function countDeliveriesByState(
  db: Database,
): Promise<Array<{ platform: string; state: string; count: number }>> {
  const rows = await db
    .select({ platform: deliveries.platform, state: deliveries.state, count: sql<number>`count(*)::int` })
    .from(deliveries)
    .groupBy(deliveries.platform, deliveries.state);
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}
