/**
 * At-most-once handling of Slack events: Slack retries an `event_id` it thinks we missed, and replicas or a
 * restarted process must agree on who handles it, so the claim lives in the database, not in memory.
 */
import { and, eq, lt } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { processedEvents } from "../../db/schema/index.ts";

/** True when this call claimed the event; false when someone already did. */
export async function claimEvent(
  db: Database,
  platform: string,
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

/** Forgets claims older than `before`; Slack stops retrying long before. */
export async function pruneProcessedEvents(db: Database, before: Date): Promise<void> {
  await db
    .delete(processedEvents)
    .where(and(eq(processedEvents.platform, "slack"), lt(processedEvents.receivedAt, before)));
}
