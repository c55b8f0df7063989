/**
 * At-most-once handling of platform events: Slack retries an `event_id` it thinks we missed, and replicas or
 * a restarted process must agree on who handles it, so the claim lives in the database, not in memory.
 */
import { and, eq, lt } from "drizzle-orm";
import type { Database } from "../client.ts";
import { type Platform, processedEvents } from "../schema/index.ts";

/** True when this call claimed the event; false when someone already did. */
export async function claimEvent(
  db: Database,
  platform: Platform,
  eventId: string,
  at: Date,
): Promise<boolean> {
  const claimed = await db
    .insert(processedEvents)
    .values({ platform, eventId, receivedAt: at })
    .onConflictDoNothing()
    .returning({ eventId: processedEvents.eventId });
  return claimed.length > 0;
}

/** Forgets one platform's claims older than `before` (the platform stops retrying long before); how many. */
export async function pruneProcessedEvents(db: Database, platform: Platform, before: Date): Promise<number> {
  const pruned = await db
    .delete(processedEvents)
    .where(and(eq(processedEvents.platform, platform), lt(processedEvents.receivedAt, before)))
    .returning({ eventId: processedEvents.eventId });
  return pruned.length;
}
