/**
 * The delivery worker: takes a generated briefing as the runner handed it over (or, after a restart, as
 * the run stored it), turns it into outbox rows, then posts each row through its platform's
 * `PlatformSender`, which resolves where the post goes and paces it under the platform's limits. The run
 * carries its own window (`notAfter`, set when the scheduler claimed it): the worker asks the scheduler
 * nothing.
 *
 * Exactly-once rules:
 * - a row is marked `sending` (with `sendingAt`) by a conditional update right before the platform call
 *   (the sender's `begin()`, once its turn has come); only the replica whose update matched sends;
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
  deliveriesOfRun,
  dueDeliveries,
  enqueueDeliveries,
  failInterruptedSends,
  markDeliveryFailed,
  markDeliveryRetry,
  markDeliverySent,
  recipientsOf,
  runIdsWithOpenDeliveries,
  startDeliveryAttempt,
} from "../../db/queries/deliveries.ts";
import { scheduledRunsInStates, transitionRun } from "../../db/queries/schedule.ts";
import type { Delivery, Identity } from "../../db/schema/index.ts";
import type { PlatformSender } from "../core/assistant.ts";
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";
import { formatLocal } from "../core/local-time.ts";
import { type GeneratedBriefing, loadGeneratedBriefing, UndeliverableRunError } from "./briefing-message.ts";
import { type DeliveryObserver, notify, type OpsLogger } from "./hooks.ts";
import { createSemaphore, type Semaphore } from "./semaphore.ts";
import { classifySendFailure, type SendFailure } from "./send-outcome.ts";
import { settleRun } from "./settle-run.ts";

export const NO_PLATFORM_REASON = "no platform linked; see briefbot receipts";

export interface DeliveryWorkerOptions {
  db: Database;
  clock: Clock;
  /**
   * One per configured platform; a user linked on a platform without a sender gets a failed row. Senders
   * resolve where a briefing goes and pace their posts; the worker keeps the books.
   */
  senders: PlatformSender[];
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

export type EnqueueOutcome =
  | "delivering"
  | "delivered-no-platform"
  | "skipped-window"
  | "not-generated"
  | "undeliverable";

