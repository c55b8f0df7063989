import { and, eq, gt, lte } from "drizzle-orm";
import type { Database } from "../client.ts";
import { type PendingAction, pendingActions } from "../schema/index.ts";

export async function createPendingAction(
  db: Database,
  values: {
    kind?: "confirm" | "undo";
    userId: number;
    conversationId: number | null;
    toolName: string;
    arguments: Record<string, unknown>;
    summary: string;
    at: Date;
    expiresAt: Date;
  },
): Promise<PendingAction> {
  const [row] = await db
    .insert(pendingActions)
    .values({
      kind: values.kind ?? "confirm",
      userId: values.userId,
      conversationId: values.conversationId,
      toolName: values.toolName,
      arguments: values.arguments,
      summary: values.summary,
      createdAt: values.at,
      expiresAt: values.expiresAt,
    })
    .returning();
  if (!row) throw new Error("pending action insert returned nothing");
  return row;
}

export async function getPendingAction(db: Database, id: number): Promise<PendingAction | undefined> {
  const [row] = await db.select().from(pendingActions).where(eq(pendingActions.id, id)).limit(1);
  return row;
}

/**
 * Takes a pending action out of "pending" for its owner, before expiry, exactly once: two presses of the
 * button (or two replicas) cannot both run it.
 */
export async function claimPendingAction(
  db: Database,
  id: number,
  userId: number,
  state: "confirmed" | "cancelled",
  at: Date,
): Promise<PendingAction | undefined> {
  const [row] = await db
    .update(pendingActions)
    .set({ state, resolvedAt: at })
    .where(
      and(
        eq(pendingActions.id, id),
        eq(pendingActions.userId, userId),
        eq(pendingActions.state, "pending"),
        gt(pendingActions.expiresAt, at),
      ),
    )
    .returning();
  return row;
}

export async function expirePendingAction(db: Database, id: number, at: Date): Promise<void> {
  await db
    .update(pendingActions)
    .set({ state: "expired", resolvedAt: at })
    .where(
      and(eq(pendingActions.id, id), eq(pendingActions.state, "pending"), lte(pendingActions.expiresAt, at)),
    );
}

export async function recordPendingResult(db: Database, id: number, result: string): Promise<void> {
  await db.update(pendingActions).set({ result }).where(eq(pendingActions.id, id));
}

/**
 * Marks every pending action past its expiry as expired, so abandoned confirmations do not sit in
 * "pending" forever; returns how many. Meant to be called periodically.
 */
export async function expirePendingActions(db: Database, now: Date): Promise<number> {
  const expired = await db
    .update(pendingActions)
    .set({ state: "expired", resolvedAt: now })
    .where(and(eq(pendingActions.state, "pending"), lte(pendingActions.expiresAt, now)))
    .returning({ id: pendingActions.id });
  return expired.length;
}
