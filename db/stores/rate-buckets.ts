/** Rate-limit scopes shared by every process on one database (see `queries/rate-buckets.ts`). */
import type { Database } from "../client.ts";
import {
  type BucketChange,
  type BucketState,
  bucketPausedFor,
  changeBuckets,
  pauseBuckets,
  pruneIdleBuckets,
} from "../queries/rate-buckets.ts";

export function createRateBuckets(db: Database) {
  return {
    change: <T>(
      scopes: readonly string[],
      rule: (state: ReadonlyMap<string, BucketState>, now: number) => BucketChange<T>,
    ) => changeBuckets(db, scopes, rule),
    /** Maintenance: drops scopes idle for `idleMs` (one per chat ever sent to would pile up otherwise). */
    pruneIdle: (idleMs: number) => pruneIdleBuckets(db, idleMs),
    pause: (scopes: readonly string[], forMs: number) => pauseBuckets(db, scopes, forMs),
    pausedFor: (scope: string) => bucketPausedFor(db, scope),
  };
}
