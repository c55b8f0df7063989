/** Rate-limit scopes shared by every process on one database (see `queries/rate-buckets.ts`). */
import type { Database } from "../client.ts";
import { type BucketChange, type BucketState, changeBuckets } from "../queries/rate-buckets.ts";

export function createRateBuckets(db: Database) {
  return {
    change: <T>(
      scopes: readonly string[],
      rule: (state: ReadonlyMap<string, BucketState>, now: number) => BucketChange<T>,
    ) => changeBuckets(db, scopes, rule),
  };
}
