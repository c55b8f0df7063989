/**
 * The scheduler's side of `briefing_runs`: claiming a (user, slot, local date) once, state changes with
 * reasons, and finding runs a restart must pick up. The runner's own writes live in `runs.ts`.
 */
import { and, desc, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import {
  type BriefingRun,
  briefingRuns,
  deliveries,
  messages,
  type RunState,
  type SlotName,
  users,
} from "../schema/index.ts";

export interface ScheduledKey {
  userId: number;
  slot: SlotName;
  localDate: string;
}

/** Keys of scheduled runs that already exist for these local dates, as "user|slot|date". */
export async function existingScheduledKeys(db: Database, localDates: string[]): Promise<Set<string>> {
  if (localDates.length === 0) return new Set();
  const rows = await db
    .select({ userId: briefingRuns.userId, slot: briefingRuns.slot, localDate: briefingRuns.localDate })
    .from(briefingRuns)
    .where(and(eq(briefingRuns.trigger, "schedule"), inArray(briefingRuns.localDate, localDates)));
  return new Set(rows.map(scheduledKey));
}

/** One user's scheduled runs on these local dates (any state), as (slot, local date). */
export async function userScheduledSlots(
  db: Database,
  userId: number,
  localDates: readonly string[],
): Promise<Array<{ slot: SlotName; localDate: string }>> {
  if (localDates.length === 0) return [];
  return db
    .select({ slot: briefingRuns.slot, localDate: briefingRuns.localDate })
    .from(briefingRuns)
    .where(
      and(
        eq(briefingRuns.userId, userId),
        eq(briefingRuns.trigger, "schedule"),
        inArray(briefingRuns.localDate, [...localDates]),
      ),
    );
}

export function scheduledKey(key: ScheduledKey): string {
  return `${key.userId}|${key.slot}|${key.localDate}`;
}

/**
 * Claims a scheduled run, with the instant past which its briefing is not worth sending. The partial unique
 * index on (user, slot, local date) for trigger 'schedule' makes this the single point where replicas and
 * restarts meet: exactly one insert wins, the others get undefined.
 */
export async function claimScheduledRun(
  db: Database,
  key: ScheduledKey & {
    claimedBy: string;
    now: Date;
    notAfter: Date;
    state?: "claimed" | "skipped";
    reason?: string;
  },
): Promise<BriefingRun | undefined> {
  const [run] = await db
    .insert(briefingRuns)
    .values({
      userId: key.userId,
      slot: key.slot,
      localDate: key.localDate,
      trigger: "schedule",
      state: key.state ?? "claimed",
      reason: key.reason ?? null,
      claimedBy: key.claimedBy,
      claimedAt: key.now,
      notAfter: key.notAfter,
      updatedAt: key.now,
    })
    .onConflictDoNothing()
    .returning();
  return run;
}

/**
 * Moves a run to `state` only if it is still in one of `from`, so two workers never both make the same
 * move. Returns the updated run, or undefined when someone else moved it first.
 */
export async function transitionRun(
  db: Database,
  runId: number,
  change: { from: RunState[]; to: RunState; now: Date; reason?: string | null; claimedBy?: string },
): Promise<BriefingRun | undefined> {
  const stamps: Partial<typeof briefingRuns.$inferInsert> = { state: change.to, updatedAt: change.now };
  if (change.reason !== undefined) stamps.reason = change.reason;
  if (change.to === "delivered") stamps.deliveredAt = change.now;
  if (change.claimedBy !== undefined) stamps.claimedBy = change.claimedBy;
  const [run] = await db
    .update(briefingRuns)
    .set(stamps)
    .where(and(eq(briefingRuns.id, runId), inArray(briefingRuns.state, change.from)))
    .returning();
  return run;
}

/**
 * Takes over a run whose generation stalled (its worker died): only if nobody touched it since `before`,
 * so when two replicas try, the first update refreshes `updatedAt` and the second matches nothing.
 */
export async function reclaimStalledRun(
  db: Database,
  runId: number,
  change: { claimedBy: string; now: Date; before: Date },
): Promise<BriefingRun | undefined> {
  const { claimedBy, now } = change;
  const [taken] = await db
    .update(briefingRuns)
    .set({
      state: "claimed",
      claimedBy,
      updatedAt: now,
      reason: "generation restarted after an interruption",
    })
    .where(
      and(
        eq(briefingRuns.id, runId),
        inArray(briefingRuns.state, ["claimed", "generating"]),
        lt(briefingRuns.updatedAt, change.before),
      ),
    )
    .returning();
  return taken;
}

/** Scheduled runs in these states (restart recovery). */
export async function scheduledRunsInStates(db: Database, states: RunState[]): Promise<BriefingRun[]> {
  return db
    .select()
    .from(briefingRuns)
    .where(and(eq(briefingRuns.trigger, "schedule"), inArray(briefingRuns.state, states)))
    .orderBy(briefingRuns.id);
}

/** Scheduled runs stuck in claimed/generating, untouched since `before`. */
export async function stalledGenerations(db: Database, before: Date): Promise<BriefingRun[]> {
  return db
    .select()
    .from(briefingRuns)
    .where(
      and(
        eq(briefingRuns.trigger, "schedule"),
        inArray(briefingRuns.state, ["claimed", "generating"]),
        lt(briefingRuns.updatedAt, before),
      ),
    )
    .orderBy(briefingRuns.id);
}

export async function countRunsByState(
  db: Database,
): Promise<Array<{ state: RunState; trigger: string; count: number }>> {
  const rows = await db
    .select({ state: briefingRuns.state, trigger: briefingRuns.trigger, count: sql<number>`count(*)::int` })
    .from(briefingRuns)
    .groupBy(briefingRuns.state, briefingRuns.trigger);
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}

export interface RunListing {
  run: BriefingRun;
  userName: string;
  timeZone: string;
  deliveries: Array<{
    platform: string;
    target: string;
    state: string;
    attempts: number;
    lastError: string | null;
    platformMessageId: string | null;
    sentAt: Date | null;
  }>;
}

/** Runs newest first, with their deliveries, for `briefbot runs`. */
export async function listRunsWithDeliveries(
  db: Database,
  filter: { userId?: number; localDate?: string; limit?: number },
): Promise<RunListing[]> {
  const conditions = [
    filter.userId !== undefined ? eq(briefingRuns.userId, filter.userId) : undefined,
    filter.localDate !== undefined ? eq(briefingRuns.localDate, filter.localDate) : undefined,
  ].filter((condition) => condition !== undefined);
  const rows = await db
    .select({ run: briefingRuns, userName: users.name, timeZone: users.timeZone })
    .from(briefingRuns)
    .innerJoin(users, eq(users.id, briefingRuns.userId))
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(briefingRuns.claimedAt), desc(briefingRuns.id))
    .limit(filter.limit ?? 50);
  if (rows.length === 0) return [];
  const outbox = await db
    .select()
    .from(deliveries)
    .where(
      inArray(
        deliveries.runId,
        rows.map((row) => row.run.id),
      ),
    )
    .orderBy(deliveries.id);
  return rows.map((row) => ({
    run: row.run,
    userName: row.userName,
    timeZone: row.timeZone,
    deliveries: outbox
      .filter((delivery) => delivery.runId === row.run.id)
      .map((delivery) => ({
        platform: delivery.platform,
        target: delivery.target,
        state: delivery.state,
        attempts: delivery.attempts,
        lastError: delivery.lastError,
        platformMessageId: delivery.platformMessageId,
        sentAt: delivery.sentAt,
      })),
  }));
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
        inArray(briefingRuns.state, ["generated", "delivering", "delivered"]),
      ),
    )
    .orderBy(desc(briefingRuns.id))
    .limit(1);
  return run;
}

