/** Rate-limit scopes shared by every process on one database (see `queries/rate-buckets.ts`). */
import type { Database } from "../client.ts";
import {
  type BucketChange,
  type BucketState,
  bucketPausedFor,
  changeBuckets,
  pauseBuckets,
} from "../queries/rate-buckets.ts";

export function createRateBuckets(db: Database) {
  return {
    change: <T>(
      scopes: readonly string[],
      rule: (state: ReadonlyMap<string, BucketState>, now: number) => BucketChange<T>,
    ) => changeBuckets(db, scopes, rule),
    pause: (scopes: readonly string[], forMs: number) => pauseBuckets(db, scopes, forMs),
    pausedFor: (scope: string) => bucketPausedFor(db, scope),
  };
}
