/**
 * The scheduler: every minute, claim each due (user, slot, local date) once, generate it through the
 * runner, hand it to the delivery worker; and repair what a stopped process left behind.
 *
 * Restart rules (all keyed on the database, so they hold across replicas):
 * - `generated` scheduled runs are delivered, never regenerated;
 * - `delivering` runs are settled by the delivery worker (orphaned `sending` rows fail, not re-send);
 * - `claimed`/`generating` runs untouched for `generationTimeoutMinutes` lost their worker: while the
 *   slot's window is open one replica re-claims and regenerates them, after it they end `failed`;
 * - a slot whose window closed with no run at all is recorded `skipped` ("missed window").
 */
import { randomBytes } from "node:crypto";
import cron, { type ScheduledTask } from "node-cron";
import type { Database } from "../../db/client.ts";
import { getRun } from "../../db/queries/runs.ts";
import {
  claimScheduledRun,
  existingScheduledKeys,
  reclaimStalledRun,
  scheduledKey,
  scheduledRunsInStates,
  stalledGenerations,
  transitionRun,
} from "../../db/queries/schedule.ts";
import { listUsers } from "../../db/queries/users.ts";
import type { BriefingRun, SlotName, User } from "../../db/schema/index.ts";
import type { BriefingMessage } from "../core/assistant.ts";
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";
import { formatLocal } from "../core/local-time.ts";
import type { ModelClient } from "../core/model.ts";
import { briefingMessageOf } from "../delivery/briefing-message.ts";
import { type GenerationObserver, notify, type OpsLogger } from "../delivery/hooks.ts";
import type { DeliveryWorker } from "../delivery/worker.ts";
import {
  DEFAULT_STALE_AFTER_MINUTES,
  dueSlots,
  missedSlots,
  type SlotOccurrence,
  scheduleProblem,
  slotOccurrence,
  upcomingSlots,
} from "./slot-time.ts";

export interface GenerateRequest {
  user: User;
  slot: SlotName;
  localDate: string;
  /** The claimed run; the runner moves it claimed → generating → generated (or failed). */
  runId: number;
}

/**
 * Generates a claimed run (`composeCore`'s `generateBriefing`) and hands back the briefing it stored, which
 * goes to the outbox as it is. A generator that hands back nothing has its run read back instead.
 */
export type BriefingGenerator = (request: GenerateRequest) => Promise<BriefingMessage | undefined>;

export interface SchedulerOptions {
  db: Database;
  clock: Clock;
  runner: BriefingGenerator;
  deliver: DeliveryWorker;
  /** Warmed (`warm("briefing")`) a few minutes before a batch of slots. */
  model?: Pick<ModelClient, "warm">;
  /**
   * Fetches a user's stale sources (`Sources.refresh`), called in the pre-warm step ahead of each of their
   * slots with the slot time as the deadline, so the slot itself finds weather, calendars and feeds fresh
   * and its own refresh step makes no network call.
   */
  refreshSources?: (user: User, deadline: Date) => Promise<unknown>;
  /** Pre-warm refreshes running at once. Default 8. */
  maxConcurrentRefreshes?: number;
  staleAfterMinutes?: number;
  /** Default 5. */
  warmLeadMinutes?: number;
  /** A claimed/generating run untouched this long lost its worker. Default 20. */
  generationTimeoutMinutes?: number;
  /** Generations started at once; the rest wait (the model queue orders them anyway). Default 50. */
  maxConcurrentGenerations?: number;
  /** Stored as the run's `claimedBy`. Default: random per process. */
  instanceId?: string;
  logger?: OpsLogger;
  observer?: GenerationObserver;
  /** How often a tick also repairs what stopped processes left (the first tick always does). Default 5. */
  recoveryIntervalMinutes?: number;
  /** Cron expression for the tick. Default every minute. */
  cronExpression?: string;
  monotonicNow?: () => number;
}

export interface TickReport {
  at: Date;
  claimed: number;
  skipped: number;
  regenerating: number;
  resumedDelivery: number;
  warmed: boolean;
  /** Users whose sources the pre-warm started refreshing ahead of their slot. */
  refreshing: number;
}

