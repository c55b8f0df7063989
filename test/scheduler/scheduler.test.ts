import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { INTERRUPTED_SEND_REASON } from "../../db/queries/run-lifecycle.ts";
import { deliveriesOfRun } from "../../db/queries/run-queue.ts";
import { getRun } from "../../db/queries/runs.ts";
import { briefingRuns, users } from "../../db/schema/index.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import { registerRunsCommands } from "../../src/cli/commands/runs.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { NO_PLATFORM_REASON } from "../../src/delivery/outbox.ts";
import { startScheduler } from "../../src/scheduler/scheduler.ts";
import { slotOccurrence } from "../../src/scheduler/slot-time.ts";
import { cliHarness } from "../helpers/cli.ts";
import { describeEachDatabase } from "../helpers/database.ts";
import { claimRun } from "../helpers/runs.ts";
import type { OllamaTestServer } from "../servers/ollama-server.ts";
import {
  eventually,
  modelFor,
  nextOwner,
  permanent,
  realRunner,
  startModel,
  startRig,
  telegramUser,
  transient,
} from "./rig.ts";

const MORNING_ONLY = { morning: "07:00", midday: null, afternoon: null, evening: null };
const MINUTE = 60_000;

async function runsOf(db: Database, userId: number) {
  return db.select().from(briefingRuns).where(eq(briefingRuns.userId, userId)).orderBy(briefingRuns.id);
}

