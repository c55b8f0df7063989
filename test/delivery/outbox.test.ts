/**
 * The outbox on its own: how each kind of send failure ends, from stored (generated) runs. It posts what the
 * run stored — the briefing's only copy — on whichever process sends it, and a briefing split over several
 * messages resumes after the parts already posted.
 */
import { expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { deliveriesOfRun } from "../../db/queries/run-queue.ts";
import { getRun } from "../../db/queries/runs.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import { DeliveryError, type PlatformSender } from "../../src/core/assistant.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { createOutbox } from "../../src/delivery/outbox.ts";
import { describeEachDatabase } from "../helpers/database.ts";
import { generatedRun as generated, HELPER_OWNER } from "../helpers/runs.ts";
import { recordingSender, telegramUser, transient } from "../scheduler/rig.ts";

const SLOTS = { morning: "07:00", midday: null, afternoon: null, evening: null };

async function generatedRun(db: Database, userId: number, at: Date): Promise<number> {
  // The slot's window as the scheduler sets it: 07:00 London plus 90 minutes.
  const notAfter = new Date("2025-06-02T07:30:00Z");
  const run = await generated(
    db,
    { userId, slot: "morning", localDate: "2025-06-02", notAfter },
    "Good morning. Nothing on the calendar today.",
    at,
  );
  return run.id;
}

describeEachDatabase("outbox", (getDb) => {
  function workerFor(
    db: Database,
    clock: ReturnType<typeof fixedClock>,
    sender: PlatformSender & Partial<ReturnType<typeof recordingSender>> = recordingSender(),
    owner = HELPER_OWNER,
  ) {
    const worker = createOutbox({
      ports: createDbPorts(db),
      clock,
      owner,
      senders: [sender],
      retry: { baseBackoffMs: 60_000, maxAttempts: 3 },
    });
    return { worker, sender: sender as ReturnType<typeof recordingSender> };
  }

  it("fails, without retrying, a send whose outcome is unknown", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: SLOTS });
    const runId = await generatedRun(db, user.id, clock.now());
    const { worker, sender } = workerFor(db, clock);
    sender.plan.push({ kind: "fail", error: new Error("socket hang up") });
    expect(await worker.enqueue(runId)).toBe("delivering");
    await worker.drain();
    clock.advance(10 * 60_000);
    await worker.runDue();
    expect(sender.calls).toHaveLength(1);
    expect((await deliveriesOfRun(db, runId))[0]?.lastError).toBe(
      "send outcome unknown (socket hang up); not re-sent to avoid a duplicate",
    );
    expect((await getRun(db, runId))?.state).toBe("failed");
  });

  it("retries a connection refused before any byte left, and gives up after the attempt limit", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: SLOTS });
    const runId = await generatedRun(db, user.id, clock.now());
    const { worker, sender } = workerFor(db, clock);
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    sender.plan.push(
      { kind: "fail", error: refused },
      { kind: "fail", error: transient() },
      { kind: "fail", error: transient() },
    );
    await worker.enqueue(runId);
    await worker.drain();
    for (let step = 0; step < 3; step += 1) {
      clock.advance(5 * 60_000);
      await worker.runDue();
    }
    expect(sender.calls).toHaveLength(3);
    const [delivery] = await deliveriesOfRun(db, runId);
    expect(delivery).toMatchObject({ state: "failed", attempts: 3 });
    expect(delivery?.lastError).toBe("gave up after 3 attempts: Too Many Requests: retry after 1");
  });

  it("retries a request that never left at once, then backs off; platform answers back off from the start", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: SLOTS });
    const runId = await generatedRun(db, user.id, clock.now());
    const { worker, sender } = workerFor(db, clock);
    const notSent = Object.assign(new Error("request to api.telegram.org was not sent: read ECONNRESET"), {
      code: "ERR_REQUEST_NOT_SENT",
    });
    sender.plan.push({ kind: "fail", error: notSent }, { kind: "fail", error: notSent });
    await worker.enqueue(runId);
    await worker.drain();
    await worker.runDue();
    // Attempt 1 failed and was retried at once (attempt 2); attempt 2's failure waits the base backoff.
    expect(sender.calls).toHaveLength(2);
    const [waiting] = await deliveriesOfRun(db, runId);
    expect(waiting).toMatchObject({ state: "pending", attempts: 2 });
    expect(waiting?.nextAttemptAt.getTime()).toBe(clock.now().getTime() + 120_000);
    clock.advance(120_000);
    await worker.runDue();
    expect((await deliveriesOfRun(db, runId))[0]).toMatchObject({ state: "sent", attempts: 3 });

    const answeredRun = await generatedRun(
      db,
      (await telegramUser(db, { slots: SLOTS })).user.id,
      clock.now(),
    );
    sender.plan.push({ kind: "fail", error: transient() });
    await worker.enqueue(answeredRun);
    await worker.drain();
    const [answered] = await deliveriesOfRun(db, answeredRun);
    expect(answered?.nextAttemptAt.getTime()).toBe(clock.now().getTime() + 60_000);
    // Leave nothing pending for the suites' other workers (they share the database).
    clock.advance(60_000);
    await worker.runDue();
    expect((await deliveriesOfRun(db, answeredRun))[0]?.state).toBe("sent");
  });

  it("stops retrying once the slot's window has closed", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T07:20:00Z"); // 08:20 London, ten minutes before the not-after
    const { user } = await telegramUser(db, { slots: SLOTS });
    const runId = await generatedRun(db, user.id, clock.now());
    const { worker, sender } = workerFor(db, clock);
    sender.plan.push({ kind: "fail", error: transient(15 * 60_000) });
    await worker.enqueue(runId);
    await worker.drain();
    const [delivery] = await deliveriesOfRun(db, runId);
    expect(delivery?.lastError).toBe("missed window while retrying: Too Many Requests: retry after 1");
    expect((await getRun(db, runId))?.state).toBe("failed");
  });

  it("skips a briefing that was generated after its window instead of sending it late", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T09:00:00Z"); // 10:00 London
    const { user } = await telegramUser(db, { slots: SLOTS });
    const runId = await generatedRun(db, user.id, new Date("2025-06-02T06:00:00Z"));
    const { worker, sender } = workerFor(db, clock);
    expect(await worker.enqueue(runId)).toBe("skipped-window");
    expect(sender.calls).toHaveLength(0);
    expect((await getRun(db, runId))?.reason).toBe(
      "missed window: ready at 10:00, after its not-after 08:30",
    );
  });

  it("posts what the run stored, with the status row of the checks written with it", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: SLOTS });
    const run = await createDbPorts(db).lifecycle.claim(
      {
        userId: user.id,
        slot: "morning",
        localDate: "2025-06-02",
        notAfter: new Date("2025-06-02T07:30:00Z"),
      },
      HELPER_OWNER,
      clock.now(),
    );
    if (!run) throw new Error("not claimed");
    const { lifecycle } = createDbPorts(db);
    await lifecycle.start(run.id, user.id, HELPER_OWNER, clock.now());
    await lifecycle.finish(
      run.id,
      HELPER_OWNER,
      {
        mode: "agentic",
        route: "briefing",
        endpoint: null,
        model: null,
        turns: 1,
        toolCalls: 1,
        promptTokens: 0,
        evalTokens: 0,
        timings: {},
        grounding: null,
        prose: "Stored by the runner.",
        checks: [{ label: "looked at tasks", ok: true }],
        reason: null,
      },
      clock.now(),
    );
    const { worker, sender } = workerFor(db, clock);
    expect(await worker.enqueue(run.id)).toBe("delivering");
    await worker.drain();
    expect(sender.posted.map((post) => [post.message.prose, post.message.statusRow])).toEqual([
      ["Stored by the runner.", "✓ looked at tasks"],
    ]);
    expect((await getRun(db, run.id))?.state).toBe("delivered");
  });

  it("resumes a split briefing after the parts already posted, on another process", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: SLOTS });
    const runId = await generatedRun(db, user.id, clock.now());
    const parts: string[] = [];
    /** Posts three parts, saving what is out after each; the first attempt's third part never leaves. */
    const splitting = (failThird: boolean): PlatformSender => ({
      platform: "telegram",
      async deliver({ begin, progress, saveProgress }) {
        if (!(await begin())) return undefined;
        const done = ((progress as { parts?: number } | undefined)?.parts ?? 0) as number;
        for (let part = done + 1; part <= 3; part += 1) {
          if (failThird && part === 3) throw new DeliveryError("Internal Server Error", false);
          parts.push(`part ${part}`);
          await saveProgress({ parts: part });
        }
        return { platformMessageId: "1", target: "chat" };
      },
    });
    const first = workerFor(db, clock, splitting(true), "process-a");
    await first.worker.enqueue(runId);
    await first.worker.drain();
    expect((await deliveriesOfRun(db, runId))[0]).toMatchObject({ state: "pending", progress: { parts: 2 } });
    const second = workerFor(db, clock, splitting(false), "process-b");
    clock.advance(60_000);
    await second.worker.runDue();
    expect(parts).toEqual(["part 1", "part 2", "part 3"]);
    expect((await getRun(db, runId))?.state).toBe("delivered");
  });

  it("after a restart, sends a pending row from what the run stored", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user, chatId } = await telegramUser(db, { slots: SLOTS });
    const runId = await generatedRun(db, user.id, clock.now());
    const before = workerFor(db, clock);
    before.sender.plan.push({ kind: "fail", error: transient() });
    await before.worker.enqueue(runId);
    await before.worker.drain();
    expect((await deliveriesOfRun(db, runId))[0]?.state).toBe("pending");

    // A new process: nothing in memory, the row due a minute later.
    const after = workerFor(db, clock);
    clock.advance(60_000);
    await after.worker.runDue();
    expect(after.sender.posted.map((post) => [post.target, post.message.prose])).toEqual([
      [chatId, "Good morning. Nothing on the calendar today."],
    ]);
    expect((await getRun(db, runId))?.state).toBe("delivered");
  });

  it("fails a delivery to a platform this server has no sender for", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: SLOTS });
    const runId = await generatedRun(db, user.id, clock.now());
    const { worker } = workerFor(db, clock, recordingSender("slack"));
    await worker.enqueue(runId);
    await worker.drain();
    expect((await getRun(db, runId))?.reason).toBe("telegram: telegram is not configured on this server");
  });
});
