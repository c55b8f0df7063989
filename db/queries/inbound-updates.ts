/**
 * Updates a poller fetched or a webhook received, from before the platform hears they arrived until they are handled (see
 * `InboundUpdates` in src/core/ports.ts). Each change is one statement guarded by the row's claimer, so
 * when two processes race for an orphan exactly one takes it.
 */
import { and, eq, isNull, lt } from "drizzle-orm";
import type { InboundProgress, InboundUpdate } from "../../src/core/domain.ts";
import type { Database } from "../client.ts";
import { type InboundUpdateRow, inboundUpdates } from "../schema/index.ts";
import { orphanedBy } from "./leases.ts";

/**
 * Oldest first; of one arrival, by id — Telegram's ids are digits growing with each update, so the shorter
 * id is the older one.
 */
export const arrivalOrder = (
  a: { receivedAt: Date; updateId: string },
  b: { receivedAt: Date; updateId: string },
): number =>
  a.receivedAt.getTime() - b.receivedAt.getTime() ||
  a.updateId.length - b.updateId.length ||
  (a.updateId < b.updateId ? -1 : a.updateId > b.updateId ? 1 : 0);

const toUpdate = (row: InboundUpdateRow): InboundUpdate => ({
  updateId: row.updateId,
  payload: row.payload,
  receivedAt: row.receivedAt,
  claimedBy: row.claimedBy,
  handledAt: row.handledAt,
  progress: row.progress,
});

/** Inserts the updates not stored yet, claimed by `owner`; the ids it inserted. */
export async function storeInboundUpdates(
  db: Database,
  source: string,
  updates: readonly { updateId: string; payload: unknown }[],
  owner: string,
  at: Date,
): Promise<string[]> {
  if (updates.length === 0) return [];
  const rows = await db
    .insert(inboundUpdates)
    .values(
      updates.map((update) => ({
        source,
        updateId: update.updateId,
        payload: update.payload,
        receivedAt: at,
        claimedBy: owner,
      })),
    )
    .onConflictDoNothing()
    .returning({ updateId: inboundUpdates.updateId });
  return rows
    .map((row) => ({ updateId: row.updateId, receivedAt: at }))
    .sort(arrivalOrder)
    .map((row) => row.updateId);
}

export function markInboundHandled(
  db: Database,
  source: string,
  updateId: string,
  owner: string,
  at: Date,
): Promise<boolean> {
  return changeUnhandled(db, { source, updateId, owner }, { handledAt: at, payload: null });
}

export function recordInboundProgress(
  db: Database,
  source: string,
  updateId: string,
  owner: string,
  progress: InboundProgress,
): Promise<boolean> {
  return changeUnhandled(db, { source, updateId, owner }, { progress });
}

/** Changes an unhandled update for its claimer only: false when it is handled, or no longer `owner`'s. */
async function changeUnhandled(
  db: Database,
  update: { source: string; updateId: string; owner: string },
  changes: Partial<Pick<InboundUpdateRow, "handledAt" | "payload" | "progress">>,
): Promise<boolean> {
  const rows = await db
    .update(inboundUpdates)
    .set(changes)
    .where(
      and(
        eq(inboundUpdates.source, update.source),
        eq(inboundUpdates.updateId, update.updateId),
        eq(inboundUpdates.claimedBy, update.owner),
        isNull(inboundUpdates.handledAt),
      ),
    )
    .returning({ updateId: inboundUpdates.updateId });
  return rows.length > 0;
}

export async function reclaimInboundOrphans(
  db: Database,
  source: string,
  options: { owner: string; at: Date; everyOtherOwner: boolean },
): Promise<InboundUpdate[]> {
  // PostgreSQL re-checks a row another process changed meanwhile against the new claimer, which is live:
  // of two processes taking the same orphan, the second matches nothing.
  const rows = await db
    .update(inboundUpdates)
    .set({ claimedBy: options.owner })
    .where(
      and(
        eq(inboundUpdates.source, source),
        isNull(inboundUpdates.handledAt),
        orphanedBy(inboundUpdates.claimedBy, options.owner, options.at, options.everyOtherOwner),
      ),
    )
    .returning();
  return rows.map(toUpdate).sort(arrivalOrder);
}

export async function pruneInboundUpdates(db: Database, source: string, before: Date): Promise<number> {
  const rows = await db
    .delete(inboundUpdates)
    .where(and(eq(inboundUpdates.source, source), lt(inboundUpdates.handledAt, before)))
    .returning({ updateId: inboundUpdates.updateId });
  return rows.length;
}
