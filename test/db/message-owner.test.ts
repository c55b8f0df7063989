/**
 * PlatformState.messageOwner: whose thread a message is, whoever asks — the owner's name, their account on
 * that platform and the run — so a shared channel can say whose briefing a thread holds.
 */
import { expect, it } from "vitest";
import { linkIdentity } from "../../db/queries/users.ts";
import { briefingRuns } from "../../db/schema/index.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

describeEachDatabase("PlatformState.messageOwner", (getDb) => {
  it("names the owner and their account on the thread's platform, for anyone asking", async () => {
    const db = getDb();
    const state = createDbPorts(db).platformState;
    const user = await createTestUser(db);
    await linkIdentity(db, user.id, { platform: "telegram", externalUserId: `${user.id}0` });
    await linkIdentity(db, user.id, { platform: "slack", externalUserId: `U${user.id}OWNER` });
    const [run] = await db
      .insert(briefingRuns)
      .values({ userId: user.id, slot: "morning", localDate: "2025-06-02", state: "delivered" })
      .returning();
    const key = `slack:C0BRIEFS:${user.id}.000100`;
    await state.linkMessages({
      platform: "slack",
      userId: user.id,
      runId: run?.id ?? null,
      threadKey: key,
      messageKeys: [key],
      at: new Date("2025-06-02T06:00:00Z"),
    });

    expect(await state.messageOwner("slack", key)).toEqual({
      userId: user.id,
      runId: run?.id,
      name: user.name,
      externalUserId: `U${user.id}OWNER`,
    });
    expect(await state.messageOwner("slack", `${key}9`)).toBeUndefined();
    expect(await state.messageOwner("telegram", key)).toBeUndefined();
  });

  it("still names an owner who has no account on the platform any more", async () => {
    const db = getDb();
    const state = createDbPorts(db).platformState;
    const user = await createTestUser(db);
    const key = `slack:C0BRIEFS:${user.id}.000200`;
    await state.linkMessages({
      platform: "slack",
      userId: user.id,
      runId: null,
      threadKey: key,
      messageKeys: [key],
      at: new Date("2025-06-02T06:00:00Z"),
    });
    expect(await state.messageOwner("slack", key)).toEqual({
      userId: user.id,
      runId: null,
      name: user.name,
      externalUserId: undefined,
    });
  });
});
