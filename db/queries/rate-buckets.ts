/**
 * Rate-limit scopes in the database, shared by every process on it: read under row locks, changed by the
 * caller's rule, written back, in one transaction — so two replicas taking from one scope at once take one
 * slot each, never the same one. Instants are milliseconds on the database's own clock.
 */
import { inArray, sql } from "drizzle-orm";
import type { Database } from "../client.ts";
import { rateBuckets } from "../schema/index.ts";

export interface BucketState {
  arrival: number;
  pausedUntil: number;
}

/** What a rule decided: the scopes' new instants (absent ones unchanged), and its answer. */
export interface BucketChange<T> {
  writes: ReadonlyMap<string, Partial<BucketState>>;
  answer: T;
}

export async function changeBuckets<T>(
  db: Database,
  scopes: readonly string[],
  rule: (state: ReadonlyMap<string, BucketState>, now: number) => BucketChange<T>,
): Promise<T> {
  const names = [...new Set(scopes)].sort();
  if (names.length === 0) throw new Error("changeBuckets needs at least one scope");
  return db.transaction(async (tx) => {
    await tx
      .insert(rateBuckets)
      .values(
        names.map((scope) => ({
          scope,
          theoreticalArrival: sql`'-infinity'::timestamptz` as unknown as Date,
        })),
      )
      .onConflictDoNothing();
    // Locked in scope order, so two transactions over overlapping scopes never deadlock.
    const rows = await tx
      .select({
        scope: rateBuckets.scope,
        arrival:
          sql<number>`coalesce(extract(epoch from ${rateBuckets.theoreticalArrival}) * 1000, 0)`.mapWith(
            Number,
          ),
        pausedUntil: sql<number>`coalesce(extract(epoch from ${rateBuckets.pausedUntil}) * 1000, 0)`.mapWith(
          Number,
        ),
        now: sql<number>`extract(epoch from clock_timestamp()) * 1000`.mapWith(Number),
      })
      .from(rateBuckets)
      .where(inArray(rateBuckets.scope, names))
      .orderBy(rateBuckets.scope)
      .for("update");
    const now = rows[0]?.now ?? Date.now();
    const state = new Map(
      rows.map((row) => [row.scope, { arrival: finite(row.arrival), pausedUntil: finite(row.pausedUntil) }]),
    );
    const { writes, answer } = rule(state, now);
    for (const [scope, change] of writes) {
      await tx
        .update(rateBuckets)
        .set({
          ...(change.arrival !== undefined
            ? { theoreticalArrival: sql`to_timestamp(${change.arrival / 1000})` as unknown as Date }
            : {}),
          ...(change.pausedUntil !== undefined
            ? { pausedUntil: sql`to_timestamp(${change.pausedUntil / 1000})` as unknown as Date }
            : {}),
        })
        .where(sql`${rateBuckets.scope} = ${scope}`);
    }
    return answer;
  });
}

/**
 * Deletes the scopes idle for `idleMs` on the database's clock: their arrival and any pause are that far
 * behind, so the row says nothing a missing one (a fresh, full bucket) would not. Rows a sender has locked
 * right now are skipped. Returns how many went.
 */
export async function pruneIdleBuckets(db: Database, idleMs: number): Promise<number> {
  const idleSince = sql`clock_timestamp() - make_interval(secs => ${idleMs / 1000})`;
  const rows = await db
    .delete(rateBuckets)
    .where(
      sql`${rateBuckets.scope} in (select "scope" from "rate_buckets" where "theoretical_arrival" < ${idleSince} and ("paused_until" is null or "paused_until" < ${idleSince}) for update skip locked)`,
    )
    .returning({ scope: rateBuckets.scope });
  return rows.length;
}

/** '-infinity' reads back as -Infinity (or NaN): any instant in the past does. */
function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}
