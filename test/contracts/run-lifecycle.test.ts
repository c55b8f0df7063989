/**
 * The contract of `RunLifecycle`, `RunQueue` and `Leases`: every transition moves a run (or an outbox row)
 * only from the states it leaves and only for its owner, so of two processes racing exactly one moves it;
 * leases lapse on the caller's clock. Held by the in-memory ports and by the database stores on PGlite and
 * PostgreSQL; on a database the races run their statements at once.
 */
import { expect, it } from "vitest";
import type { RunResult, SlotClaim } from "../../src/core/domain.ts";
import { describeEachStore } from "./harness.ts";

const at = new Date("2025-06-02T06:00:00Z");
const later = (seconds: number) => new Date(at.getTime() + seconds * 1000);
const result: RunResult = {
  mode: "agentic",
  route: "briefing",
  endpoint: "default",
  model: "qwen2.5:7b",
  turns: 2,
  toolCalls: 4,
  promptTokens: 900,
  evalTokens: 120,
  timings: { totalMs: 12 },
  grounding: { claimsChecked: 3, unbacked: [], action: "none" },
  prose: "Morning.",
  checks: [{ label: "checked calendar", ok: true }],
  reason: null,
};

describeEachStore("the run lifecycle", (world) => {
  const ports = () => {
    const { ports, linkAccount } = world();
    return {
      lifecycle: ports.lifecycle,
      queue: ports.runQueue,
      leases: ports.leases,
      receipts: ports.receipts,
      runs: ports.runs,
      linkAccount,
    };
  };
  async function slotOf(localDate = "2025-06-02"): Promise<SlotClaim> {
    const user = await world().addUser();
    return { userId: user.id, slot: "morning", localDate, notAfter: later(5400) };
  }

  it("claims a slot once, and records a missed one only when nothing claimed it", async () => {
    const { lifecycle, queue } = ports();
    const slot = await slotOf();
    const claims = await Promise.all([lifecycle.claim(slot, "a", at), lifecycle.claim(slot, "b", at)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(claims.find(Boolean)).toMatchObject({
      state: "claimed",
      trigger: "schedule",
      notAfter: slot.notAfter,
    });
    expect(await lifecycle.skipMissed(slot, "a", "missed window", at)).toBeUndefined();
    const missed = await slotOf("2025-06-01");
    expect(await lifecycle.skipMissed(missed, "a", "missed window", at)).toMatchObject({
      state: "skipped",
      reason: "missed window",
    });
    expect(await queue.scheduledKeys(["2025-06-02"])).toEqual(new Set([`${slot.userId}|morning|2025-06-02`]));
  });

  it("lets only the owner start and finish a run, from the state it leaves", async () => {
    const { lifecycle } = ports();
    const slot = await slotOf();
    const run = await lifecycle.claim(slot, "owner", at);
    if (!run) throw new Error("not claimed");
    expect(await lifecycle.start(run.id, slot.userId, "intruder", at)).toBeUndefined();
    expect(await lifecycle.start(run.id, slot.userId + 1000, "owner", at)).toBeUndefined();
    expect(await lifecycle.start(run.id, slot.userId, "owner", at)).toMatchObject({ state: "generating" });
    expect(await lifecycle.start(run.id, slot.userId, "owner", at)).toBeUndefined();
    expect(await lifecycle.finish(run.id, "intruder", result, later(5))).toBeUndefined();
    const finished = await lifecycle.finish(run.id, "owner", result, later(5));
    expect(finished).toMatchObject({ state: "generated", prose: "Morning.", checks: result.checks });
    expect(finished?.generatedAt).toEqual(later(5));
    expect(await lifecycle.finish(run.id, "owner", result, later(6))).toBeUndefined();
    expect(await lifecycle.fail(run.id, "owner", "late failure", later(6))).toBeUndefined();
  });

  it("reclaims an orphan for exactly one process, dropping what the interrupted attempt stored", async () => {
    const { lifecycle, queue, leases, receipts } = ports();
    const slot = await slotOf();
    const run = await lifecycle.claim(slot, "dead", at);
    if (!run) throw new Error("not claimed");
    await lifecycle.start(run.id, slot.userId, "dead", at);
    await receipts.append([
      {
        userId: slot.userId,
        conversationId: null,
        runId: run.id,
        role: "tool",
        toolName: "list_tasks",
        content: "{}",
        metadata: {},
        createdAt: at,
      },
    ]);
    expect(await receipts.runMessages(run.id)).toHaveLength(1);
    // "live" renews its lease; "dead" never held one (or let it lapse).
    await leases.acquire("process:live", "live", 20_000, later(10));
    const orphans = await queue.orphaned({ owner: "live", at: later(10), everyOtherOwner: false });
    expect(orphans.map((orphan) => orphan.id)).toContain(run.id);
    const races = await Promise.all([
      lifecycle.reclaim(run.id, "dead", "live", later(10)),
      lifecycle.reclaim(run.id, "dead", "other", later(10)),
    ]);
    expect(races.filter(Boolean)).toHaveLength(1);
    const winner = races.find(Boolean)?.claimedBy ?? "";
    expect(await lifecycle.start(run.id, slot.userId, winner, later(11))).toMatchObject({
      state: "generating",
    });
    expect(await receipts.runMessages(run.id)).toEqual([]);
    // The dead process wakes up: the run is no longer its own.
    expect(await lifecycle.finish(run.id, "dead", result, later(12))).toBeUndefined();
  });

  it("calls a run orphaned only once its owner's lease has lapsed, or on the embedded rule any other owner", async () => {
    const { lifecycle, queue, leases } = ports();
    const slot = await slotOf();
    const run = await lifecycle.claim(slot, "alive", at);
    if (!run) throw new Error("not claimed");
    await leases.acquire("process:alive", "alive", 20_000, at);
    const orphanIds = async (at: Date, everyOtherOwner = false) =>
      (await queue.orphaned({ owner: "me", at, everyOtherOwner })).map((orphan) => orphan.id);
    expect(await orphanIds(later(19))).not.toContain(run.id);
    expect(await orphanIds(later(21))).toContain(run.id);
    expect(await orphanIds(later(1), true)).toContain(run.id);
    // Its own run is never an orphan to the owner itself, lease lapsed or not: it is still generating it.
    expect(
      (await queue.orphaned({ owner: "alive", at: later(21), everyOtherOwner: false })).map((o) => o.id),
    ).not.toContain(run.id);
  });

  it("fails a claimed or generating run for its owner only, and skips only a generated one", async () => {
    const { lifecycle } = ports();
    const slot = await slotOf();
    const run = await lifecycle.claim(slot, "a", at);
    if (!run) throw new Error("not claimed");
    expect(await lifecycle.skip(run.id, "late", at)).toBeUndefined();
    expect(await lifecycle.fail(run.id, "b", "boom", at)).toBeUndefined();
    expect(await lifecycle.fail(run.id, "a", "boom", at)).toMatchObject({ state: "failed", reason: "boom" });
    const manual = await lifecycle.createManual({
      userId: slot.userId,
      slot: "midday",
      localDate: "2025-06-02",
      owner: "a",
      at,
    });
    expect(manual).toMatchObject({ state: "generating", trigger: "manual", claimedBy: "a", notAfter: null });
    await lifecycle.finish(manual.id, "a", result, at);
    expect(await lifecycle.skip(manual.id, "missed window", at)).toMatchObject({ state: "skipped" });
  });

  it("begins a delivery once, with its rows, and settles it from them", async () => {
    const { lifecycle, queue, linkAccount } = ports();
    const slot = await slotOf();
    const telegram = await linkAccount(slot.userId, {
      platform: "telegram",
      externalUserId: `${slot.userId}01`,
    });
    const slack = await linkAccount(slot.userId, {
      platform: "slack",
      externalUserId: `U${slot.userId}`,
    });
    const run = await lifecycle.claim(slot, "a", at);
    if (!run) throw new Error("not claimed");
    await lifecycle.start(run.id, slot.userId, "a", at);
    await lifecycle.finish(run.id, "a", result, at);
    const rows = [
      { platform: "telegram" as const, identityId: telegram.id },
      { platform: "slack" as const, identityId: slack.id },
    ];
    const begun = await Promise.all([
      lifecycle.beginDelivery(run.id, rows, at),
      lifecycle.beginDelivery(run.id, rows, at),
    ]);
    expect(begun.filter(Boolean)).toHaveLength(1);
    const [first, second] = await queue.deliveriesOf(run.id);
    expect(first).toMatchObject({
      platform: "telegram",
      state: "pending",
      identityId: telegram.id,
      target: null,
    });
    expect(await lifecycle.settle(run.id, at)).toBeUndefined();

    const due = await queue.dueDeliveries({
      at,
      platforms: ["telegram", "slack"],
      limit: 10,
      excludeIds: [],
    });
    expect(due.map((row) => row.delivery.id)).toEqual([first?.id, second?.id]);
    expect(due[0]).toMatchObject({ run: { id: run.id, prose: "Morning." }, recipient: { id: telegram.id } });

    if (!first || !second) throw new Error("rows missing");
    const attempts = await Promise.all([
      lifecycle.beginAttempt(first.id, "a", at),
      lifecycle.beginAttempt(first.id, "b", at),
    ]);
    expect(attempts.filter(Boolean)).toHaveLength(1);
    const sender = attempts.find(Boolean)?.sendingBy ?? "";
    await lifecycle.recordProgress(first.id, sender, { messageIds: [7] });
    expect((await queue.deliveriesOf(run.id))[0]?.progress).toEqual({ messageIds: [7] });
    expect(
      await lifecycle.delivered(first.id, "not-the-sender", { platformMessageId: "7", target: "111" }, at),
    ).toBeUndefined();
    expect(
      await lifecycle.delivered(first.id, sender, { platformMessageId: "7", target: "111" }, at),
    ).toMatchObject({
      state: "sent",
      target: "111",
    });
    await lifecycle.beginAttempt(second.id, "a", at);
    expect(await lifecycle.retryLater(second.id, "a", "503", later(2))).toMatchObject({
      state: "pending",
      attempts: 1,
    });
    expect(
      await queue.dueDeliveries({ at: later(1), platforms: ["slack"], limit: 10, excludeIds: [] }),
    ).toEqual([]);
    await lifecycle.beginAttempt(second.id, "a", later(2));
    await lifecycle.failDelivery(second.id, "channel_not_found");
    const settled = await lifecycle.settle(run.id, later(3));
    expect(settled).toMatchObject({
      state: "delivered",
      reason: "partly delivered; slack: channel_not_found",
    });
    expect(settled?.deliveredAt).toEqual(later(3));
    expect(await lifecycle.settle(run.id, later(4))).toBeUndefined();
  });

  it("fails a run none of whose rows were sent, naming why; the CLI channel is delivered with its reason", async () => {
    const { lifecycle } = ports();
    const slot = await slotOf();
    const generated = async (slotName: "morning" | "midday") => {
      const run = await lifecycle.claim({ ...slot, slot: slotName }, "a", at);
      if (!run) throw new Error("not claimed");
      await lifecycle.start(run.id, slot.userId, "a", at);
      await lifecycle.finish(run.id, "a", result, at);
      return run;
    };
    const refused = await generated("morning");
    await lifecycle.beginDelivery(
      refused.id,
      [{ platform: "telegram", identityId: null, state: "failed", lastError: "not configured" }],
      at,
    );
    expect(await lifecycle.settle(refused.id, at)).toMatchObject({
      state: "failed",
      reason: "telegram: not configured",
    });
    const cli = await generated("midday");
    await lifecycle.beginDelivery(cli.id, [{ platform: "cli", identityId: null, state: "sent" }], at);
    expect(await lifecycle.settle(cli.id, at, "no platform linked")).toMatchObject({
      state: "delivered",
      reason: "no platform linked",
    });
  });

  it("fails sends left by a gone process, never the ones of a live one", async () => {
    const { lifecycle, queue, leases, linkAccount } = ports();
    const slot = await slotOf();
    const identity = await linkAccount(slot.userId, {
      platform: "telegram",
      externalUserId: `${slot.userId}02`,
    });
    const run = await lifecycle.claim(slot, "a", at);
    if (!run) throw new Error("not claimed");
    await lifecycle.start(run.id, slot.userId, "a", at);
    await lifecycle.finish(run.id, "a", result, at);
    await lifecycle.beginDelivery(run.id, [{ platform: "telegram", identityId: identity.id }], at);
    const [row] = await queue.deliveriesOf(run.id);
    if (!row) throw new Error("no row");
    await leases.acquire("process:a", "a", 20_000, at);
    await lifecycle.beginAttempt(row.id, "a", at);
    expect(await lifecycle.failInterruptedSends("b", later(10), false)).toEqual([]);
    expect(await lifecycle.failInterruptedSends("a", later(10), true)).toEqual([]);
    // Its own send is never interrupted to the sender itself, even after a stall past its lease.
    expect(await lifecycle.failInterruptedSends("a", later(25), false)).toEqual([]);
    expect(await lifecycle.failInterruptedSends("b", later(25), false)).toEqual([run.id]);
    expect((await queue.deliveriesOf(run.id))[0]).toMatchObject({
      state: "failed",
      lastError: /interrupted mid-send/,
    });
  });
});

describeEachStore("the run queue and the run store", (world) => {
  async function generated(slotName: "morning" | "midday" | "afternoon", localDate = "2025-06-02") {
    const { ports } = world();
    const user = await world().addUser({ timeZone: "Pacific/Auckland" });
    const run = await ports.lifecycle.claim(
      { userId: user.id, slot: slotName, localDate, notAfter: later(5400) },
      "a",
      at,
    );
    if (!run) throw new Error("not claimed");
    await ports.lifecycle.start(run.id, user.id, "a", at);
    const finished = await ports.lifecycle.finish(run.id, "a", result, at);
    if (!finished) throw new Error("not finished");
    return { user, run: finished };
  }

  it("refuses a run of a user who does not exist", async () => {
    const { lifecycle } = world().ports;
    await expect(
      lifecycle.claim({ userId: 987_654, slot: "morning", localDate: "2025-06-02", notAfter: at }, "a", at),
    ).rejects.toThrow();
  });

  it("reads a run only for its user, with the user's zone for the queue", async () => {
    const { runs, runQueue } = world().ports;
    const { user, run } = await generated("morning");
    const other = await world().addUser();
    expect(await runs.ofUser(user.id, run.id)).toMatchObject({ id: run.id, state: "generated" });
    expect(await runs.ofUser(other.id, run.id)).toBeUndefined();
    expect(await runQueue.get(run.id)).toMatchObject({ run: { id: run.id }, timeZone: "Pacific/Auckland" });
    expect(await runQueue.get(run.id + 10_000)).toBeUndefined();
  });

  it("finds the latest finished run and the morning briefing of a day, manual runs included", async () => {
    const { runs, lifecycle } = world().ports;
    const { user, run: morning } = await generated("morning");
    expect(await runs.latestFinished(user.id)).toMatchObject({ id: morning.id });
    const manual = await lifecycle.createManual({
      userId: user.id,
      slot: "morning",
      localDate: "2025-06-02",
      owner: "a",
      at: later(60),
    });
    // Generating has no prose yet: neither read sees it.
    expect((await runs.latestFinished(user.id))?.id).toBe(morning.id);
    await lifecycle.finish(manual.id, "a", { ...result, prose: "Again." }, later(61));
    expect(await runs.latestFinished(user.id)).toMatchObject({ id: manual.id, prose: "Again." });
    expect((await runs.morningOf(user.id, "2025-06-02"))?.id).toBe(manual.id);
    expect(await runs.morningOf(user.id, "2025-06-03")).toBeUndefined();
    expect(await runs.scheduledOn(user.id, ["2025-06-02", "2025-06-03"])).toEqual([
      { slot: "morning", localDate: "2025-06-02" },
    ]);
    expect(await runs.scheduledOn(user.id, [])).toEqual([]);
  });

  it("lists runs by state oldest first, and due rows soonest first within the limit, leaving out the excluded", async () => {
    const { runQueue, lifecycle } = world().ports;
    const first = await generated("morning");
    const second = await generated("midday");
    const generatedIds = (await runQueue.inStates(["generated"])).map((run) => run.id);
    expect(generatedIds.indexOf(first.run.id)).toBeLessThan(generatedIds.indexOf(second.run.id));
    expect((await runQueue.inStates(["delivered"])).map((run) => run.id)).not.toContain(first.run.id);

    await lifecycle.beginDelivery(second.run.id, [{ platform: "slack", identityId: null }], later(1));
    await lifecycle.beginDelivery(first.run.id, [{ platform: "slack", identityId: null }], later(2));
    const [secondRow] = await runQueue.deliveriesOf(second.run.id);
    const [firstRow] = await runQueue.deliveriesOf(first.run.id);
    if (!firstRow || !secondRow) throw new Error("rows missing");
    const due = async (options: { limit?: number; excludeIds?: number[]; at?: Date } = {}) =>
      (
        await runQueue.dueDeliveries({
          at: options.at ?? later(3),
          platforms: ["slack"],
          limit: options.limit ?? 100,
          excludeIds: options.excludeIds ?? [],
        })
      )
        .map((row) => row.delivery.id)
        .filter((id) => id === firstRow.id || id === secondRow.id);
    expect(await due()).toEqual([secondRow.id, firstRow.id]);
    expect(await due({ excludeIds: [secondRow.id] })).toEqual([firstRow.id]);
    expect(await due({ at: later(1) })).toEqual([secondRow.id]);
    const limited = await runQueue.dueDeliveries({
      at: later(3),
      platforms: ["slack"],
      limit: 1,
      excludeIds: [],
    });
    expect(limited).toHaveLength(1);
    expect(await runQueue.dueDeliveries({ at: later(3), platforms: [], limit: 10, excludeIds: [] })).toEqual(
      [],
    );
    // A row with no account to go to still comes, with no recipient.
    expect(
      (await runQueue.dueDeliveries({ at: later(3), platforms: ["slack"], limit: 100, excludeIds: [] })).find(
        (row) => row.delivery.id === firstRow.id,
      ),
    ).toMatchObject({ recipient: undefined, timeZone: "Pacific/Auckland", run: { prose: "Morning." } });
  });

  it("archives runs past retention: their receipts stay readable, their messages leave every context", async () => {
    const { lifecycle, receipts } = world().ports;
    const { user, run } = await generated("afternoon", "2025-05-01");
    await receipts.append([
      {
        userId: user.id,
        conversationId: null,
        runId: run.id,
        role: "assistant",
        content: "",
        toolCalls: [{ function: { name: "list_tasks", arguments: {} } }],
        metadata: {},
        createdAt: at,
      },
      {
        userId: user.id,
        conversationId: null,
        runId: run.id,
        role: "tool",
        toolName: "list_tasks",
        content: '{"tasks":[]}',
        metadata: { arguments: { filter: "open" } },
        createdAt: at,
      },
    ]);
    expect(await receipts.archivedReceipts(run.id)).toBeUndefined();
    const tooEarly = await lifecycle.archiveOld({ now: later(86_400), retentionDays: 30, userId: user.id });
    expect(tooEarly).toEqual([]);
    const now = new Date(at.getTime() + 31 * 86_400_000);
    expect(await lifecycle.archiveOld({ now, retentionDays: 30, userId: user.id })).toEqual([run.id]);
    expect(await receipts.runMessages(run.id)).toEqual([]);
    expect(await receipts.archivedReceipts(run.id)).toEqual([
      expect.objectContaining({
        runId: run.id,
        toolName: "list_tasks",
        arguments: { filter: "open" },
        result: { tasks: [] },
        error: false,
        at,
      }),
    ]);
    expect(await lifecycle.archiveOld({ now, retentionDays: 30, userId: user.id })).toEqual([]);
  });
});

describeEachStore("leases", (world) => {
  it("has one live holder per name: renewed by it, free once lapsed or released, voided for others", async () => {
    const { leases } = world().ports;
    const name = `poll:${Math.random()}`;
    const race = await Promise.all([
      leases.acquire(name, "a", 30_000, at),
      leases.acquire(name, "b", 30_000, at),
    ]);
    expect(race.filter(Boolean)).toHaveLength(1);
    const holder = race[0] ? "a" : "b";
    const other = holder === "a" ? "b" : "a";
    expect(await leases.holder(name, later(10))).toBe(holder);
    expect(await leases.acquire(name, holder, 30_000, later(20))).toBe(true);
    expect(await leases.acquire(name, other, 30_000, later(40))).toBe(false);
    expect(await leases.acquire(name, other, 30_000, later(51))).toBe(true);
    await leases.release(name, holder);
    expect(await leases.holder(name, later(52))).toBe(other);
    await leases.release(name, other);
    expect(await leases.holder(name, later(52))).toBeUndefined();
    await leases.acquire(`${name}:1`, "a", 30_000, at);
    await leases.acquire(`${name}:2`, "b", 30_000, at);
    expect(await leases.voidOthers("a")).toBeGreaterThanOrEqual(1);
    expect(await leases.holder(`${name}:1`, later(1))).toBe("a");
    expect(await leases.holder(`${name}:2`, later(1))).toBeUndefined();
  });
});