describeEachDatabase("scheduler", (getDb) => {
  let ollama: OllamaTestServer;
  beforeAll(async () => {
    ollama = await startModel();
  });
  afterAll(async () => {
    await ollama.close();
  });
  // The suite shares a database: earlier users must not come due in later tests.
  beforeEach(async () => {
    await getDb()
      .update(users)
      .set({ slots: { morning: null, midday: null, afternoon: null, evening: null } });
  });

  it("claims a due slot once, generates it with the runner and delivers it with its message id", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z"); // 07:00 in London
    const { user, chatId } = await telegramUser(db, { slots: MORNING_ONLY });
    const rig = await startRig(db, clock, modelFor(ollama));

    const first = await rig.scheduler.tick();
    await rig.scheduler.drain();
    clock.advance(MINUTE);
    const second = await rig.scheduler.tick();
    await rig.scheduler.drain();

    expect(first.claimed).toBe(1);
    expect(second.claimed).toBe(0);
    expect(rig.runner.calls).toHaveLength(1);
    const [run] = await runsOf(db, user.id);
    expect(run).toMatchObject({
      slot: "morning",
      localDate: "2025-06-02",
      trigger: "schedule",
      state: "delivered",
      // The window the outbox honours is set at the claim: 07:00 plus the default 90 minutes.
      notAfter: new Date("2025-06-02T07:30:00Z"),
    });
    expect(rig.sender.posted).toHaveLength(1);
    expect(rig.sender.posted[0]?.target).toBe(chatId);
    expect(rig.sender.posted[0]?.message.prose).toBe(run?.prose);
    const [delivery] = await deliveriesOfRun(db, run?.id ?? 0);
    expect(delivery).toMatchObject({ platform: "telegram", state: "sent", attempts: 1 });
    expect(delivery?.platformMessageId).toBe(rig.sender.posted[0]?.messageId);
  });

  it("delivers a slot missed inside its window late, and skips one outside with a reason", async () => {
    const db = getDb();
    const late = await telegramUser(db, { slots: MORNING_ONLY, timeZone: "Europe/London" });
    const gone = await telegramUser(db, { slots: MORNING_ONLY, timeZone: "Europe/Berlin" });
    // 08:20 in London (80 minutes late, inside 90) is 09:20 in Berlin (140 minutes late).
    const clock = fixedClock("2025-06-02T07:20:00Z");
    const rig = await startRig(db, clock, modelFor(ollama));

    const report = await rig.scheduler.tick();
    await rig.scheduler.drain();

    expect(report).toMatchObject({ claimed: 1, skipped: 1 });
    expect((await runsOf(db, late.user.id))[0]?.state).toBe("delivered");
    const [skipped] = await runsOf(db, gone.user.id);
    expect(skipped?.state).toBe("skipped");
    expect(skipped?.reason).toBe(
      "missed window: slot 07:00 (not after 08:30) passed while briefbot was not running",
    );
    expect(rig.sender.posted.map((post) => post.target)).toEqual([late.chatId]);
    expect(rig.runner.calls).toHaveLength(1);
  });

  it("ends a permanently refused delivery failed, with the platform's reason in `briefbot runs`", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: MORNING_ONLY });
    const rig = await startRig(db, clock, modelFor(ollama));
    rig.sender.plan.push({ kind: "fail", error: permanent() });

    await rig.scheduler.tick();
    await rig.scheduler.drain();

    const [run] = await runsOf(db, user.id);
    expect(run?.state).toBe("failed");
    expect(run?.reason).toBe("telegram: Forbidden: bot was blocked by the user");
    expect(rig.sender.calls).toHaveLength(1);
    const cli = cliHarness(() => db, { clock, families: [registerRunsCommands] });
    const listed = await cli("runs", "--user", user.name, "--date", "2025-06-02");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`#${run?.id} ${user.name} morning 2025-06-02 (schedule) FAILED`);
    expect(listed.stdout).toContain("FAILED after 1 attempt: Forbidden: bot was blocked by the user");
    const json = JSON.parse((await cli("runs", "--user", user.name, "--json")).stdout) as Array<{
      state: string;
    }>;
    expect(json.map((row) => row.state)).toEqual(["failed"]);
    expect((await cli("runs", "--date", "June")).stderr).toContain('--date "June" is not a date');
  });

  it("retries a transient failure after its retry-after, then records the message id", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: MORNING_ONLY });
    const rig = await startRig(db, clock, modelFor(ollama), { worker: { retry: { baseBackoffMs: 1000 } } });
    rig.sender.plan.push({ kind: "fail", error: transient(45_000) });

    await rig.scheduler.tick();
    await rig.scheduler.drain();
    const [waiting] = await runsOf(db, user.id);
    expect(waiting?.state).toBe("delivering");
    const [pending] = await deliveriesOfRun(db, waiting?.id ?? 0);
    expect(pending).toMatchObject({ state: "pending", attempts: 1 });
    expect(pending?.nextAttemptAt.toISOString()).toBe("2025-06-02T06:00:45.000Z");

    clock.advance(MINUTE);
    await rig.scheduler.tick();
    await rig.scheduler.drain();

    const [run] = await runsOf(db, user.id);
    expect(run?.state).toBe("delivered");
    const [sent] = await deliveriesOfRun(db, run?.id ?? 0);
    expect(sent).toMatchObject({ state: "sent", attempts: 2 });
    expect(rig.sender.posted).toHaveLength(1);
  });

  it("marks a user with no linked platform delivered to the CLI, saying so", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: MORNING_ONLY }, { link: false });
    const rig = await startRig(db, clock, modelFor(ollama));
    await rig.scheduler.tick();
    await rig.scheduler.drain();
    const [run] = await runsOf(db, user.id);
    expect(run).toMatchObject({ state: "delivered", reason: NO_PLATFORM_REASON });
    expect((await deliveriesOfRun(db, run?.id ?? 0)).map((row) => [row.platform, row.state])).toEqual([
      ["cli", "sent"],
    ]);
    expect(rig.sender.calls).toHaveLength(0);
  });

  it("resumes a run whose process died after generation with delivery only", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user, chatId } = await telegramUser(db, { slots: MORNING_ONLY });
    const model = modelFor(ollama);
    // Process A: the runner stores the briefing, then the process freezes before delivering it.
    const ownerA = nextOwner();
    const generate = realRunner(db, model, clock, ownerA);
    const frozen = Object.assign(
      async (request: Parameters<typeof generate>[0]) => {
        await generate(request);
        return new Promise<never>(() => {});
      },
      { calls: generate.calls },
    );
    const processA = await startRig(db, clock, model, { runner: frozen, owner: ownerA });
    await processA.scheduler.tick();
    const generated = await eventually(async () => {
      const [run] = await runsOf(db, user.id);
      return run?.state === "generated" ? run : undefined;
    });
    expect(processA.sender.calls).toHaveLength(0);

    // Process B starts two minutes later; its recovery hands the generated run to its outbox.
    clock.advance(2 * MINUTE);
    const processB = await startRig(db, clock, model);
    const report = await processB.scheduler.recover();
    await processB.scheduler.drain();

    expect(report.resumedDelivery).toBe(1);
    expect(processB.runner.calls).toHaveLength(0);
    expect(generate.calls).toHaveLength(1);
    expect(processB.sender.posted.map((post) => [post.target, post.message.runId])).toEqual([
      [chatId, generated.id],
    ]);
    expect((await getRun(db, generated.id))?.state).toBe("delivered");
  });

  it("never re-sends a delivery interrupted mid-send; it fails with the reason instead", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:00:00Z");
    const { user } = await telegramUser(db, { slots: MORNING_ONLY });
    const model = modelFor(ollama);
    const processA = await startRig(db, clock, model);
    processA.sender.plan.push({ kind: "post-then-hang" });
    await processA.scheduler.tick();
    await eventually(async () => processA.sender.posted.length === 1);
    const [run] = await runsOf(db, user.id);
    expect(run?.state).toBe("delivering");

    // A replica a minute later leaves the send of a live process alone…
    clock.advance(MINUTE);
    const processB = await startRig(db, clock, model);
    await processB.scheduler.recover();
    await processB.scheduler.drain();
    expect((await deliveriesOfRun(db, run?.id ?? 0))[0]?.state).toBe("sending");

    // …and once that process is gone (its lease lapsed), fails it without posting again.
    await processA.die();
    await processB.scheduler.recover();
    await processB.scheduler.drain();

    expect(processB.sender.calls).toHaveLength(0);
    expect(processA.sender.posted).toHaveLength(1);
    const [delivery] = await deliveriesOfRun(db, run?.id ?? 0);
    expect(delivery).toMatchObject({ state: "failed", lastError: INTERRUPTED_SEND_REASON });
    const after = await getRun(db, run?.id ?? 0);
    expect(after?.state).toBe("failed");
    expect(after?.reason).toBe(`telegram: ${INTERRUPTED_SEND_REASON}`);
  });

  it("regenerates a run orphaned mid-generation inside its window, and fails one past it", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T06:45:00Z"); // 07:45 London (window open), 08:45 Berlin (closed)
    const inside = await telegramUser(db, { slots: MORNING_ONLY });
    const past = await telegramUser(db, { slots: MORNING_ONLY, timeZone: "Europe/Berlin" });
    const longAgo = new Date("2025-06-02T05:01:00Z");
    for (const who of [inside, past]) {
      const notAfter = slotOccurrence(who.user, "morning", "2025-06-02")?.notAfter ?? longAgo;
      // Claimed by a process that never held a lease: gone since before this one started.
      await claimRun(
        db,
        { userId: who.user.id, slot: "morning", localDate: "2025-06-02", notAfter },
        longAgo,
        "dead-process",
      );
    }
    const rig = await startRig(db, clock, modelFor(ollama));
    const report = await rig.scheduler.recover();
    await rig.scheduler.drain();

    expect(report).toMatchObject({ regenerating: 1, failed: 1 });
    expect(rig.runner.calls).toHaveLength(1);
    expect((await runsOf(db, inside.user.id))[0]?.state).toBe("delivered");
    const [failed] = await runsOf(db, past.user.id);
    expect(failed?.state).toBe("failed");
    expect(failed?.reason).toContain("generation interrupted");
  });

  it("warms the briefing model a few minutes before a batch of slots, once", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T05:56:00Z"); // 06:56 London
    await telegramUser(db, { slots: MORNING_ONLY });
    await telegramUser(db, { slots: MORNING_ONLY });
    const warmups = () =>
      ollama.chatRequests(MODEL_NAME).filter((request) => request.messages.length === 0).length;
    const before = warmups();
    const rig = await startRig(db, clock, modelFor(ollama), { scheduler: { model: modelFor(ollama) } });
    const first = await rig.scheduler.tick();
    clock.advance(MINUTE);
    const second = await rig.scheduler.tick();
    await rig.scheduler.drain();
    expect(first.warmed).toBe(true);
    expect(second.warmed).toBe(false);
    expect(warmups() - before).toBe(1);
    expect(rig.runner.calls).toHaveLength(0);
  });
});

const MODEL_NAME = "qwen2.5:7b";

describeEachDatabase("startScheduler", (getDb) => {
  it("ticks at once on start (catch-up), keeps the last tick time, and stops cleanly", async () => {
    const db = getDb();
    const clock = fixedClock("2025-06-02T03:00:00Z");
    const ollama = await startModel();
    try {
      const rig = await startRig(db, clock, modelFor(ollama));
      const scheduler = startScheduler({
        ports: createDbPorts(db),
        owner: rig.owner,
        clock,
        runner: rig.runner,
        deliver: rig.worker,
      });
      await eventually(async () => scheduler.lastTickAt);
      expect(scheduler.lastTickAt?.toISOString()).toBe("2025-06-02T03:00:00.000Z");
      await scheduler.stop();
      expect(scheduler.lastTickError).toBeUndefined();
    } finally {
      await ollama.close();
    }
  });
});
