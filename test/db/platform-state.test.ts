/**
 * The PlatformState port over the real stores: what the Telegram and Slack adapters will keep between
 * updates (linked accounts, where to deliver, which thread a message belongs to, events handled once).
 */
import { expect, it } from "vitest";
import { linkIdentity } from "../../db/queries/users.ts";
import { briefingRuns } from "../../db/schema/index.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

describeEachDatabase("PlatformState", (getDb) => {
  const state = () => createDbPorts(getDb()).platformState;

  it("finds the user behind a linked account, refuses strangers, and remembers the chat", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const external = `slack-${user.id}`;
    const identity = await linkIdentity(db, user.id, { platform: "slack", externalUserId: `U${user.id}X` });
    expect(await state().findAccount("slack", `U${user.id}X`)).toMatchObject({
      user: { id: user.id, name: user.name },
      identity: { id: identity.id, chatId: null },
    });
    expect(await state().findAccount("slack", external)).toBeUndefined();
    // Same external id on the other platform is another account.
    expect(await state().findAccount("telegram", `U${user.id}X`)).toBeUndefined();

    const waiting = await state().identitiesWithoutChat("slack");
    expect(waiting.map((row) => row.id)).toContain(identity.id);
    await state().rememberChat(identity.id, `D${user.id}`);
    expect((await state().findAccount("slack", `U${user.id}X`))?.identity.chatId).toBe(`D${user.id}`);
    expect((await state().identitiesWithoutChat("slack")).map((row) => row.id)).not.toContain(identity.id);
  });

  it("links a thread's messages to its run and root, for their user only, first link winning", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const other = await createTestUser(db);
    const [run] = await db
      .insert(briefingRuns)
      .values({ userId: user.id, slot: "morning", localDate: "2025-06-02", state: "delivered" })
      .returning();
    const at = new Date("2025-06-02T06:00:00Z");
    const root = `t:${user.id}:1`;
    await state().linkMessages({
      platform: "telegram",
      userId: user.id,
      runId: run!.id,
      threadKey: root,
      messageKeys: [root, `t:${user.id}:2`],
      at,
    });
    await state().linkMessages({
      platform: "telegram",
      userId: user.id,
      runId: null,
      threadKey: `t:${user.id}:9`,
      messageKeys: [`t:${user.id}:2`, `t:${user.id}:3`],
      at,
    });
    expect(await state().findMessage("telegram", `t:${user.id}:2`, user.id)).toEqual({
      userId: user.id,
      runId: run!.id,
      threadKey: root,
    });
    expect(await state().findMessage("telegram", `t:${user.id}:3`, user.id)).toEqual({
      userId: user.id,
      runId: null,
      threadKey: `t:${user.id}:9`,
    });
    // Another user replying to the same message learns nothing; neither does another platform.
    expect(await state().findMessage("telegram", root, other.id)).toBeUndefined();
    expect(await state().findMessage("slack", root, user.id)).toBeUndefined();
    await state().linkMessages({
      platform: "slack",
      userId: user.id,
      runId: null,
      threadKey: "x",
      messageKeys: [],
      at,
    });
  });

  it("claims an event once, and forgets old claims of one platform only", async () => {
    const eventId = `Ev${Date.now()}${Math.random()}`;
    const old = new Date("2025-06-01T00:00:00Z");
    expect(await state().claimEvent("slack", eventId, old)).toBe(true);
    expect(await state().claimEvent("slack", eventId, new Date())).toBe(false);
    expect(await state().claimEvent("telegram", eventId, old)).toBe(true);
    expect(await state().pruneEvents("slack", new Date("2025-06-02T00:00:00Z"))).toBeGreaterThanOrEqual(1);
    expect(await state().claimEvent("slack", eventId, new Date())).toBe(true);
    expect(await state().claimEvent("telegram", eventId, new Date())).toBe(false);
  });
});