export interface Scheduler {
  readonly instanceId: string;
  /** When the last tick finished; undefined before the first. */
  readonly lastTickAt: Date | undefined;
  readonly lastTickError: string | undefined;
  /** One pass at `now` (default: the clock). Generations it starts run on; `drain()` waits for them. */
  tick(now?: Date): Promise<TickReport>;
  /** Waits for every generation and delivery started so far. */
  drain(): Promise<void>;
  /** Ticks now, then every minute (node-cron). */
  start(): void;
  /** Stops ticking and waits for work in progress, so no send is abandoned mid-call. */
  stop(): Promise<void>;
}

const MINUTE_MS = 60_000;

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { db, clock, runner, deliver } = options;
  const logger = options.logger ?? {};
  const staleAfterMinutes = options.staleAfterMinutes ?? DEFAULT_STALE_AFTER_MINUTES;
  const warmLeadMinutes = options.warmLeadMinutes ?? 5;
  const generationTimeoutMs = (options.generationTimeoutMinutes ?? 20) * MINUTE_MS;
  const instanceId = options.instanceId ?? `briefbot-${process.pid}-${randomBytes(3).toString("hex")}`;
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const limit = createLimiter(options.maxConcurrentGenerations ?? 50);
  const generating = new Map<number, Promise<void>>();
  const limitRefresh = createLimiter(options.maxConcurrentRefreshes ?? 8);
  const refreshing = new Set<Promise<void>>();
  /** `userId:slot:localDate` of occurrences already refreshed ahead, with their slot time. */
  const refreshedAhead = new Map<string, number>();
  const reportedProblems = new Set<string>();
  const warmedBatches = new Set<number>();
  let lastTickAt: Date | undefined;
  let lastTickError: string | undefined;
  let ticking: Promise<TickReport> | undefined;
  let task: ScheduledTask | undefined;
  let lastRecoveryAt: number | undefined;
  const recoveryIntervalMs = (options.recoveryIntervalMinutes ?? 5) * MINUTE_MS;

  async function tick(now: Date = clock.now()): Promise<TickReport> {
    const report: TickReport = {
      at: now,
      claimed: 0,
      skipped: 0,
      regenerating: 0,
      resumedDelivery: 0,
      warmed: false,
      refreshing: 0,
    };
    const users = await listUsers(db);
    const schedulable = users.filter((user) => {
      const problem = scheduleProblem(user);
      if (problem && !reportedProblems.has(`${user.id}:${problem}`)) {
        reportedProblems.add(`${user.id}:${problem}`);
        logger.warn?.({ userId: user.id, user: user.name, problem }, "user cannot be scheduled");
      }
      return !problem;
    });
    const byId = new Map(schedulable.map((user) => [user.id, user]));
    const window = { staleAfterMinutes };
    const due = dueSlots(schedulable, now, window);
    const missed = missedSlots(schedulable, now, window);
    const existing = await existingScheduledKeys(db, [
      ...new Set([...due, ...missed].map((occurrence) => occurrence.localDate)),
    ]);

    for (const occurrence of due) {
      if (existing.has(scheduledKey(occurrence))) continue;
      // The run carries its window from here on: the outbox reads `notAfter` off it, never the slot times.
      const run = await claimScheduledRun(db, { ...occurrence, claimedBy: instanceId, now });
      const user = byId.get(occurrence.userId);
      if (!run || !user) continue;
      report.claimed += 1;
      startGeneration(run, user, occurrence.slot);
    }

    for (const occurrence of missed) {
      if (existing.has(scheduledKey(occurrence))) continue;
      const user = byId.get(occurrence.userId);
      const run = await claimScheduledRun(db, {
        ...occurrence,
        claimedBy: instanceId,
        now,
        state: "skipped",
        reason: missedReason(occurrence, user?.timeZone ?? "UTC"),
      });
      if (run) {
        report.skipped += 1;
        logger.warn?.(
          { runId: run.id, userId: run.userId, slot: run.slot },
          "slot missed its window; skipped",
        );
      }
    }

    // Repair work is for crashes and replicas, not the common path: first tick, then every few minutes.
    if (lastRecoveryAt === undefined || now.getTime() - lastRecoveryAt >= recoveryIntervalMs) {
      lastRecoveryAt = now.getTime();
      report.regenerating = await recoverStalledGenerations(now, byId);
      report.resumedDelivery = await resumeGeneratedRuns();
      await deliver.recover();
    }
    deliver.kick();
    report.refreshing = refreshAhead(schedulable, now);
    report.warmed = await prewarm(schedulable, now);
    return report;
  }

  function startGeneration(run: BriefingRun, user: User, slot: SlotName): void {
    const job = limit(async () => {
      const started = monotonicNow();
      let generated: BriefingMessage | undefined;
      let state: string;
      try {
        generated = await runner({ user, slot, localDate: run.localDate, runId: run.id });
        // A generator that hands back its briefing has stored it; one that does not is checked.
        state = generated ? "generated" : await stateAfterSilentRunner(run.id);
      } catch (error) {
        const reason = `generation failed: ${errorMessage(error)}`;
        await transitionRun(db, run.id, {
          from: ["claimed", "generating"],
          to: "failed",
          now: clock.now(),
          reason,
        });
        logger.error?.({ runId: run.id, error: reason }, "briefing generation failed");
        state = "failed";
      }
      notify(() => options.observer?.generation?.((monotonicNow() - started) / 1000, state));
      if (generated) {
        await deliver.enqueue({
          message: briefingMessageOf(generated),
          claimedAt: run.claimedAt,
          notAfter: run.notAfter,
          timeZone: user.timeZone,
        });
      } else if (state === "generated") {
        await deliver.enqueueRun(run.id);
      }
    })
      .catch((error: unknown) => {
        logger.error?.({ runId: run.id, error: errorMessage(error) }, "scheduled run could not be completed");
      })
      .finally(() => generating.delete(run.id));
    generating.set(run.id, job);
  }

  /** The state a generator left its run in when it handed nothing back; a run it left open is failed. */
  async function stateAfterSilentRunner(runId: number): Promise<string> {
    const after = await getRun(db, runId);
    if (after && (after.state === "claimed" || after.state === "generating")) {
      await transitionRun(db, runId, {
        from: ["claimed", "generating"],
        to: "failed",
        now: clock.now(),
        reason: "the runner returned without storing a briefing",
      });
      return "failed";
    }
    return after?.state ?? "missing";
  }

  async function recoverStalledGenerations(now: Date, users: Map<number, User>): Promise<number> {
    const before = new Date(now.getTime() - generationTimeoutMs);
    let restarted = 0;
    for (const run of await stalledGenerations(db, before)) {
      if (generating.has(run.id)) continue;
      const user = users.get(run.userId);
      // Runs claimed before they carried their window get it from the slot times.
      const notAfter =
        run.notAfter ??
        (user ? slotOccurrence(user, run.slot, run.localDate, { staleAfterMinutes })?.notAfter : undefined);
      if (user && notAfter && now <= notAfter) {
        const taken = await reclaimStalledRun(db, run.id, { claimedBy: instanceId, now, before });
        if (!taken) continue;
        restarted += 1;
        logger.warn?.(
          { runId: run.id, previousWorker: run.claimedBy },
          "generation interrupted; regenerating",
        );
        startGeneration(taken, user, taken.slot);
      } else {
        const failed = await transitionRun(db, run.id, {
          from: ["claimed", "generating"],
          to: "failed",
          now,
          reason: "generation interrupted (process stopped) and the slot's window has closed",
        });
        if (failed) logger.warn?.({ runId: run.id }, "interrupted generation past its window; failed");
      }
    }
    return restarted;
  }

  async function resumeGeneratedRuns(): Promise<number> {
    let resumed = 0;
    for (const run of await scheduledRunsInStates(db, ["generated"])) {
      if (generating.has(run.id)) continue;
      const outcome = await deliver.enqueueRun(run.id);
      if (outcome !== "not-generated") resumed += 1;
    }
    return resumed;
  }

  /**
   * Pre-warm, data side: each user with a slot inside the lead gets their stale sources refreshed once, in
   * the background (the tick does not wait), before the slot time.
   */
  function refreshAhead(users: User[], now: Date): number {
    const refresh = options.refreshSources;
    if (!refresh) return 0;
    const byId = new Map(users.map((user) => [user.id, user]));
    for (const [key, at] of refreshedAhead) if (at < now.getTime() - MINUTE_MS) refreshedAhead.delete(key);
    let started = 0;
    for (const occurrence of upcomingSlots(users, now, warmLeadMinutes)) {
      const key = `${occurrence.userId}:${occurrence.slot}:${occurrence.localDate}`;
      const user = byId.get(occurrence.userId);
      if (!user || refreshedAhead.has(key)) continue;
      refreshedAhead.set(key, occurrence.scheduledAt.getTime());
      started += 1;
      const job: Promise<void> = limitRefresh(() => refresh(user, occurrence.scheduledAt))
        .then(() => undefined)
        .catch((error: unknown) => {
          logger.warn?.({ userId: user.id, error: errorMessage(error) }, "refresh ahead of a slot failed");
        })
        .finally(() => refreshing.delete(job));
      refreshing.add(job);
    }
    return started;
  }

  async function prewarm(users: User[], now: Date): Promise<boolean> {
    if (!options.model) return false;
    const batches = upcomingSlots(users, now, warmLeadMinutes)
      .map((occurrence) => occurrence.scheduledAt.getTime())
      .filter((at) => !warmedBatches.has(at));
    if (batches.length === 0) return false;
    for (const at of batches) warmedBatches.add(at);
    for (const at of warmedBatches) if (at < now.getTime() - MINUTE_MS) warmedBatches.delete(at);
    try {
      await options.model.warm("briefing");
      logger.info?.({ batches: batches.length }, "warmed the briefing model ahead of scheduled slots");
    } catch (error) {
      logger.warn?.({ error: errorMessage(error) }, "pre-warm failed");
    }
    return true;
  }

  async function guardedTick(now?: Date): Promise<TickReport> {
    if (ticking) return ticking;
    ticking = tick(now)
      .then((report) => {
        lastTickAt = report.at;
        lastTickError = undefined;
        return report;
      })
      .catch((error: unknown) => {
        lastTickError = errorMessage(error);
        logger.error?.({ error: lastTickError }, "scheduler tick failed");
        throw error;
      })
      .finally(() => {
        ticking = undefined;
      });
    return ticking;
  }

  async function drain(): Promise<void> {
    while (ticking || generating.size > 0 || refreshing.size > 0) {
      await Promise.allSettled([ticking, ...generating.values(), ...refreshing]);
    }
    await deliver.drain();
    // A delivery may have finished a run whose settling started another pass.
    if (generating.size > 0) await drain();
  }

  return {
    instanceId,
    get lastTickAt() {
      return lastTickAt;
    },
    get lastTickError() {
      return lastTickError;
    },
    tick: guardedTick,
    drain,
    start() {
      if (task) return;
      task = cron.schedule(options.cronExpression ?? "* * * * *", () => guardedTick().catch(() => {}), {
        name: `briefbot-scheduler-${instanceId}`,
        noOverlap: true,
      });
      guardedTick().catch(() => {});
    },
    async stop() {
      await task?.stop();
      await task?.destroy();
      task = undefined;
      await drain();
    },
  };
}

/** Creates the scheduler and starts ticking (first tick now: catch-up after downtime). */
export function startScheduler(options: SchedulerOptions): Scheduler {
  const scheduler = createScheduler(options);
  scheduler.start();
  return scheduler;
}

function missedReason(occurrence: SlotOccurrence, zone: string): string {
  return `missed window: slot ${occurrence.time} (not after ${formatLocal(occurrence.notAfter, zone, "HH:mm")}) passed while briefbot was not running`;
}

/** At most `max` jobs at once, the rest in arrival order. */
function createLimiter(max: number): <T>(job: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (job) => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await job();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}