export interface DeliveryWorker {
  /**
   * Takes over a run the runner just generated, as it made it: generated → delivering with one outbox row
   * per linked platform (idempotent), then starts sending. A briefing past its not-after is skipped.
   */
  enqueue(briefing: GeneratedBriefing): Promise<EnqueueOutcome>;
  /** The same for a run known only by id (a restart found it generated, `brief --deliver`): read once. */
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

/** A run's briefing and its recipients, kept from enqueue until the run settles. */
interface Outgoing {
  briefing: GeneratedBriefing;
  recipients: Map<Identity["platform"], Identity>;
  at: number;
}

/** A run still unsettled after this is dropped from memory; a later send reads it back (as after a restart). */
const OUTGOING_KEPT_MS = 6 * 3_600_000;

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, clock } = options;
  const logger = options.logger ?? {};
  const observer = options.observer ?? {};
  const maxAttempts = options.maxAttempts ?? 30;
  const baseBackoffMs = options.baseBackoffMs ?? 1_000;
  const maxBackoffMs = options.maxBackoffMs ?? 300_000;
  const interruptedAfterMs = options.interruptedAfterMs ?? 300_000;
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const senders = new Map(options.senders.map((sender) => [sender.platform, sender]));
  const sendSlots = new Map<string, Semaphore>();
  for (const sender of options.senders) {
    sendSlots.set(sender.platform, createSemaphore(options.maxConcurrentSends ?? 16));
  }
  const platforms = [...senders.keys()];
  const inFlight = new Map<number, Promise<void>>();
  /** Briefings handed over and not yet settled, by run id. */
  const outgoing = new Map<number, Promise<Outgoing>>();
  let pass: Promise<void> | undefined;
  let passRequested = false;

  function keep(briefing: GeneratedBriefing, recipients: Identity[]): void {
    const now = clock.now().getTime();
    for (const [runId, entry] of outgoing) {
      entry.then((kept) => kept.at < now - OUTGOING_KEPT_MS && outgoing.delete(runId)).catch(() => {});
    }
    const entry: Outgoing = {
      briefing,
      recipients: new Map(recipients.map((recipient) => [recipient.platform, recipient])),
      at: now,
    };
    outgoing.set(briefing.message.runId, Promise.resolve(entry));
  }

  /** The briefing of a run whose rows are due: handed over earlier, or read back once (after a restart). */
  function outgoingOf(runId: number): Promise<Outgoing> {
    let entry = outgoing.get(runId);
    if (!entry) {
      entry = (async () => {
        const loaded = await loadGeneratedBriefing(db, runId);
        if (!loaded) throw new UndeliverableRunError(`run ${runId} no longer exists`);
        const recipients = await recipientsOf(db, loaded.briefing.message.userId);
        return {
          briefing: loaded.briefing,
          recipients: new Map(recipients.map((recipient) => [recipient.platform, recipient])),
          at: clock.now().getTime(),
        };
      })();
      outgoing.set(runId, entry);
      entry.catch(() => outgoing.delete(runId));
    }
    return entry;
  }

  /** Derives the run's state from its rows once all are final, and forgets its briefing then. */
  async function settle(runId: number, now: Date): Promise<void> {
    if (await settleRun(db, runId, now)) outgoing.delete(runId);
  }

  async function enqueue(briefing: GeneratedBriefing): Promise<EnqueueOutcome> {
    const { message, notAfter } = briefing;
    const { runId, userId } = message;
    const now = clock.now();
    if (notAfter && now > notAfter) {
      const zone = briefing.timeZone;
      const skipped = await transitionRun(db, runId, {
        from: ["generated"],
        to: "skipped",
        now,
        reason: `missed window: ready at ${formatLocal(now, zone, "HH:mm")}, after its not-after ${formatLocal(notAfter, zone, "HH:mm")}`,
      });
      if (!skipped) return "not-generated";
      logger.warn?.({ runId }, "briefing generated after its window; skipped");
      return "skipped-window";
    }
    const recipients = await recipientsOf(db, userId);
    if (recipients.length === 0) {
      // The CLI is the embedded channel: the briefing is readable there (`briefbot receipts`), and the
      // reason says so, so "delivered" never hides a briefing nobody can see.
      await enqueueDeliveries(
        db,
        { runId, userId },
        [{ platform: "cli", target: "log", state: "sent" }],
        now,
      );
      await transitionRun(db, runId, {
        from: ["generated"],
        to: "delivered",
        now,
        reason: NO_PLATFORM_REASON,
      });
      logger.info?.({ runId, userId }, "no platform linked; briefing kept for the CLI");
      return "delivered-no-platform";
    }
    await enqueueDeliveries(
      db,
      { runId, userId },
      recipients.map((recipient) => {
        // Where the post lands is the sender's to resolve; until then the row names the account's chat.
        const target = { platform: recipient.platform, target: recipient.chatId ?? recipient.externalUserId };
        return senders.has(recipient.platform)
          ? target
          : {
              ...target,
              state: "failed" as const,
              lastError: `${recipient.platform} is not configured on this server`,
            };
      }),
      now,
    );
    keep(briefing, recipients);
    await transitionRun(db, runId, { from: ["generated"], to: "delivering", now });
    await settle(runId, now);
    kick();
    return "delivering";
  }

  async function enqueueRun(runId: number): Promise<EnqueueOutcome> {
    let loaded: Awaited<ReturnType<typeof loadGeneratedBriefing>>;
    try {
      loaded = await loadGeneratedBriefing(db, runId);
    } catch (error) {
      if (!(error instanceof UndeliverableRunError)) throw error;
      const failed = await transitionRun(db, runId, {
        from: ["generated"],
        to: "failed",
        now: clock.now(),
        reason: error.message,
      });
      return failed ? "undeliverable" : "not-generated";
    }
    if (loaded?.state !== "generated") return "not-generated";
    return enqueue(loaded.briefing);
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
        // Another pass (a retry's timer, `runDue`) may have started this row while this one queried.
        if (inFlight.has(row.id)) continue;
        const sending: Promise<void> = sendOne(row)
          .catch((error: unknown) =>
            logger.error?.({ deliveryId: row.id, error: errorMessage(error) }, "delivery failed"),
          )
          .finally(() => inFlight.delete(row.id));
        inFlight.set(row.id, sending);
      }
    }
  }

  /**
   * One send: the sender resolves the chat and waits for its turn, then `begin` takes a send slot and
   * claims the row (only the replica whose claim matched may post), and the sender posts.
   */
  async function sendOne(row: Delivery): Promise<void> {
    const sender = senders.get(row.platform as PlatformSender["platform"]);
    if (!sender) return;
    const claim = claimOf(row);
    try {
      let kept: Outgoing;
      try {
        kept = await outgoingOf(row.runId);
      } catch (error) {
        await failClaimed(claim, errorMessage(error));
        return;
      }
      const recipient = kept.recipients.get(row.platform as Identity["platform"]);
      if (!recipient) {
        await failClaimed(claim, `no ${row.platform} account is linked to this user any more`);
        return;
      }
      const seconds = () => (monotonicNow() - claim.startedAt) / 1000;
      try {
        const receipt = await sender.deliver({
          recipient,
          message: kept.briefing.message,
          begin: claim.begin,
        });
        if (!receipt || !claim.row) return;
        const sentAt = clock.now();
        await markDeliverySent(db, row.id, receipt, sentAt);
        notify(() => observer.deliveryAttempt?.(row.platform, seconds(), "sent"));
        const lag = (sentAt.getTime() - kept.briefing.claimedAt.getTime()) / 1000;
        notify(() => observer.deliveryLag?.(row.platform, Math.max(0, lag)));
      } catch (error) {
        // A failure before the sender's turn came (opening a DM, say) is recorded on the row all the same.
        if (!(await claim.begin()) || !claim.row) return;
        const failure = classifySendFailure(error);
        notify(() => observer.deliveryAttempt?.(row.platform, seconds(), failure.kind));
        if (await recordFailure(claim.row, failure, kept.briefing.notAfter)) return;
      }
      await settle(row.runId, clock.now());
    } finally {
      claim.release();
    }
  }

  /** The worker's side of a sender's `begin()`: a send slot, then the conditional pending → sending update. */
  function claimOf(row: Delivery) {
    let claiming: Promise<boolean> | undefined;
    const claim = {
      /** The row as claimed; undefined until then, or when another replica has it. */
      row: undefined as Delivery | undefined,
      startedAt: monotonicNow(),
      release: () => {},
      begin: (): Promise<boolean> => {
        claiming ??= (async () => {
          const release = (await sendSlots.get(row.platform)?.acquire()) ?? (() => {});
          claim.row = await startDeliveryAttempt(db, row.id, clock.now());
          if (!claim.row) {
            release();
            return false;
          }
          claim.release = release;
          claim.startedAt = monotonicNow();
          return true;
        })();
        return claiming;
      },
    };
    return claim;
  }

  /** Fails a row that cannot be sent at all, claiming it first so a replica sending it is never overruled. */
  async function failClaimed(claim: ReturnType<typeof claimOf>, reason: string): Promise<void> {
    if (!(await claim.begin()) || !claim.row) return;
    await markDeliveryFailed(db, claim.row.id, reason);
    await settle(claim.row.runId, clock.now());
  }

  /** Records a failed attempt; true when the row will be retried. */
  async function recordFailure(row: Delivery, failure: SendFailure, notAfter: Date | null): Promise<boolean> {
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
        await settle(run.id, now);
      }
    }
    for (const runId of orphaned) await settle(runId, now);
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
      .catch((error: unknown) => logger.error?.({ error: errorMessage(error) }, "delivery pass failed"))
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

  return { enqueue, enqueueRun, runDue, kick, recover, drain, platforms };
}
