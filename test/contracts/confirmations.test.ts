/**
 * The contract of `Confirmations`: a pending action is taken out of "pending" once, by its owner, before it
 * expires; expiry happens only once it is due. Held by the in-memory ports and the database stores.
 */
import { expect, it } from "vitest";
import { describeEachStore } from "./harness.ts";

const at = new Date("2025-06-02T06:00:00Z");
const minutes = (count: number) => new Date(at.getTime() + count * 60_000);

describeEachStore("confirmations", (world) => {
  async function pending(kind?: "confirm" | "undo") {
    const { confirmations } = world().ports;
    const user = await world().addUser();
    const action = await confirmations.create({
      ...(kind ? { kind } : {}),
      userId: user.id,
      conversationId: null,
      toolName: "delete_task",
      arguments: { id: 7 },
      summary: "Delete task 7",
      at,
      expiresAt: minutes(30),
    });
    return { user, action, confirmations };
  }

  it("stores an action as pending, a confirm unless it is an undo", async () => {
    const { action, confirmations } = await pending();
    expect(action).toMatchObject({
      kind: "confirm",
      state: "pending",
      toolName: "delete_task",
      arguments: { id: 7 },
      result: null,
      resolvedAt: null,
      createdAt: at,
      expiresAt: minutes(30),
    });
    expect(await confirmations.get(action.id)).toMatchObject({ id: action.id, summary: "Delete task 7" });
    expect(await confirmations.get(action.id + 10_000)).toBeUndefined();
    expect((await pending("undo")).action.kind).toBe("undo");
  });

  it("lets its owner claim it once, before it expires", async () => {
    const { user, action, confirmations } = await pending();
    const stranger = await world().addUser();
    expect(await confirmations.claim(action.id, stranger.id, "confirmed", minutes(1))).toBeUndefined();
    const presses = await Promise.all([
      confirmations.claim(action.id, user.id, "confirmed", minutes(1)),
      confirmations.claim(action.id, user.id, "cancelled", minutes(1)),
    ]);
    expect(presses.filter(Boolean)).toHaveLength(1);
    expect(presses.find(Boolean)).toMatchObject({ resolvedAt: minutes(1) });
    await confirmations.recordResult(action.id, "Deleted task 7");
    expect(await confirmations.get(action.id)).toMatchObject({ result: "Deleted task 7" });
    // Settled: expiry leaves it alone.
    await confirmations.expire(action.id, minutes(31));
    expect((await confirmations.get(action.id))?.state).not.toBe("expired");
  });

  it("cannot be claimed at or after its expiry, and expires only once due", async () => {
    const { user, action, confirmations } = await pending();
    await confirmations.expire(action.id, minutes(29));
    expect((await confirmations.get(action.id))?.state).toBe("pending");
    expect(await confirmations.claim(action.id, user.id, "confirmed", minutes(30))).toBeUndefined();
    await confirmations.expire(action.id, minutes(30));
    expect(await confirmations.get(action.id)).toMatchObject({ state: "expired", resolvedAt: minutes(30) });
    expect(await confirmations.claim(action.id, user.id, "confirmed", minutes(20))).toBeUndefined();
  });
});
