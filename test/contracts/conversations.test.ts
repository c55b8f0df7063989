/**
 * The contract of `Conversations`: one conversation per thread and user, created on first use, remembering
 * the run it follows when it had none. Held by the in-memory ports and the database stores.
 */
import { expect, it } from "vitest";
import { describeEachStore } from "./harness.ts";

const at = new Date("2025-06-02T06:00:00Z");

describeEachStore("conversations", (world) => {
  it("creates a thread's conversation once, and finds it by platform and key", async () => {
    const { conversations } = world().ports;
    const user = await world().addUser();
    const key = `telegram:${user.id}:1`;
    expect(await conversations.find("telegram", key)).toBeUndefined();
    const created = await conversations.findOrCreate({
      userId: user.id,
      platform: "telegram",
      threadKey: key,
      at,
    });
    expect(created).toMatchObject({ userId: user.id, threadKey: key, runId: null, createdAt: at });
    const again = await conversations.findOrCreate({
      userId: user.id,
      platform: "telegram",
      threadKey: key,
      at,
    });
    expect(again.id).toBe(created.id);
    expect((await conversations.find("telegram", key))?.id).toBe(created.id);
    expect(await conversations.find("slack", key)).toBeUndefined();
  });

  it("remembers a run when the conversation had none, and keeps the first one", async () => {
    const { conversations, lifecycle } = world().ports;
    const user = await world().addUser();
    const run = async () =>
      lifecycle.createManual({ userId: user.id, slot: "morning", localDate: "2025-06-02", owner: "a", at });
    const [first, second] = [await run(), await run()];
    const key = `slack:C1:${user.id}.1`;
    await conversations.findOrCreate({ userId: user.id, platform: "slack", threadKey: key, at });
    const linked = await conversations.findOrCreate({
      userId: user.id,
      platform: "slack",
      threadKey: key,
      runId: first.id,
      at,
    });
    expect(linked.runId).toBe(first.id);
    const kept = await conversations.findOrCreate({
      userId: user.id,
      platform: "slack",
      threadKey: key,
      runId: second.id,
      at,
    });
    expect(kept.runId).toBe(first.id);
  });

  it("gives two people in one thread a conversation each", async () => {
    const { conversations } = world().ports;
    const ann = await world().addUser();
    const bob = await world().addUser();
    const key = `slack:C2:${ann.id}.9`;
    const hers = await conversations.findOrCreate({ userId: ann.id, platform: "slack", threadKey: key, at });
    const his = await conversations.findOrCreate({ userId: bob.id, platform: "slack", threadKey: key, at });
    expect(his.id).not.toBe(hers.id);
    expect(his.userId).toBe(bob.id);
    expect(
      (await conversations.findOrCreate({ userId: bob.id, platform: "slack", threadKey: key, at })).id,
    ).toBe(his.id);
    expect((await conversations.find("slack", key))?.userId).toBe(ann.id);
  });
});
