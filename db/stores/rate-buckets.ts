/** Rate-limit scopes shared by every process on one database (see `queries/rate-buckets.ts`). */
import type { Database } from "../client.ts";
import {
  type BucketChange,
  type BucketState,
  bucketPausedFor,
  changeBuckets,
  holdEmbeddedLease,
  holdSendLease,
  pauseBuckets,
  pruneIdleBuckets,
} from "../queries/rate-buckets.ts";

/** A send lease is PostgreSQL's lock, shared by every replica; on the embedded database, its process's. */
export function createRateBuckets(db: Database, engine: "pglite" | "postgres") {
  return {
    change: <T>(
      scopes: readonly string[],
      rule: (state: ReadonlyMap<string, BucketState>, now: number) => BucketChange<T>,
    ) => changeBuckets(db, scopes, rule),
    /** Maintenance: drops scopes idle for `idleMs` (one per chat ever sent to would pile up otherwise). */
    pruneIdle: (idleMs: number) => pruneIdleBuckets(db, idleMs),
    pause: (scopes: readonly string[], forMs: number) => pauseBuckets(db, scopes, forMs),
    pausedFor: (scope: string) => bucketPausedFor(db, scope),
    hold: (scope: string, forMs: number): Promise<() => Promise<void>> =>
      engine === "postgres" ? holdSendLease(db, scope, forMs) : holdEmbeddedLease(db, scope, forMs),
  };
}
