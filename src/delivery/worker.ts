/**
 * The delivery worker: turns a generated run into outbox rows, then posts each row through its
 * platform's `PlatformSender`, paced under the platform's limits.
 *
 * Exactly-once rules:
 * - a row is marked `sending` (with `sendingAt`) by a conditional update right before the platform call;
 *   only the replica whose update matched sends;
 * - a row found in `sending` without a message id after `interruptedAfterMs` belonged to a process that
 *   died mid-call. Telegram and Slack take no idempotency key and offer no "did this post arrive?" lookup,
 *   so it is failed ("interrupted mid-send; not re-sent to avoid a duplicate"), never re-sent;
 * - a send that certainly did not reach the platform (a `DeliveryError` answer such as 5xx or 429, or a
 *   network failure before the request was written: see `send-outcome.ts`) is retried with backoff
 *   (honouring `retryAfterMs`) until the slot's window closes; a permanent refusal fails the row with the
 *   platform's reason;
 * - any other error leaves the outcome unknown (the request may have reached the platform): the row is
 *   failed as "send outcome unknown", never re-sent. Keep-alive connections, a request timeout and a
 *   bounded number of sends in flight (the platform transports) keep this rare; `/metrics` counts both.
 */
import type { Database } from "../../db/client.ts";
import {
  type DeliveryPlatform,
  type DeliveryTarget,
  deliveriesOfRun,
  deliveryTargetsOf,
  dueDeliveries,
  enqueueDeliveries,
  failInterruptedSends,
  markDeliveryFailed,
  markDeliveryRetry,
  markDeliverySent,
  runIdsWithOpenDeliveries,
  startDeliveryAttempt,
} from "../../db/queries/deliveries.ts";
import { getRun } from "../../db/queries/runs.ts";
import { scheduledRunsInStates, transitionRun } from "../../db/queries/schedule.ts";
import { getUser } from "../../db/queries/users.ts";
import type { BriefingRun, Delivery } from "../../db/schema/index.ts";
import type { BriefingMessage, PlatformSender } from "../core/assistant.ts";
import type { Clock } from "../core/clock.ts";
import { formatLocal } from "../core/local-time.ts";
import { DEFAULT_STALE_AFTER_MINUTES, slotOccurrence } from "../scheduler/slot-time.ts";
import { loadBriefingMessage, UndeliverableRunError } from "./briefing-message.ts";
import { type DeliveryObserver, notify, type OpsLogger } from "./hooks.ts";
import { createPacer, type Pacer, SLACK_LIMITS, TELEGRAM_LIMITS } from "./pacer.ts";
import { createSemaphore, type Semaphore } from "./semaphore.ts";
import { classifySendFailure, type SendFailure } from "./send-outcome.ts";
import { settleRun } from "./settle-run.ts";

export const NO_PLATFORM_REASON = "no platform linked; see briefbot receipts";

export interface DeliveryWorkerOptions {
  db: Database;
  clock: Clock;
  /** One per configured platform; a user linked on a platform without a sender gets a failed row. */
  senders: PlatformSender[];
  /** Default: Telegram 23/s global (under its ~30/s) and 1/s per chat; Slack 10/s and 1/s per channel. */
  pacers?: Partial<Record<PlatformSender["platform"], Pacer>>;
  /** Post every Slack briefing here instead of each user's DM (SLACK_CHANNEL). */
  slackChannel?: string | undefined;
  staleAfterMinutes?: number;
  /**
   * Attempts before a row that keeps failing without reaching the platform is given up; the slot's
   * window usually ends it first. Default 30.
   */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to `maxBackoffMs`. Default 1 s, cap 5 min. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Platform calls in flight at once, per platform. Default 16. */
  maxConcurrentSends?: number;
  /** A `sending` row older than this is considered orphaned by a dead process. Default 5 min. */
  interruptedAfterMs?: number;
  logger?: OpsLogger;
  observer?: DeliveryObserver;
  /** Monotonic milliseconds for measuring send durations. */
  monotonicNow?: () => number;
}

