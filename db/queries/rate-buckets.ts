/**
 * Rate-limit scopes in the database, shared by every process on it: read under row locks, changed by the
 * caller's rule, written back, in one transaction — so two replicas taking from one scope at once take one
 * slot each, never the same one. Instants are milliseconds on the database's own clock.
 *
 * A scope's pause (a 429's `retry_after`) lives in a row of its own, `pause:<scope>`, that nobody locks: a
 * pause is one upsert that only ever lengthens it, and takes read it without a lock. On the scope's own
 * row a pause would queue behind every replica's takes for that row's lock — a second and more in a rush,
 * while the other replicas kept sending into the pause (the three-replica test saw exactly that).
 *
 * A scope's send lease is a transaction-level advisory lock, held by an open transaction for as long as
 * the request it covers is out: no row, nothing to clean up, and a holder that dies (kill -9, a dropped
 * connection) lets go the moment PostgreSQL sees its connection close.
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
        now: sql<number>`extract(epoch from clock_timestamp()) * 1000`.mapWith(Number),
      })
      .from(rateBuckets)
      .where(inArray(rateBuckets.scope, names))
      .orderBy(rateBuckets.scope)
      .for("update");
    // Read after the locks were granted, so a pause committed while this waited for them is seen.
    const pauses = await tx
      .select({
        scope: rateBuckets.scope,
        pausedUntil: sql<number>`coalesce(extract(epoch from ${rateBuckets.pausedUntil}) * 1000, 0)`.mapWith(
          Number,
        ),
      })
      .from(rateBuckets)
      .where(inArray(rateBuckets.scope, names.map(pauseRow)));
    const now = rows[0]?.now ?? Date.now();
    const pausedUntil = new Map(pauses.map((row) => [row.scope, finite(row.pausedUntil)]));
    const state = new Map(
      rows.map((row) => [
        row.scope,
        { arrival: finite(row.arrival), pausedUntil: pausedUntil.get(pauseRow(row.scope)) ?? 0 },
      ]),
    );
    const { writes, answer } = rule(state, now);
    for (const [scope, change] of writes) {
      if (change.arrival !== undefined) {
        await tx
          .update(rateBuckets)
          .set({ theoreticalArrival: sql`to_timestamp(${change.arrival / 1000})` as unknown as Date })
          .where(sql`${rateBuckets.scope} = ${scope}`);
      }
      if (change.pausedUntil !== undefined) await lengthenPauses(tx, [scope], change.pausedUntil);
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

/** No send to any of `scopes` for `forMs` from now, in one statement that waits for no take's lock. */
export async function pauseBuckets(db: Database, scopes: readonly string[], forMs: number): Promise<void> {
  if (scopes.length === 0) return;
  await lengthenPauses(db, scopes, sql`extract(epoch from clock_timestamp()) * 1000 + ${forMs}`);
}

/** Milliseconds left of the scope's pause (0 when there is none), read without a lock. */
export async function bucketPausedFor(db: Database, scope: string): Promise<number> {
  const [row] = await db
    .select({
      left: sql<number>`greatest(0, extract(epoch from ${rateBuckets.pausedUntil} - clock_timestamp()) * 1000)`.mapWith(
        Number,
      ),
    })
    .from(rateBuckets)
    .where(sql`${rateBuckets.scope} = ${pauseRow(scope)}`);
  return row ? finite(row.left) : 0;
}

const pauseRow = (scope: string) => `pause:${scope}`;

/**
 * The lease on the embedded database: one process owns it, so a queue per scope in this process, kept
 * with the database object (every store over it shares the queue). A held transaction would stall every
 * other query instead: PGlite runs one at a time.
 */
export function holdEmbeddedLease(db: Database, scope: string, forMs: number): Promise<() => Promise<void>> {
  const queues = embeddedQueues.get(db) ?? new Map<string, Promise<void>>();
  embeddedQueues.set(db, queues);
  const before = queues.get(scope) ?? Promise.resolve();
  let letGo: () => void = () => {};
  const mine = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const tail = before.then(() => mine);
  queues.set(scope, tail);
  return before.then(() => {
    const bound = setTimeout(letGo, forMs);
    bound.unref?.();
    return async () => {
      clearTimeout(bound);
      letGo();
      if (queues.get(scope) === tail) queues.delete(scope);
    };
  });
}

const embeddedQueues = new WeakMap<Database, Map<string, Promise<void>>>();

/** A frozen holder (SIGSTOP, a hung event loop) is cut off by the server this long after its own bound. */
const FROZEN_HOLDER_GRACE_MS = 5_000;

/**
 * Waits for the scope's lease among every connection to the database and holds it until the returned
 * release is called or `forMs` has passed. The wait is PostgreSQL's lock queue: first come, first served,
 * no polling. Holding it keeps one pooled connection, idle in its transaction; the server ends that
 * transaction itself if the holder goes quiet for `forMs` and a grace (a stopped process).
 */
export function holdSendLease(db: Database, scope: string, forMs: number): Promise<() => Promise<void>> {
  return new Promise((granted, failed) => {
    let letGo: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let held = false;
    const transaction = db.transaction(async (tx) => {
      await tx.execute(
        sql`select set_config('idle_in_transaction_session_timeout', ${String(Math.ceil(forMs + FROZEN_HOLDER_GRACE_MS))}, true), pg_advisory_xact_lock(hashtextextended(${`send-lease:${scope}`}, 0))`,
      );
      held = true;
      granted(async () => {
        letGo();
        await transaction.catch(() => undefined);
      });
      const bound = setTimeout(letGo, forMs);
      await released;
      clearTimeout(bound);
    });
    transaction.catch((error: unknown) => {
      if (!held) failed(error);
    });
  });
}

/** Upserts the pause rows (sorted, so two pausers never deadlock), keeping the later instant. */
async function lengthenPauses(
  db: Pick<Database, "insert">,
  scopes: readonly string[],
  untilMs: number | ReturnType<typeof sql>,
): Promise<void> {
  const until = sql`to_timestamp((${untilMs})::double precision / 1000)` as unknown as Date;
  await db
    .insert(rateBuckets)
    .values(
      [...new Set(scopes)].sort().map((scope) => ({
        scope: pauseRow(scope),
        theoreticalArrival: sql`'-infinity'::timestamptz` as unknown as Date,
        pausedUntil: until,
      })),
    )
    .onConflictDoUpdate({
      target: rateBuckets.scope,
      set: { pausedUntil: sql`greatest(${rateBuckets.pausedUntil}, excluded.paused_until)` },
    });
}

/** '-infinity' reads back as -Infinity (or NaN): any instant in the past does. */
function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}
