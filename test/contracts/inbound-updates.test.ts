/**
 * The contract of `InboundUpdates`: updates a long poller fetched are stored once per (source, update id),
 * claimed by the process that stored them, handled once by their claimer, taken over by exactly one
 * process once the claimer's lease lapses (or, on the embedded database, from any other owner), and
 * forgotten a while after they were handled. Held by the in-memory ports and the database stores.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { describeEachStore } from "./harness.ts";

const at = new Date("2025-06-02T06:00:00Z");
const later = (ms: number) => new Date(at.getTime() + ms);
const fresh = (name: string) => `${name}-${randomBytes(3).toString("hex")}`;
const update = (updateId: number, text = `message ${updateId}`) => ({
  updateId: String(updateId),
  payload: { update_id: updateId, message: { text } },
});

describeEachStore("InboundUpdates", (world) => {
  const updates = () => world().ports.inboundUpdates;
  const leases = () => world().ports.leases;

  it("stores each update once, claimed by the process that stored it first", async () => {
    const source = fresh("telegram:a");
    expect(await updates().store(source, [update(12), update(11)], "p1", at)).toEqual(["11", "12"]);
    // Fetched again by another process (the offset was not confirmed): only the new one is its.
    expect(await updates().store(source, [update(12, "again"), update(13)], "p2", at)).toEqual(["13"]);
    expect(await updates().store(source, [], "p2", at)).toEqual([]);
    // Another bot's update 11 is another update.
    expect(await updates().store(fresh("telegram:b"), [update(11)], "p2", at)).toEqual(["11"]);

    await leases().acquire("process:p3", "p3", 20_000, at);
    const taken = await updates().reclaimOrphans(source, { owner: "p3", at, everyOtherOwner: true });
    expect(taken.map((row) => [row.updateId, row.claimedBy, row.payload])).toEqual([
      ["11", "p3", update(11).payload],
      ["12", "p3", update(12).payload],
      ["13", "p3", update(13).payload],
    ]);
    expect(taken[0]?.receivedAt).toEqual(at);
    expect(taken[0]?.handledAt).toBeNull();
    expect(taken[0]?.progress).toBeNull();
  });

  it("lets only the claimer mark an update handled, once", async () => {
    const source = fresh("telegram");
    await updates().store(source, [update(1)], "p1", at);
    expect(await updates().markHandled(source, "1", "p2", later(1000))).toBe(false);
    expect(await updates().markHandled(source, "1", "p1", later(1000))).toBe(true);
    expect(await updates().markHandled(source, "1", "p1", later(2000))).toBe(false);
    expect(await updates().markHandled(source, "99", "p1", later(2000))).toBe(false);
    // Handled, it is no one's to take over, even from a process that is gone.
    expect(
      await updates().reclaimOrphans(source, { owner: "p9", at: later(3000), everyOtherOwner: true }),
    ).toEqual([]);
    // And stored again (fetched once more), it is known: nobody handles it a second time.
    expect(await updates().store(source, [update(1)], "p2", later(4000))).toEqual([]);
  });

  it("keeps what the claimer posted, from the claimer only, and hands it to whoever takes the update over", async () => {
    const source = fresh("slack:T0TEAM");
    const dying = fresh("dying");
    await updates().store(source, [update(1), update(2), update(3)], dying, at);
    const thinking = { placeholder: "1717000000.000100", posted: [] };
    expect(await updates().recordProgress(source, "1", dying, thinking)).toBe(true);
    // Not its claimer: another process cannot write over what the claimer posted.
    expect(await updates().recordProgress(source, "1", "p2", { posted: ["9"] })).toBe(false);
    const answered = { placeholder: "41", posted: ["41", "42"] };
    expect(await updates().recordProgress(source, "2", dying, { placeholder: "41", posted: [] })).toBe(true);
    // The later record replaces the earlier one.
    expect(await updates().recordProgress(source, "2", dying, answered)).toBe(true);
    expect(await updates().recordProgress(source, "99", dying, answered)).toBe(false);
    await updates().markHandled(source, "3", dying, later(1000));
    // Handled, there is nothing left to hand over.
    expect(await updates().recordProgress(source, "3", dying, answered)).toBe(false);

    const taken = await updates().reclaimOrphans(source, {
      owner: "p3",
      at: later(2000),
      everyOtherOwner: true,
    });
    expect(taken.map((row) => [row.updateId, row.progress])).toEqual([
      ["1", thinking],
      ["2", answered],
    ]);
    // Taken over, the update's progress is its new claimer's to write; the one that died can write no more.
    expect(await updates().recordProgress(source, "1", dying, { posted: ["7"] })).toBe(false);
    expect(
      await updates().recordProgress(source, "1", "p3", { ...thinking, posted: ["1717000000.000100"] }),
    ).toBe(true);
    const again = await updates().reclaimOrphans(source, {
      owner: "p4",
      at: later(3000),
      everyOtherOwner: true,
    });
    expect(again.find((row) => row.updateId === "1")?.progress).toEqual({
      placeholder: "1717000000.000100",
      posted: ["1717000000.000100"],
    });
  });

  it("hands a gone process's unhandled updates to exactly one live process", async () => {
    const source = fresh("telegram");
    const dying = fresh("dying");
    const live = fresh("live");
    await leases().acquire(`process:${dying}`, dying, 20_000, at);
    await leases().acquire(`process:${live}`, live, 60_000, at);
    await updates().store(source, [update(7), update(5), update(6)], dying, at);
    await updates().markHandled(source, "6", dying, later(1000));
    await updates().store(source, [update(8)], live, at);

    const options = (owner: string, ms: number) => ({ owner, at: later(ms), everyOtherOwner: false });
    // While the claimer's lease lives, its updates are its own.
    expect(await updates().reclaimOrphans(source, options(live, 10_000))).toEqual([]);
    const taken = await updates().reclaimOrphans(source, options(live, 30_000));
    expect(taken.map((row) => [row.updateId, row.claimedBy])).toEqual([
      ["5", live],
      ["7", live],
    ]);
    // A third process finds them taken by a live one, and the process that woke up late cannot finish them.
    const third = fresh("third");
    await leases().acquire(`process:${third}`, third, 60_000, later(30_000));
    expect(await updates().reclaimOrphans(source, options(third, 31_000))).toEqual([]);
    expect(await updates().markHandled(source, "5", dying, later(32_000))).toBe(false);
    expect(await updates().markHandled(source, "5", live, later(32_000))).toBe(true);
  });

  it("never hands a process its own updates back, even when its lease lapsed while it stalled", async () => {
    const source = fresh("telegram");
    const stalled = fresh("stalled");
    await leases().acquire(`process:${stalled}`, stalled, 20_000, at);
    await updates().store(source, [update(1)], stalled, at);
    // Still answering update 1 when its next check runs, 30 s on: a second answer would go beside the first.
    expect(
      await updates().reclaimOrphans(source, { owner: stalled, at: later(30_000), everyOtherOwner: false }),
    ).toEqual([]);
    expect(await updates().markHandled(source, "1", stalled, later(31_000))).toBe(true);
  });

  it("on the embedded database takes every other owner's unhandled updates, live lease or not", async () => {
    const source = fresh("telegram");
    const earlier = fresh("earlier");
    await leases().acquire(`process:${earlier}`, earlier, 600_000, at);
    await updates().store(source, [update(1)], earlier, at);
    await updates().store(source, [update(2)], "me", at);
    const taken = await updates().reclaimOrphans(source, { owner: "me", at, everyOtherOwner: true });
    expect(taken.map((row) => [row.updateId, row.claimedBy])).toEqual([["1", "me"]]);
  });

  it("forgets updates handled before a given time, and keeps unhandled ones", async () => {
    const source = fresh("telegram");
    const other = fresh("telegram");
    await updates().store(source, [update(1), update(2), update(3)], "p1", at);
    await updates().store(other, [update(1)], "p1", at);
    await updates().markHandled(source, "1", "p1", later(1000));
    await updates().markHandled(source, "2", "p1", later(5000));
    await updates().markHandled(other, "1", "p1", later(1000));
    expect(await updates().prune(source, later(2000))).toBe(1);
    expect(await updates().prune(source, later(2000))).toBe(0);
    expect(await updates().prune(source, later(10_000))).toBe(1);
    // Update 3 was never handled: it stays, for whoever takes it over.
    const left = await updates().reclaimOrphans(source, { owner: "p2", at, everyOtherOwner: true });
    expect(left.map((row) => row.updateId)).toEqual(["3"]);
    // The other source's handled row is still there: fetched again, it is known.
    expect(await updates().store(other, [update(1)], "p2", at)).toEqual([]);
  });

  it("keeps Slack's ids (event_id, trigger_id) as they are, and knows a retried one", async () => {
    const source = fresh("slack:T0TEAM");
    const event = { updateId: "Ev0PV52K25", payload: { event_id: "Ev0PV52K25", event: { text: "hi" } } };
    const press = {
      updateId: "13345224609.738474920.8088930838d88f008e0",
      payload: { type: "block_actions" },
    };
    expect(await updates().store(source, [event, press], "p1", at)).toEqual([event.updateId, press.updateId]);
    // Slack's retry of the event (X-Slack-Retry-Num: 1), reaching another replica.
    expect(await updates().store(source, [event], "p2", later(3000))).toEqual([]);
    expect(await updates().markHandled(source, event.updateId, "p1", later(4000))).toBe(true);
    const left = await updates().reclaimOrphans(source, {
      owner: "p3",
      at: later(5000),
      everyOtherOwner: true,
    });
    expect(left.map((row) => [row.updateId, row.payload])).toEqual([[press.updateId, press.payload]]);
  });

  it("hands orphans back oldest first: by arrival, then by Telegram's growing ids", async () => {
    const source = fresh("telegram");
    await updates().store(source, [update(1000), update(999)], "gone", at);
    await updates().store(source, [update(998)], "gone", later(1000));
    const taken = await updates().reclaimOrphans(source, { owner: "me", at, everyOtherOwner: true });
    expect(taken.map((row) => row.updateId)).toEqual(["999", "1000", "998"]);
  });

  it("gives each orphan to exactly one of two processes reclaiming at the same moment", async () => {
    const source = fresh("telegram");
    const ids = Array.from({ length: 40 }, (_, index) => index + 1);
    await updates().store(
      source,
      ids.map((id) => update(id)),
      fresh("gone"),
      at,
    );
    const [first, second] = await Promise.all(
      ["r1", "r2"].map(async (owner) => {
        await leases().acquire(`process:${owner}`, owner, 60_000, later(30_000));
        return updates().reclaimOrphans(source, { owner, at: later(30_000), everyOtherOwner: false });
      }),
    );
    const taken = [...(first ?? []), ...(second ?? [])].map((row) => row.updateId);
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.sort((a, b) => Number(a) - Number(b))).toEqual(ids.map(String));
  });
});
