/** The one identity gate both adapters pass every platform user through, over the real PlatformState store. */
import { expect, it } from "vitest";
import { linkIdentity } from "../../db/queries/users.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import { identify } from "../../src/core/identity.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

describeEachDatabase("identify", (getDb) => {
  it("knows a linked account, refuses a stranger, and remembers the private chat once", async () => {
    const db = getDb();
    const state = createDbPorts(db).platformState;
    const user = await createTestUser(db);
    const external = `U${user.id}GATE`;
    await linkIdentity(db, user.id, { platform: "slack", externalUserId: external });

    expect(await identify(state, { platform: "slack", externalUserId: `U${user.id}NOBODY` })).toBeUndefined();
    // The same id on the other platform is another account: a stranger there.
    expect(await identify(state, { platform: "telegram", externalUserId: external })).toBeUndefined();

    const first = await identify(state, { platform: "slack", externalUserId: external });
    expect(first).toMatchObject({ user: { id: user.id }, identity: { chatId: null } });

    const withChat = await identify(state, {
      platform: "slack",
      externalUserId: external,
      privateChat: `D${user.id}`,
    });
    expect(withChat?.identity.chatId).toBe(`D${user.id}`);
    expect((await state.findAccount("slack", external))?.identity.chatId).toBe(`D${user.id}`);
    expect((await state.identitiesWithoutChat("slack")).map((row) => row.externalUserId)).not.toContain(
      external,
    );
  });
});
