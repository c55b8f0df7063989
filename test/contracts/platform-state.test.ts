/**
 * The contract of `PlatformState`: what the Telegram and Slack adapters keep between updates (linked
 * accounts, where to deliver, which thread a message belongs to and whose it is, events handled once). Held
 * by the in-memory ports and the database stores.
 */
import { expect, it } from "vitest";
import { describeEachStore, type StoreWorld } from "./harness.ts";

/** A delivered run of the user's, for threads to follow up on. */
async function runOf(world: StoreWorld, userId: number): Promise<{ id: number }> {
  const at = new Date("2025-06-02T06:00:00Z");
  return world.ports.lifecycle.createManual({
    userId,
    slot: "morning",
    localDate: "2025-06-02",
    owner: "a",
    at,
  });
}

describeEachStore("PlatformState", (world) => {
  const state = () => world().ports.platformState;

  it("finds the user behind a linked account, refuses strangers, and remembers the chat", async () => {
    const user = await world().addUser();
    const external = `slack-${user.id}`;
    const identity = await world().linkAccount(user.id, {
      platform: "slack",
      externalUserId: `U${user.id}X`,
    });
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
    const user = await world().addUser();
    const other = await world().addUser();
    const run = await runOf(world(), user.id);
    const at = new Date("2025-06-02T06:00:00Z");
    const root = `t:${user.id}:1`;
    await state().linkMessages({
      platform: "telegram",
      userId: user.id,
      runId: run.id,
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
      runId: run.id,
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
});

describeEachStore("PlatformState.messageOwner", (world) => {
  it("names the owner and their account on the thread's platform, for anyone asking", async () => {
    const state = world().ports.platformState;
    const user = await world().addUser();
    await world().linkAccount(user.id, { platform: "telegram", externalUserId: `${user.id}0` });
    await world().linkAccount(user.id, { platform: "slack", externalUserId: `U${user.id}OWNER` });
    await world().linkAccount(user.id, { platform: "slack", externalUserId: `U${user.id}SECOND` });
    const run = await runOf(world(), user.id);
    const key = `slack:C0BRIEFS:${user.id}.000100`;
    await state.linkMessages({
      platform: "slack",
      userId: user.id,
      runId: run.id,
      threadKey: key,
      messageKeys: [key],
      at: new Date("2025-06-02T06:00:00Z"),
    });

    // The first account linked on that platform.
    expect(await state.messageOwner("slack", key)).toEqual({
      userId: user.id,
      runId: run.id,
      name: user.name,
      externalUserId: `U${user.id}OWNER`,
    });
    expect(await state.messageOwner("slack", `${key}9`)).toBeUndefined();
    expect(await state.messageOwner("telegram", key)).toBeUndefined();
  });

  it("still names an owner who has no account on the platform any more", async () => {
    const state = world().ports.platformState;
    const user = await world().addUser();
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

  it("lists a user's accounts oldest first, and moves an account linked again to its new user", async () => {
    const state = world().ports.platformState;
    const user = await world().addUser();
    const next = await world().addUser();
    const telegram = await world().linkAccount(user.id, {
      platform: "telegram",
      externalUserId: `${user.id}77`,
    });
    const slack = await world().linkAccount(user.id, { platform: "slack", externalUserId: `U${user.id}77` });
    expect((await state.accountsOf(user.id)).map((identity) => identity.id)).toEqual([telegram.id, slack.id]);
    const moved = await world().linkAccount(next.id, { platform: "slack", externalUserId: `U${user.id}77` });
    expect(moved.id).toBe(slack.id);
    expect((await state.accountsOf(user.id)).map((identity) => identity.id)).toEqual([telegram.id]);
    expect((await state.findAccount("slack", `U${user.id}77`))?.user.id).toBe(next.id);
  });
});
