/**
 * The scheduler: every minute, claim each due (user, slot, local date) once, generate it through the
 * runner and hand it to the outbox; and, every few seconds, give back to work what a stopped process left.
 *
 * It changes runs only through the core's `RunLifecycle`, and decides two things, here and nowhere else:
 * - which slots are due, missed (their window closed with no run: `skipped`) or coming up (pre-warm);
 * - what becomes of an orphan — a run claimed or generating under a process that is gone (its lease
 *   lapsed; on the embedded database, which one process owns, every earlier process): inside its window
 *   it is reclaimed and generated again at once, still exactly once; past it, or a manual run, it fails.
 * A generated run that no outbox took (its process died in between) is handed to the outbox again.
 */
import cron, { type ScheduledTask } from "node-cron";
import type { BriefingOutcome } from "../core/assistant.ts";
import type { Clock } from "../core/clock.ts";
import type { BriefingRun, SlotName, User } from "../core/domain.ts";
import { errorMessage, RunTakenError } from "../core/errors.ts";
import { formatLocal } from "../core/local-time.ts";
import type { ModelClient } from "../core/model.ts";
import type { RunLifecycle, RunQueue, Users } from "../core/ports.ts";
import { type GenerationObserver, notify, type OpsLogger } from "../delivery/hooks.ts";
import type { Outbox } from "../delivery/outbox.ts";
import {
  DEFAULT_STALE_AFTER_MINUTES,
  dueSlots,
  missedSlots,
  type SlotOccurrence,
  scheduleProblem,
  upcomingSlots,
} from "./slot-time.ts";

export interface GenerateRequest {
  user: User;
  slot: SlotName;
  /** The claimed run; the runner moves it claimed → generating → generated (or failed), and records a failure. */
  runId: number;
}

/** Generates a claimed run: `composeCore`'s `generateBriefing`. */
export type BriefingGenerator = (request: GenerateRequest) => Promise<BriefingOutcome>;

/** What the scheduler reads and changes, all through the core's ports. */
export interface SchedulerPorts {
  users: Pick<Users, "list">;
  lifecycle: Pick<RunLifecycle, "claim" | "skipMissed" | "reclaim" | "fail">;
  runQueue: Pick<RunQueue, "scheduledKeys" | "orphaned" | "inStates">;
}

export interface SchedulerOptions {
  ports: SchedulerPorts;
  clock: Clock;
  /** This process: the owner of the runs it claims (its lease keeps them its own). */
  owner: string;
  runner: BriefingGenerator;
  deliver: Outbox;
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
  /** Generations started at once; the rest wait (the model queue orders them anyway). Default 50. */
  maxConcurrentGenerations?: number;
  logger?: OpsLogger;
  observer?: GenerationObserver;
  /** How often orphans are looked for (and on `start`). Default 10 s. */
  recoveryIntervalMs?: number;
  /** Cron expression for the tick. Default every minute. */
  cronExpression?: string;
  monotonicNow?: () => number;
}

export interface TickReport {
  at: Date;
  claimed: number;
  skipped: number;
  warmed: boolean;
  /** Users whose sources the pre-warm started refreshing ahead of their slot. */
  refreshing: number;
}

/** What one recovery pass gave back to work. */
export interface RecoveryReport {
  /** Orphans reclaimed and generating again. */
  regenerating: number;
  /** Orphans past their window (or manual), failed with a reason. */
  failed: number;
  /** Generated runs no outbox had taken, handed to it. */
  resumedDelivery: number;
}

export interface Scheduler {
  readonly owner: string;
  /** When the last tick finished; undefined before the first. */
  readonly lastTickAt: Date | undefined;
  readonly lastTickError: string | undefined;
  /** One pass at `now` (default: the clock). Generations it starts run on; `drain()` waits for them. */
  tick(now?: Date): Promise<TickReport>;
  /** Gives back to work what stopped processes left (also every `recoveryIntervalMs` once started). */
  recover(now?: Date): Promise<RecoveryReport>;
  /** Waits for every generation and delivery started so far. */
  drain(): Promise<void>;
  /** Recovers and ticks now, then ticks every minute (node-cron) and recovers every few seconds. */
  start(): void;
  /** Stops ticking and waits for work in progress, so no send is abandoned mid-call. */
  stop(): Promise<void>;
}

