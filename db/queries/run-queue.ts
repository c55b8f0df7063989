/**
 * What the scheduler and the outbox read to decide their next step. Reads only: every change is a
 * transition in `run-lifecycle.ts`.
 */
import { and, asc, eq, inArray, lte, notInArray } from "drizzle-orm";
import type { Database } from "../client.ts";
import {
  type BriefingRun,
  briefingRuns,
  type Delivery,
  deliveries,
  type Identity,
  identities,
  type RunState,
  users,
} from "../schema/index.ts";

export function scheduledKey(key: { userId: number; slot: string; localDate: string }): string {
  return `${key.userId}|${key.slot}|${key.localDate}`;
}

export async function scheduledKeys(db: Database, localDates: readonly string[]): Promise<Set<string>> {
  if (localDates.length === 0) return new Set();
  const rows = await db
    .select({ userId: briefingRuns.userId, slot: briefingRuns.slot, localDate: briefingRuns.localDate })
    .from(briefingRuns)
    .where(and(eq(briefingRuns.trigger, "schedule"), inArray(briefingRuns.localDate, [...localDates])));
  return new Set(rows.map(scheduledKey));
}

export function runsInStates(db: Database, states: readonly RunState[]): Promise<BriefingRun[]> {
  return db
    .select()
    .from(briefingRuns)
    .where(inArray(briefingRuns.state, [...states]))
    .orderBy(asc(briefingRuns.id));
}

export interface DueDeliveryRow {
  delivery: Delivery;
  run: BriefingRun;
  recipient: Identity | undefined;
  timeZone: string;
}

/** Pending rows due by `at`, each with its run (the briefing's only copy) and the account it goes to. */
export async function dueDeliveries(
  db: Database,
  options: {
    at: Date;
    platforms: readonly Delivery["platform"][];
    limit: number;
    excludeIds: readonly number[];
  },
): Promise<DueDeliveryRow[]> {
  if (options.platforms.length === 0) return [];
  const rows = await db
    .select({ delivery: deliveries, run: briefingRuns, recipient: identities, timeZone: users.timeZone })
    .from(deliveries)
    .innerJoin(briefingRuns, eq(briefingRuns.id, deliveries.runId))
    .innerJoin(users, eq(users.id, deliveries.userId))
    .leftJoin(identities, eq(identities.id, deliveries.identityId))
    .where(
      and(
        eq(deliveries.state, "pending"),
        lte(deliveries.nextAttemptAt, options.at),
        inArray(deliveries.platform, [...options.platforms]),
        options.excludeIds.length > 0 ? notInArray(deliveries.id, [...options.excludeIds]) : undefined,
      ),
    )
    .orderBy(asc(deliveries.nextAttemptAt), asc(deliveries.id))
    .limit(options.limit);
  return rows.map((row) => ({ ...row, recipient: row.recipient ?? undefined }));
}

export function deliveriesOfRun(db: Database, runId: number): Promise<Delivery[]> {
  return db.select().from(deliveries).where(eq(deliveries.runId, runId)).orderBy(asc(deliveries.id));
}