export type EnqueueOutcome = "delivering" | "delivered-no-platform" | "skipped-window" | "not-generated";

export interface DeliveryWorker {
  /** generated → delivering with one outbox row per linked platform (idempotent), then starts sending. */
  enqueueRun(runId: number): Promise<EnqueueOutcome>;
  /** Sends every due pending row; resolves when those sends have ended. */
  runDue(): Promise<void>;
  /** Starts `runDue` in the background unless one is running (then it runs again once it finishes). */
  kick(): void;
  /** Restart repair: fails orphaned `sending` rows, settles runs whose rows are all final. */
  recover(): Promise<void>;
  /** Waits for every send and background pass started so far. */
  drain(): Promise<void>;
  readonly platforms: DeliveryPlatform[];
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, clock } = options;
  const logger = options.logger ?? {};
  const observer = options.observer ?? {};
  const staleAfterMinutes = options.staleAfterMinutes ?? DEFAULT_STALE_AFTER_MINUTES;
  const maxAttempts = options.maxAttempts ?? 30;
  const baseBackoffMs = options.baseBackoffMs ?? 1_000;
  const maxBackoffMs = options.maxBackoffMs ?? 300_000;
  const interruptedAfterMs = options.interruptedAfterMs ?? 300_000;
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const senders = new Map(options.senders.map((sender) => [sender.platform, sender]));
  const pacers = new Map<string, Pacer>();
  const sendSlots = new Map<string, Semaphore>();
  for (const sender of options.senders) {
    sendSlots.set(sender.platform, createSemaphore(options.maxConcurrentSends ?? 16));
    pacers.set(
      sender.platform,
      options.pacers?.[sender.platform] ??
        createPacer(sender.platform === "telegram" ? TELEGRAM_LIMITS : SLACK_LIMITS),
    );
  }
  const platforms = [...senders.keys()];
  const inFlight = new Map<number, Promise<void>>();
  let pass: Promise<void> | undefined;
  let passRequested = false;

  async function notAfterOf(run: BriefingRun): Promise<Date | undefined> {
    if (run.trigger !== "schedule") return undefined;
    const user = await getUser(db, run.userId);
    const occurrence = user
      ? slotOccurrence(user, run.slot, run.localDate, { staleAfterMinutes })
      : undefined;
    // A slot switched off since the claim still gets a window, counted from the claim.
    return occurrence?.notAfter ?? new Date(run.claimedAt.getTime() + staleAfterMinutes * 60_000);
  }

  async function enqueueRun(runId: number): Promise<EnqueueOutcome> {
    const run = await getRun(db, runId);
    if (run?.state !== "generated") return "not-generated";
    const now = clock.now();
    const notAfter = await notAfterOf(run);
    if (notAfter && now > notAfter) {
      const user = await getUser(db, run.userId);
      const zone = user?.timeZone ?? "UTC";
      await transitionRun(db, runId, {
        from: ["generated"],
        to: "skipped",
        now,
        reason: `missed window: ready at ${formatLocal(now, zone, "HH:mm")}, after its not-after ${formatLocal(notAfter, zone, "HH:mm")}`,
      });
      logger.warn?.({ runId }, "briefing generated after its window; skipped");
      return "skipped-window";
    }
    const targets = await targetsFor(run.userId);
    if (targets.length === 0) {
      // The CLI is the embedded channel: the briefing is readable there (`briefbot receipts`), and the
      // reason says so, so "delivered" never hides a briefing nobody can see.
      await enqueueDeliveries(
        db,
        { runId, userId: run.userId },
        [{ platform: "cli", target: "log", state: "sent" }],
        now,
      );
      await transitionRun(db, runId, {
        from: ["generated"],
        to: "delivered",
        now,
        reason: NO_PLATFORM_REASON,
      });
      logger.info?.({ runId, userId: run.userId }, "no platform linked; briefing kept for the CLI");
      return "delivered-no-platform";
    }
    await enqueueDeliveries(
      db,
      { runId, userId: run.userId },
      targets.map((target) =>
        senders.has(target.platform as PlatformSender["platform"])
          ? target
          : {
              ...target,
              state: "failed" as const,
              lastError: `${target.platform} is not configured on this server`,
            },
      ),
      now,
    );
    await transitionRun(db, runId, { from: ["generated"], to: "delivering", now });
    await settleRun(db, runId, now);
    kick();
    return "delivering";
  }

  async function targetsFor(userId: number): Promise<DeliveryTarget[]> {
    const targets = await deliveryTargetsOf(db, userId);
    if (!options.slackChannel) return targets;
    const others = targets.filter((target) => target.platform !== "slack");
    return targets.some((target) => target.platform === "slack")
      ? [...others, { platform: "slack", target: options.slackChannel }]
      : targets;
  }

  async function runDue(): Promise<void> {
    await startDue();
    await Promise.all([...inFlight.values()]);
  }

  /** Starts a send for every due row not already in flight; does not wait for the sends. */
  async function startDue(): Promise<void> {
    for (;;) {
      const due = await dueDeliveries(db, {
        now: clock.now(),
        platforms,
        limit: 500,
        excludeIds: [...inFlight.keys()],
      });
      if (due.length === 0) break;
      for (const row of due) {
        const sending = sendOne(row)
          .catch((error: unknown) =>
            logger.error?.({ deliveryId: row.id, error: errorText(error) }, "delivery failed"),
          )
          .finally(() => inFlight.delete(row.id));
        inFlight.set(row.id, sending);
      }
    }
  }

  const messages = new Map<
    number,
    Promise<{ message: BriefingMessage; notAfter: Date | undefined; run: BriefingRun }>
  >();

  function messageFor(runId: number) {
    let cached = messages.get(runId);
    if (!cached) {
      cached = (async () => {
        const run = await getRun(db, runId);
        if (!run) throw new UndeliverableRunError(`run ${runId} no longer exists`);
        return { message: await loadBriefingMessage(db, runId), notAfter: await notAfterOf(run), run };
      })();
      messages.set(runId, cached);
      // Only fan-out bursts share a run's message; drop it soon so memory stays flat.
      cached.finally(() => setTimeout(() => messages.delete(runId), 60_000).unref()).catch(() => {});
    }
    return cached;
  }

  async function sendOne(row: Delivery): Promise<void> {
    const sender = senders.get(row.platform as PlatformSender["platform"]);
    const pacer = pacers.get(row.platform);
    if (!sender || !pacer) return;
    let prepared: Awaited<ReturnType<typeof messageFor>>;
    try {
      prepared = await messageFor(row.runId);
    } catch (error) {
      // Claim first, so a replica that is sending this row is never overruled.
      if (await startDeliveryAttempt(db, row.id, clock.now())) {
        await markDeliveryFailed(db, row.id, errorText(error));
        await settleRun(db, row.runId, clock.now());
      }
      return;
    }
    await pacer.acquire(row.target);
    const slots = sendSlots.get(row.platform);
    const releaseSlot = await slots?.acquire();
    try {
      const attempt = await startDeliveryAttempt(db, row.id, clock.now());
      if (!attempt) return;
      await pacer.beforeSend();
      await deliverRow(attempt, sender, prepared);
    } finally {
      releaseSlot?.();
    }
  }

  async function deliverRow(
    row: Delivery,
    sender: PlatformSender,
    prepared: Awaited<ReturnType<typeof messageFor>>,
  ): Promise<void> {
    const started = monotonicNow();
    const seconds = () => (monotonicNow() - started) / 1000;
    try {
      const receipt = await sender.deliver(row.target, prepared.message);
      const sentAt = clock.now();
      await markDeliverySent(db, row.id, receipt.platformMessageId, sentAt);
      notify(() => observer.deliveryAttempt?.(row.platform, seconds(), "sent"));
      const occurrenceStart = prepared.notAfter
        ? prepared.notAfter.getTime() - staleAfterMinutes * 60_000
        : prepared.run.claimedAt.getTime();
      notify(() =>
        observer.deliveryLag?.(row.platform, Math.max(0, (sentAt.getTime() - occurrenceStart) / 1000)),
      );
    } catch (error) {
      const failure = classifySendFailure(error);
      notify(() => observer.deliveryAttempt?.(row.platform, seconds(), failure.kind));
      if (await recordFailure(row, failure, prepared.notAfter)) return;
    }
    await settleRun(db, row.runId, clock.now());
  }

  /** Records a failed attempt; true when the row will be retried. */
  async function recordFailure(
    row: Delivery,
    failure: SendFailure,
    notAfter: Date | undefined,
  ): Promise<boolean> {
    const now = clock.now();
    const text = failure.reason;
    const log = {
      deliveryId: row.id,
      runId: row.runId,
      platform: row.platform,
      attempt: row.attempts,
      error: text,
    };
    if (failure.kind === "refused") {
      await markDeliveryFailed(db, row.id, text);
      logger.warn?.(log, "delivery refused permanently");
      return false;
    }
    if (failure.kind === "unknown") {
      await markDeliveryFailed(
        db,
        row.id,
        `send outcome unknown (${text}); not re-sent to avoid a duplicate`,
      );
      logger.error?.(log, "delivery outcome unknown; not retried");
      return false;
    }
    if (row.attempts >= maxAttempts) {
      await markDeliveryFailed(db, row.id, `gave up after ${row.attempts} attempts: ${text}`);
      logger.warn?.(log, "delivery gave up");
      return false;
    }
    // A connection that broke before the request left is most often a stale keep-alive socket: the first
    // retry goes at once, on a fresh one. Platform answers (5xx, 429) and repeats back off.
    const backoff =
      !failure.answered && row.attempts === 1
        ? 0
        : Math.min(maxBackoffMs, baseBackoffMs * 2 ** Math.max(0, row.attempts - 1));
    const retryAfter = failure.retryAfterMs ?? 0;
    const nextAttemptAt = new Date(now.getTime() + Math.max(backoff, retryAfter));
    if (notAfter && nextAttemptAt > notAfter) {
      await markDeliveryFailed(db, row.id, `missed window while retrying: ${text}`);
      logger.warn?.(log, "delivery window closed while retrying");
      return false;
    }
    await markDeliveryRetry(db, row.id, text, nextAttemptAt);
    logger.info?.({ ...log, nextAttemptAt }, "delivery will be retried (it never reached the platform)");
    setTimeout(kick, Math.max(0, nextAttemptAt.getTime() - now.getTime())).unref();
    return true;
  }

  async function recover(): Promise<void> {
    const now = clock.now();
    const orphaned = await failInterruptedSends(db, new Date(now.getTime() - interruptedAfterMs));
    for (const runId of orphaned)
      logger.warn?.({ runId }, "delivery interrupted mid-send; marked failed, not re-sent");
    const open = new Set(await runIdsWithOpenDeliveries(db));
    for (const run of await scheduledRunsInStates(db, ["delivering"])) {
      if (open.has(run.id)) continue;
      const rows = await deliveriesOfRun(db, run.id);
      if (rows.length === 0) {
        // Crashed between the state change and the rows (cannot happen with the current order, but cheap).
        await transitionRun(db, run.id, { from: ["delivering"], to: "generated", now });
        await enqueueRun(run.id);
      } else {
        await settleRun(db, run.id, now);
      }
    }
    for (const runId of orphaned) await settleRun(db, runId, now);
  }

  /**
   * Looks for due rows now (or once more after the look in progress). New rows start while earlier sends
   * are still in flight: one slow send never holds back the briefings generated after it.
   */
  function kick(): void {
    if (pass) {
      passRequested = true;
      return;
    }
    pass = startDue()
      .catch((error: unknown) => logger.error?.({ error: errorText(error) }, "delivery pass failed"))
      .finally(() => {
        pass = undefined;
        if (passRequested) {
          passRequested = false;
          kick();
        }
      });
  }

  async function drain(): Promise<void> {
    while (pass || inFlight.size > 0) {
      await Promise.all([pass, ...inFlight.values()]);
    }
  }

  return { enqueueRun, runDue, kick, recover, drain, platforms };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