const MINUTE_MS = 60_000;

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { ports, clock, runner, deliver, owner } = options;
  const logger = options.logger ?? {};
  const staleAfterMinutes = options.staleAfterMinutes ?? DEFAULT_STALE_AFTER_MINUTES;
  const warmLeadMinutes = options.warmLeadMinutes ?? 5;
  const recoveryIntervalMs = options.recoveryIntervalMs ?? 10_000;
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
  let recovering: Promise<RecoveryReport> | undefined;
  let task: ScheduledTask | undefined;
  let recoveryTimer: NodeJS.Timeout | undefined;

  async function schedulableUsers(): Promise<User[]> {
    const users = await ports.users.list();
    return users.filter((user) => {
      const problem = scheduleProblem(user);
      if (problem && !reportedProblems.has(`${user.id}:${problem}`)) {
        reportedProblems.add(`${user.id}:${problem}`);
        logger.warn?.({ userId: user.id, user: user.name, problem }, "user cannot be scheduled");
      }
      return !problem;
    });
  }

  async function tick(now: Date = clock.now()): Promise<TickReport> {
    const report: TickReport = { at: now, claimed: 0, skipped: 0, warmed: false, refreshing: 0 };
    const schedulable = await schedulableUsers();
    const byId = new Map(schedulable.map((user) => [user.id, user]));
    const window = { staleAfterMinutes };
    const due = dueSlots(schedulable, now, window);
    const missed = missedSlots(schedulable, now, window);
    const existing = await ports.runQueue.scheduledKeys([
      ...new Set([...due, ...missed].map((occurrence) => occurrence.localDate)),
    ]);
    const known = (occurrence: SlotOccurrence) =>
      existing.has(`${occurrence.userId}|${occurrence.slot}|${occurrence.localDate}`);

    for (const occurrence of due) {
      if (known(occurrence)) continue;
      // The run carries its window from here on: the outbox reads `notAfter` off it, never the slot times.
      const run = await ports.lifecycle.claim(occurrence, owner, now);
      const user = byId.get(occurrence.userId);
      if (!run || !user) continue;
      report.claimed += 1;
      startGeneration(run, user);
    }

    for (const occurrence of missed) {
      if (known(occurrence)) continue;
      const user = byId.get(occurrence.userId);
      const reason = missedReason(occurrence, user?.timeZone ?? "UTC");
      const run = await ports.lifecycle.skipMissed(occurrence, owner, reason, now);
      if (run) {
        report.skipped += 1;
        logger.warn?.(
          { runId: run.id, userId: run.userId, slot: run.slot },
          "slot missed its window; skipped",
        );
      }
    }

    deliver.kick();
    report.refreshing = refreshAhead(schedulable, now);
    report.warmed = await prewarm(schedulable, now);
    return report;
  }

  function startGeneration(run: BriefingRun, user: User): void {
    const job = limit(async () => {
      const started = monotonicNow();
      let state = "generated";
      try {
        // The runner records its own failure on the run; here it is only logged and counted.
        await runner({ user, slot: run.slot, runId: run.id });
      } catch (error) {
        state = error instanceof RunTakenError ? "taken" : "failed";
        const level = error instanceof RunTakenError ? "warn" : "error";
        logger[level]?.({ runId: run.id, error: errorMessage(error) }, "briefing generation did not finish");
      }
      notify(() => options.observer?.generation?.((monotonicNow() - started) / 1000, state));
      if (state === "generated") await deliver.enqueue(run.id);
    })
      .catch((error: unknown) => {
        logger.error?.({ runId: run.id, error: errorMessage(error) }, "scheduled run could not be completed");
      })
      .finally(() => generating.delete(run.id));
    generating.set(run.id, job);
  }

  async function recover(now: Date = clock.now()): Promise<RecoveryReport> {
    const report: RecoveryReport = { regenerating: 0, failed: 0, resumedDelivery: 0 };
    const orphans = await ports.runQueue.orphaned({ owner, at: now, everyOtherOwner: false });
    if (orphans.length > 0) {
      const users = new Map((await ports.users.list()).map((user) => [user.id, user]));
      for (const run of orphans) {
        if (generating.has(run.id)) continue;
        const outcome = await recoverOrphan(run, users.get(run.userId), now);
        if (outcome === "regenerating") report.regenerating += 1;
        if (outcome === "failed") report.failed += 1;
      }
    }
    for (const run of await ports.runQueue.inStates(["generated"])) {
      if (generating.has(run.id)) continue;
      const outcome = await deliver.enqueue(run.id);
      if (outcome !== "not-generated") report.resumedDelivery += 1;
    }
    await deliver.recover();
    return report;
  }

  /** Inside its window a scheduled orphan is generated again at once; otherwise it fails, saying why. */
  async function recoverOrphan(
    run: BriefingRun,
    user: User | undefined,
    now: Date,
  ): Promise<"regenerating" | "failed" | "lost-race"> {
    const previousOwner = run.claimedBy ?? "";
    const inWindow = run.trigger === "schedule" && run.notAfter !== null && now <= run.notAfter;
    if (user && inWindow) {
      const taken = await ports.lifecycle.reclaim(run.id, previousOwner, owner, now);
      if (!taken) return "lost-race";
      logger.warn?.(
        { runId: run.id, previousOwner },
        "generation interrupted (its process stopped); regenerating",
      );
      startGeneration(taken, user);
      return "regenerating";
    }
    const reason =
      run.trigger === "schedule"
        ? "generation interrupted (its process stopped) and the slot's window has closed"
        : "generation interrupted: the process making this briefing stopped; ask for it again";
    const failed = await ports.lifecycle.fail(run.id, previousOwner, reason, now);
    if (!failed) return "lost-race";
    logger.warn?.({ runId: run.id, previousOwner }, "interrupted generation could not be resumed; failed");
    return "failed";
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

  async function guardedRecover(now?: Date): Promise<RecoveryReport> {
    if (recovering) return recovering;
    recovering = recover(now)
      .catch((error: unknown) => {
        logger.warn?.({ error: errorMessage(error) }, "recovery pass failed; the next one tries again");
        throw error;
      })
      .finally(() => {
        recovering = undefined;
      });
    return recovering;
  }

  async function drain(): Promise<void> {
    while (ticking || recovering || generating.size > 0 || refreshing.size > 0) {
      await Promise.allSettled([ticking, recovering, ...generating.values(), ...refreshing]);
    }
    await deliver.drain();
    // A delivery may have finished a run whose settling started another pass.
    if (generating.size > 0) await drain();
  }

  return {
    owner,
    get lastTickAt() {
      return lastTickAt;
    },
    get lastTickError() {
      return lastTickError;
    },
    tick: guardedTick,
    recover: guardedRecover,
    drain,
    start() {
      if (task) return;
      task = cron.schedule(options.cronExpression ?? "* * * * *", () => guardedTick().catch(() => {}), {
        name: `briefbot-scheduler-${owner}`,
        noOverlap: true,
      });
      // Catch-up first: orphans of a stopped process go back to work before new slots are claimed.
      guardedRecover()
        .catch(() => undefined)
        .then(() => guardedTick())
        .catch(() => {});
      recoveryTimer = setInterval(() => guardedRecover().catch(() => {}), recoveryIntervalMs);
      recoveryTimer.unref();
    },
    async stop() {
      clearInterval(recoveryTimer);
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
