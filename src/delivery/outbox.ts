/**
 * The outbox: takes a generated run, decides who gets it (one row per linked platform account), and posts
 * each row through its platform's `PlatformSender`. It reads the briefing from the run every time it sends
 * (the run is its only copy), and changes runs and rows only through the core's `RunLifecycle`.
 *
 * Exactly-once rules:
 * - a row is moved pending → sending by this process (`beginAttempt`, one conditional update) right before
 *   the platform call, once the sender's turn under the rate limits has come; only one process's update
 *   matches, and only that process posts;
 * - a row left `sending` by a process that is gone (its lease lapsed; on the embedded database, any earlier
 *   process) may or may not have been posted: Telegram and Slack take no idempotency key and offer no
 *   "did this arrive?" lookup, so it fails ("interrupted mid-send; not re-sent to avoid a duplicate");
 * - what is retried, how often and until when is `retry-policy.ts`'s decision, and only there: a send that
 *   certainly did not reach the platform, with back-off, inside the slot's window. Nothing below the outbox
 *   retries a delivery (the platform clients are built without their own retries for it).
 */
import type { PlatformSender } from "../core/assistant.ts";
import { briefingMessageOf } from "../core/briefing/message.ts";
import type { Clock } from "../core/clock.ts";
import type { BriefingRun, DeliveryPlatform, Identity, NewDelivery, Platform } from "../core/domain.ts";
import { errorMessage } from "../core/errors.ts";
import { formatLocal } from "../core/local-time.ts";
import type { DueDelivery, PlatformState, RunLifecycle, RunQueue } from "../core/ports.ts";
import { type DeliveryObserver, notify, type OpsLogger } from "./hooks.ts";
import { type RetryPolicy, retryDecision } from "./retry-policy.ts";
import { classifySendFailure } from "./send-outcome.ts";

export const NO_PLATFORM_REASON = "no platform linked; see briefbot receipts";

export interface OutboxPorts {
  lifecycle: RunLifecycle;
  runQueue: Pick<RunQueue, "dueDeliveries" | "inStates" | "get">;
  platformState: Pick<PlatformState, "accountsOf">;
}

export interface OutboxOptions {
  ports: OutboxPorts;
  clock: Clock;
  /** This process, as the sender of the rows it moves to `sending`. */
  owner: string;
  /** One per configured platform; a user linked on a platform without one gets a failed row. */
  senders: PlatformSender[];
  retry?: Partial<RetryPolicy>;
  logger?: OpsLogger;
  observer?: DeliveryObserver;
  /** Monotonic milliseconds for measuring send durations. */
  monotonicNow?: () => number;
}

export type EnqueueOutcome = "delivering" | "delivered-no-platform" | "skipped-window" | "not-generated";

export interface Outbox {
  /**
   * Takes a generated run: generated → delivering with one row per linked platform account, then starts
   * sending; a run ready only after its window closed is skipped. Safe to call twice and on two processes.
   */
  enqueue(runId: number): Promise<EnqueueOutcome>;
  /** Sends every due row; resolves when those sends have ended. */
  runDue(): Promise<void>;
  /** Starts `runDue` in the background unless one is running (then it runs again once it finishes). */
  kick(): void;
  /** Repair: fails rows a gone process left mid-send, settles runs whose rows are all final. */
  recover(): Promise<void>;
  /** Waits for every send and background pass started so far. */
  drain(): Promise<void>;
  readonly platforms: Platform[];
}

