import { expect, it } from "vitest";
import {
  claimPendingAction,
  createPendingAction,
  expirePendingActions,
  getPendingAction,
} from "../../db/queries/pending-actions.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

describeEachDatabase("pending-action expiry sweep", (getDb) => {
  it("expires only pending actions past their expiry, once, and reports how many", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const at = new Date("2025-06-02T06:00:00Z");
    const action = (summary: string, expiresAt: string) =>
      createPendingAction(db, {
        userId: user.id,
        conversationId: null,
        toolName: "delete_task",
        arguments: { id: 1 },
        summary,
        at,
        expiresAt: new Date(expiresAt),
      });
    const stale = await action("Delete A", "2025-06-02T06:10:00Z");
    const exactlyDue = await action("Delete B", "2025-06-02T06:30:00Z");
    const fresh = await action("Delete C", "2025-06-02T07:00:00Z");
    const confirmed = await action("Delete D", "2025-06-02T06:10:00Z");
    await claimPendingAction(db, confirmed.id, user.id, "confirmed", new Date("2025-06-02T06:05:00Z"));

    const now = new Date("2025-06-02T06:30:00Z");
    expect(await expirePendingActions(db, now)).toBe(2);
    expect(await getPendingAction(db, stale.id)).toMatchObject({ state: "expired", resolvedAt: now });
    expect((await getPendingAction(db, exactlyDue.id))?.state).toBe("expired");
    expect((await getPendingAction(db, fresh.id))?.state).toBe("pending");
    expect((await getPendingAction(db, confirmed.id))?.state).toBe("confirmed");
    // An expired action can no longer be confirmed, and a second sweep finds nothing new.
    expect(await claimPendingAction(db, stale.id, user.id, "confirmed", now)).toBeUndefined();
    expect(await expirePendingActions(db, now)).toBe(0);
  });
});