/** Tool results stored so far, per tool (briefings and chat alike), for `/metrics`. */
export async function countToolCallsByTool(db: Database): Promise<Array<{ tool: string; count: number }>> {
  const rows = await db
    .select({ tool: messages.toolName, count: sql<number>`count(*)::int` })
    .from(messages)
    .where(eq(messages.role, "tool"))
    .groupBy(messages.toolName);
  return rows.map((row) => ({ tool: row.tool ?? "unknown", count: Number(row.count) }));
}

/** Grounding verdicts by action, with the corrections they made, for `/metrics`. */
export async function groundingTotals(
  db: Database,
): Promise<Array<{ action: string; runs: number; corrections: number; unbacked: number }>> {
  const rows = await db
    .select({
      action: sql<string>`${briefingRuns.grounding}->>'action'`,
      runs: sql<number>`count(*)::int`,
      // A verdict without a count that still changed the prose counts as one correction.
      corrections: sql<number>`coalesce(sum(coalesce((${briefingRuns.grounding}->>'corrections')::int, case when ${briefingRuns.grounding}->>'action' = 'none' then 0 else 1 end)), 0)::int`,
      unbacked: sql<number>`coalesce(sum(jsonb_array_length(coalesce(${briefingRuns.grounding}->'unbacked', '[]'::jsonb))), 0)::int`,
    })
    .from(briefingRuns)
    .where(isNotNull(briefingRuns.grounding))
    .groupBy(sql`${briefingRuns.grounding}->>'action'`);
  return rows.map((row) => ({
    action: row.action ?? "unknown",
    runs: Number(row.runs),
    corrections: Number(row.corrections),
    unbacked: Number(row.unbacked),
  }));
}
