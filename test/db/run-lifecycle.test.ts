/**
 * The run's state machine as the database keeps it: every transition moves a run (or an outbox row) only
 * from the states it leaves and only for its owner, so of two processes racing exactly one moves it. Run
 * on PGlite and PostgreSQL; the races run their statements at once on one database.
 */
import { expect, it } from "vitest";
import { insertMessages, listRunMessages } from "../../db/queries/messages.ts";
import { linkIdentity } from "../../db/queries/users.ts";
import { createLeases, createRunLifecycle, createRunQueue } from "../../db/stores/index.ts";
import type { RunResult, SlotClaim } from "../../src/core/domain.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";

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

describeEachDatabase("the run lifecycle", (getDb) => {
  const ports = () => {
    const db = getDb();
    return { db, lifecycle: createRunLifecycle(db), queue: createRunQueue(db), leases: createLeases(db) };
  };
  async function slotOf(localDate = "2025-06-02"): Promise<SlotClaim> {
    const user = await createTestUser(getDb());
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
    const { db, lifecycle } = ports();
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
    void db;
  });

  it("reclaims an orphan for exactly one process, dropping what the interrupted attempt stored", async () => {
    const { db, lifecycle, queue, leases } = ports();
    const slot = await slotOf();
    const run = await lifecycle.claim(slot, "dead", at);
    if (!run) throw new Error("not claimed");
    await lifecycle.start(run.id, slot.userId, "dead", at);
    await insertMessages(db, [
      {
        userId: slot.userId,
        runId: run.id,
        role: "tool",
        toolName: "list_tasks",
        content: "{}",
        createdAt: at,
      },
    ]);
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
    expect(await listRunMessages(db, run.id)).toEqual([]);
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
    const { db, lifecycle, queue } = ports();
    const slot = await slotOf();
    const telegram = await linkIdentity(db, slot.userId, {
      platform: "telegram",
      externalUserId: `${slot.userId}01`,
    });
    const slack = await linkIdentity(db, slot.userId, {
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
    const { db, lifecycle, queue, leases } = ports();
    const slot = await slotOf();
    const identity = await linkIdentity(db, slot.userId, {
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
    expect(await lifecycle.failInterruptedSends("b", later(25), false)).toEqual([run.id]);
    expect((await queue.deliveriesOf(run.id))[0]).toMatchObject({
      state: "failed",
      lastError: /interrupted mid-send/,
    });
  });
});

describeEachDatabase("leases", (getDb) => {
  it("has one live holder per name: renewed by it, free once lapsed or released, voided for others", async () => {
    const leases = createLeases(getDb());
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
