/**
 * The contract of `UserData`: one user's rows read table by table, and removed with the user, counted by
 * table, leaving everyone else's. (`test/db/user-data.test.ts` checks every table of the database's
 * catalog.) Held by the in-memory ports and the database stores.
 */
import { expect, it } from "vitest";
import type { Ports } from "../../src/core/ports.ts";
import { describeEachStore } from "./harness.ts";

const at = new Date("2025-06-02T06:00:00Z");

describeEachStore("user data", (world) => {
  async function seeded(ports: Ports) {
    const user = await world().addUser();
    await world().linkAccount(user.id, { platform: "telegram", externalUserId: `${user.id}5150` });
    await ports.records.createTask({ userId: user.id, title: "Renew passport" });
    await ports.records.createTask({ userId: user.id, title: "File expenses" });
    await ports.records.createNote({ userId: user.id, body: "Ring mum", createdAt: at });
    const run = await ports.lifecycle.createManual({
      userId: user.id,
      slot: "morning",
      localDate: "2025-06-02",
      owner: "a",
      at,
    });
    const thread = await ports.conversations.findOrCreate({
      userId: user.id,
      platform: "cli",
      threadKey: `cli:${user.id}`,
      at,
    });
    await ports.receipts.append([
      {
        userId: user.id,
        conversationId: thread.id,
        runId: run.id,
        role: "user",
        content: "hi",
        metadata: {},
        createdAt: at,
      },
    ]);
    await ports.invites.issue({
      userId: user.id,
      code: `C${user.id}${Math.random()}`,
      createdAt: at,
      expiresAt: at,
    });
    return user;
  }

  it("reads only the user's rows, without the hash of an invite", async () => {
    const { ports } = world();
    const user = await seeded(ports);
    const other = await seeded(ports);
    const data = await ports.userData.read(user.id);
    expect(data?.user).toMatchObject({ id: user.id, name: user.name });
    expect(data?.tasks.map((task) => task.title)).toEqual(["Renew passport", "File expenses"]);
    expect(data?.identities).toHaveLength(1);
    expect(data?.runs).toHaveLength(1);
    expect(data?.messages).toEqual([expect.objectContaining({ content: "hi", userId: user.id })]);
    expect(data?.invites).toHaveLength(1);
    expect(data?.invites[0]).not.toHaveProperty("codeHash");
    expect(JSON.stringify(data)).not.toContain(other.name);
    expect(await ports.userData.read(987_654)).toBeUndefined();
  });

  it("removes the user's rows, counted by table, and nobody else's", async () => {
    const { ports } = world();
    const user = await seeded(ports);
    const other = await seeded(ports);
    const counts = await ports.userData.remove(user.id);
    expect(counts).toMatchObject({
      users: 1,
      identities: 1,
      tasks: 2,
      notes: 1,
      briefing_runs: 1,
      conversations: 1,
      messages: 1,
      invites: 1,
      deliveries: 0,
      link_attempts: 0,
    });
    expect(await ports.users.get(user.id)).toBeUndefined();
    expect(await ports.userData.read(user.id)).toBeUndefined();
    expect((await ports.userData.read(other.id))?.tasks).toHaveLength(2);
    expect(await ports.userData.remove(user.id)).toEqual({});
  });
});