export function createOutbox(options: OutboxOptions): Outbox {
  const { ports, clock, owner } = options;
  const { lifecycle } = ports;
  const logger = options.logger ?? {};
  const observer = options.observer ?? {};
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const senders = new Map(options.senders.map((sender) => [sender.platform, sender]));
  const platforms = [...senders.keys()];
  const inFlight = new Map<number, Promise<void>>();
  let pass: Promise<void> | undefined;
  let passRequested = false;

  async function enqueue(runId: number): Promise<EnqueueOutcome> {
    const found = await ports.runQueue.get(runId);
    if (found?.run.state !== "generated") return "not-generated";
    const { run, timeZone } = found;
    const now = clock.now();
    if (run.notAfter && now > run.notAfter) return skipLate(run, run.notAfter, timeZone, now);
    const rows = await rowsFor(run);
    if (!(await lifecycle.beginDelivery(run.id, rows, now))) return "not-generated";
    if (rows.length === 1 && rows[0]?.platform === "cli") {
      await lifecycle.settle(run.id, now, NO_PLATFORM_REASON);
      logger.info?.({ runId, userId: run.userId }, "no platform linked; briefing kept for the CLI");
      return "delivered-no-platform";
    }
    await lifecycle.settle(run.id, now);
    kick();
    return "delivering";
  }

  async function skipLate(
    run: BriefingRun,
    notAfter: Date,
    zone: string,
    now: Date,
  ): Promise<EnqueueOutcome> {
    const reason = `missed window: ready at ${formatLocal(now, zone, "HH:mm")}, after its not-after ${formatLocal(notAfter, zone, "HH:mm")}`;
    if (!(await lifecycle.skip(run.id, reason, now))) return "not-generated";
    logger.warn?.({ runId: run.id }, "briefing generated after its window; skipped");
    return "skipped-window";
  }

  /**
   * Who gets a briefing, decided once: the first linked account on each platform. With none, the CLI is the
   * channel (`briefbot receipts` shows it), so "delivered" never hides a briefing nobody can read.
   */
  async function rowsFor(run: BriefingRun): Promise<NewDelivery[]> {
    const accounts = firstPerPlatform(await ports.platformState.accountsOf(run.userId));
    if (accounts.length === 0) return [{ platform: "cli", identityId: null, state: "sent" }];
    return accounts.map((account) =>
      senders.has(account.platform)
        ? { platform: account.platform, identityId: account.id }
        : {
            platform: account.platform,
            identityId: account.id,
            state: "failed",
            lastError: `${account.platform} is not configured on this server`,
          },
    );
  }

  async function runDue(): Promise<void> {
    await startDue();
    await Promise.all([...inFlight.values()]);
  }

  /** Starts a send for every due row not already in flight; does not wait for the sends. */
  async function startDue(): Promise<void> {
    for (;;) {
      const due = await ports.runQueue.dueDeliveries({
        at: clock.now(),
        platforms,
        limit: 500,
        excludeIds: [...inFlight.keys()],
      });
      if (due.length === 0) break;
      for (const row of due) {
        const id = row.delivery.id;
        // Another pass (a retry's timer, `runDue`) may have started this row while this one queried.
        if (inFlight.has(id)) continue;
        const sending: Promise<void> = sendOne(row)
          .catch((error: unknown) => {
            logger.error?.({ deliveryId: id, error: errorMessage(error) }, "delivery failed");
            return undefined;
          })
          .then((retryAt) => {
            // Only once the row has left this pass can a retry find it due.
            inFlight.delete(id);
            if (retryAt) setTimeout(kick, Math.max(0, retryAt.getTime() - clock.now().getTime())).unref();
          });
        inFlight.set(id, sending);
      }
    }
  }

  /**
   * One send: the sender resolves where it goes and waits for its turn, then `begin` claims the row (only
   * the process whose claim matched may post), and the sender posts.
   */
  async function sendOne(due: DueDelivery): Promise<Date | undefined> {
    const { delivery, run } = due;
    const sender = senders.get(delivery.platform as Platform);
    if (!sender) return undefined;
    const startedAt = monotonicNow();
    let claimed = false;
    const begin = async (target?: string) => {
      claimed ||= (await lifecycle.beginAttempt(delivery.id, owner, clock.now(), target)) !== undefined;
      return claimed;
    };
    const refuse = async (reason: string) => {
      if (await begin()) await lifecycle.failDelivery(delivery.id, reason);
    };
    let retryAt: Date | undefined;
    if (!due.recipient) {
      await refuse(`no ${delivery.platform} account is linked to this user any more`);
    } else {
      let message: ReturnType<typeof briefingMessageOf> | undefined;
      try {
        message = briefingMessageOf(run);
      } catch (error) {
        await refuse(errorMessage(error));
      }
      if (message) retryAt = await post(sender, due, due.recipient, message, begin, () => claimed, startedAt);
    }
    if (claimed && !retryAt) await lifecycle.settle(run.id, clock.now());
    return retryAt;
  }

  async function post(
    sender: PlatformSender,
    due: DueDelivery,
    recipient: Identity,
    message: ReturnType<typeof briefingMessageOf>,
    begin: () => Promise<boolean>,
    claimed: () => boolean,
    startedAt: number,
  ): Promise<Date | undefined> {
    const { delivery, run } = due;
    const seconds = () => (monotonicNow() - startedAt) / 1000;
    try {
      const receipt = await sender.deliver({
        recipient,
        message,
        begin,
        progress: delivery.progress ?? undefined,
        saveProgress: (progress) => lifecycle.recordProgress(delivery.id, owner, progress),
      });
      if (!receipt || !claimed()) return undefined;
      const sentAt = clock.now();
      await lifecycle.delivered(delivery.id, owner, receipt, sentAt);
      notify(() => observer.deliveryAttempt?.(delivery.platform, seconds(), "sent"));
      const lag = (sentAt.getTime() - run.claimedAt.getTime()) / 1000;
      notify(() => observer.deliveryLag?.(delivery.platform, Math.max(0, lag)));
      return undefined;
    } catch (error) {
      // A failure before the sender's turn came (opening a DM, say) is recorded on the row all the same.
      if (!(await begin())) return undefined;
      const failure = classifySendFailure(error);
      notify(() => observer.deliveryAttempt?.(delivery.platform, seconds(), failure.kind));
      return recordFailure(due, failure);
    }
  }

  /** What the retry policy decided, written down; when it retries, the time the retry is due. */
  async function recordFailure(
    due: DueDelivery,
    failure: ReturnType<typeof classifySendFailure>,
  ): Promise<Date | undefined> {
    const { delivery, run } = due;
    const now = clock.now();
    const decision = retryDecision(
      failure,
      { attempts: delivery.attempts + 1, notAfter: run.notAfter, now },
      options.retry,
    );
    const log = {
      deliveryId: delivery.id,
      runId: run.id,
      platform: delivery.platform,
      attempt: delivery.attempts + 1,
      error: failure.reason,
    };
    if (decision.retry) {
      await lifecycle.retryLater(delivery.id, owner, failure.reason, decision.at);
      logger.info?.(
        { ...log, nextAttemptAt: decision.at },
        "delivery will be retried (it never reached the platform)",
      );
      return decision.at;
    }
    await lifecycle.failDelivery(delivery.id, decision.reason);
    const line =
      decision.kind === "unknown" ? "delivery outcome unknown; not retried" : "delivery failed for good";
    logger[decision.kind === "unknown" ? "error" : "warn"]?.(log, line);
    return undefined;
  }

  async function recover(): Promise<void> {
    const now = clock.now();
    const orphaned = await lifecycle.failInterruptedSends(owner, now, false);
    for (const runId of orphaned)
      logger.warn?.({ runId }, "delivery interrupted mid-send; marked failed, not re-sent");
    for (const run of await ports.runQueue.inStates(["delivering"])) await lifecycle.settle(run.id, now);
    kick();
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

  return { enqueue, runDue, kick, recover, drain, platforms };
}

/** One account per platform, the first linked (the outbox's key is one row per run and platform). */
function firstPerPlatform(accounts: readonly Identity[]): Identity[] {
  const seen = new Set<DeliveryPlatform>();
  return accounts.filter((account) => {
    if (seen.has(account.platform)) return false;
    seen.add(account.platform);
    return true;
  });
}
