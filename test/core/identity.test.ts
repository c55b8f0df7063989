/** The one identity gate both adapters pass every platform user through, over the real PlatformState store. */
import { expect, it } from "vitest";
import { identify } from "../../src/core/identity.ts";
import { createTestUser, describeInMemory, linkIdentity, portsOf } from "../helpers/test-store.ts";

describeInMemory("identify", (getStore) => {
  it("knows a linked account, refuses a stranger, and remembers the private chat once", async () => {
    const store = getStore();
    const state = portsOf(store).platformState;
    const user = await createTestUser(store);
    const external = `U${user.id}GATE`;
    await linkIdentity(store, user.id, { platform: "slack", externalUserId: external });

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
