/**
 * Reads of `briefing_runs` for people and metrics: `briefbot runs`, a user's scheduled slots, counts by
 * state. Every change to a run is a transition in `run-lifecycle.ts`.
 */
import { and, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
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
    target: string | null;
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
