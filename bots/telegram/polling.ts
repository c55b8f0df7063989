/**
 * Long polling with at most one `getUpdates` in flight, ever, and — with `durable` — no update lost or
 * handled twice when the process dies.
 *
 * grammY's runner is the poller; this owns its life. `start` launches one runner (stopping a previous one
 * first), `stop` aborts its long poll and waits until that request has ended, then confirms the updates
 * already fetched, so the next runner (here or in another process) does not fetch them again. `ended`
 * tells the owner why polling stopped: the runner gives up for good on 401 and 409 (it retries everything
 * else itself), and that is the owner's to act on.
 *
 * Telegram forgets an update once a later `getUpdates` asks from past it, which the runner does as soon as
 * it has handed a batch on — long before a slow answer is written. So, with `durable`, each batch is stored
 * (`InboundUpdates`) before the runner sees it, claimed by this process; the runner's next poll confirms
 * only stored updates. A store that fails fails the poll, and the runner polls again from the same offset.
 * An update this process stored is handled here and marked handled; one already stored (fetched again
 * after a takeover) is someone else's and skipped. The updates a dead process left unhandled — its lease
 * lapsed, or on the embedded database any earlier owner's — are taken over at each start and every
 * `recoverEveryMs` while polling, and handled as if just fetched.
 */
import { type RunnerHandle, run } from "@grammyjs/runner";
import type { Bot, BotError, Context } from "grammy";
import type { Update } from "grammy/types";
import {
  type Clock,
  errorMessage,
  type InboundUpdates,
  type Logger,
  silentLogger,
} from "../../src/core/index.ts";

type RunnerBot = Parameters<typeof run<Update, unknown>>[0];
type GetUpdatesArgs = Parameters<RunnerBot["api"]["getUpdates"]>[0];
type RunnerSignal = Parameters<RunnerBot["api"]["getUpdates"]>[1];

/** The kinds of update Telegram should send. */
export type UpdateKind = Exclude<keyof Update, "update_id">;

/** How often a poller looks for updates a dead process left unhandled (also at every start). */
export const RECOVER_EVERY_MS = 15_000;
/** A handled update is remembered this long: Telegram keeps an update it was not told arrived for a day. */
export const HANDLED_KEEP_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface Poller {
  /** Starts one runner; one still running is stopped first. Resolves once it is launched. */
  start(): Promise<void>;
  /** Stops the runner; resolves once its pending `getUpdates` has ended and the offset is confirmed. */
  stop(): Promise<void>;
  /** Whether a runner is polling now (false once it gave up, or before the first start). */
  isRunning(): boolean;
  /**
   * Settles when the current runner ends: resolves when it was stopped, rejects with the error that ended
   * it (a 401, a 409). Before any start it resolves at once.
   */
  ended(): Promise<void>;
  /** Resolves when no update this poller handed on is being handled or waits to be marked handled. */
  settled(): Promise<void>;
}

/** Where fetched updates are kept until handled, and who this process is. */
export interface DurableUpdates {
  updates: InboundUpdates;
  /** The bot's updates among others': `telegram:<token fingerprint>`. */
  source: string;
  /** This process, as its lease names it. */
  owner: string;
  /** The embedded database: one process owns it, so whatever an earlier owner left is orphaned. */
  everyOtherOwner: boolean;
  clock: Clock;
  recoverEveryMs?: number;
}

export interface PollerOptions {
  allowedUpdates: readonly UpdateKind[];
  /** Reports a failed offset confirmation (polling goes on; the next runner confirms anyway). */
  onConfirmFailed?: (error: unknown) => void;
  durable?: DurableUpdates;
  logger?: Logger;
}

export function createPoller<C extends Context>(bot: Bot<C>, options: PollerOptions): Poller {
  const durable = options.durable;
  const logger = options.logger ?? silentLogger;
  let runner: RunnerHandle | undefined;
  let ending: Promise<void> = Promise.resolve();
  /** The newest update id fetched (and, when durable, stored); what `stop` confirms. */
  let newestFetched: number | undefined;
  /** The newest update id confirmed to Telegram, by a runner's poll or by `stop`. */
  let confirmedBelow: number | undefined;
  let lifecycle: Promise<void> = Promise.resolve();
  /** Stored by this process and not handed on yet: these, and only these, a fetch hands on. */
  const fresh = new Set<number>();
  const handling = new Set<Promise<void>>();
  /** Handled, but the database did not take `markHandled`: tried again on each recovery. */
  const unrecorded = new Set<number>();
  let recoverTimer: NodeJS.Timeout | undefined;
  let recovering: Promise<void> | undefined;
  let storeFailing = false;
  let prunedAt = 0;

  /** Start and stop one after another, so two runners never overlap even when callers race. */
  function serially(step: () => Promise<void>): Promise<void> {
    const next = lifecycle.then(step, step);
    lifecycle = next.catch(() => {});
    return next;
  }

  async function stopRunner(): Promise<void> {
    clearInterval(recoverTimer);
    recoverTimer = undefined;
    const current = runner;
    runner = undefined;
    if (current) {
      // The runner aborts its long poll; its task settles once that request has come back or failed.
      if (current.isRunning()) await current.stop();
      await current.task()?.catch(() => {});
      await ending.catch(() => {});
    }
    await recovering;
    await confirmFetched();
  }

  /**
   * `getUpdates` with the next offset and no wait confirms every update below it and returns at most one
   * that stays unconfirmed (grammY's own `bot.stop()` does the same).
   */
  async function confirmFetched(): Promise<void> {
    if (newestFetched === undefined) return;
    const offset = newestFetched + 1;
    if (confirmedBelow !== undefined && confirmedBelow >= offset) return;
    try {
      await bot.api.getUpdates({ offset, limit: 1, timeout: 0 });
      confirmedBelow = offset;
    } catch (error) {
      options.onConfirmFailed?.(error);
    }
  }

  /** One poll; with `durable`, its updates are stored before the runner (and so Telegram) moves past them. */
  async function getUpdates(args: GetUpdatesArgs, signal: RunnerSignal): Promise<Update[]> {
    // grammY and its runner type the signal with their own AbortController shims; at run time it is Node's.
    const updates = await bot.api.getUpdates(
      args,
      signal as unknown as Parameters<Bot<C>["api"]["getUpdates"]>[1],
    );
    if (durable && updates.length > 0) {
      try {
        const stored = await durable.updates.store(
          durable.source,
          updates.map((update) => ({ updateId: update.update_id, payload: update })),
          durable.owner,
          durable.clock.now(),
        );
        for (const id of stored) fresh.add(id);
        if (storeFailing) logger.info({}, "telegram: fetched updates are stored again");
        storeFailing = false;
      } catch (error) {
        // The runner polls again from the same offset: Telegram still holds these updates.
        if (!storeFailing)
          logger.warn(
            { error: errorMessage(error) },
            "telegram: could not store fetched updates; polling them again until the database takes them",
          );
        storeFailing = true;
        throw error;
      }
    }
    const last = updates.at(-1)?.update_id;
    if (last !== undefined && (newestFetched === undefined || last > newestFetched)) newestFetched = last;
    return updates;
  }

  /** Handles one update and, when durable, records it handled — whatever the handler's outcome. */
  function handle(update: Update): Promise<void> {
    const work = (async () => {
      try {
        await bot.handleUpdate(update);
      } finally {
        if (durable) await record(update.update_id);
      }
    })();
    handling.add(work);
    const done = () => handling.delete(work);
    work.then(done, done);
    return work;
  }

  async function record(updateId: number): Promise<void> {
    if (!durable) return;
    try {
      const marked = await durable.updates.markHandled(
        durable.source,
        updateId,
        durable.owner,
        durable.clock.now(),
      );
      if (!marked)
        logger.warn({ updateId }, "telegram: an update handled here had been taken over by another process");
      unrecorded.delete(updateId);
    } catch (error) {
      unrecorded.add(updateId);
      logger.warn(
        { updateId, error: errorMessage(error) },
        "telegram: could not record an update as handled",
      );
    }
  }

  /** What fails in a handler reaches `bot.catch`, as it would from grammY's own polling. */
  async function reportFailure(error: unknown): Promise<void> {
    try {
      await bot.errorHandler(error as BotError<C>);
    } catch (handlerError) {
      logger.error({ error: errorMessage(handlerError) }, "telegram: the error handler failed");
    }
  }

  /** Takes over what dead processes left unhandled and hands it on, oldest first; forgets old handled ones. */
  function recover(): Promise<void> {
    if (!durable) return Promise.resolve();
    if (recovering) return recovering;
    recovering = (async () => {
      for (const updateId of [...unrecorded]) await record(updateId);
      const now = durable.clock.now();
      const orphans = await durable.updates.reclaimOrphans(durable.source, {
        owner: durable.owner,
        at: now,
        everyOtherOwner: durable.everyOtherOwner,
      });
      for (const orphan of orphans) {
        const update = orphan.payload as Update | null;
        if (update?.update_id !== orphan.updateId) {
          await record(orphan.updateId);
          continue;
        }
        logger.info(
          { updateId: orphan.updateId, from: orphan.claimedBy },
          "telegram: handling an update a stopped process left unhandled",
        );
        handle(update).catch((error: unknown) => reportFailure(error));
      }
      if (now.getTime() - prunedAt >= PRUNE_EVERY_MS) {
        await durable.updates.prune(durable.source, new Date(now.getTime() - HANDLED_KEEP_MS));
        prunedAt = now.getTime();
      }
    })()
      .catch((error: unknown) =>
        logger.warn({ error: errorMessage(error) }, "telegram: could not take over unhandled updates"),
      )
      .finally(() => {
        recovering = undefined;
      });
    return recovering;
  }

  function launch(): void {
    const current = run(
      {
        init: () => bot.init(),
        api: { getUpdates },
        // With `durable`, a fetch this process did not store is another's (fetched again after a takeover).
        handleUpdate: (update: Update) =>
          !durable || fresh.delete(update.update_id) ? handle(update) : Promise.resolve(),
        errorHandler: reportFailure,
      },
      {
        runner: {
          fetch: { allowed_updates: options.allowedUpdates },
          // Linear back-off while Telegram is unreachable (100 ms, 200 ms, 300 ms …): the default doubles
          // without a cap, so after a one-minute outage the next try could be two minutes away.
          retryInterval: "quadratic",
          silent: true,
        },
      },
    );
    runner = current;
    // The task is undefined only if the runner stopped before it began, which `stop` handles.
    ending = current.task() ?? Promise.resolve();
    ending.catch(() => {});
    if (durable) {
      recoverTimer = setInterval(() => void recover(), durable.recoverEveryMs ?? RECOVER_EVERY_MS);
      recoverTimer.unref();
    }
  }

  return {
    start: () =>
      serially(async () => {
        await stopRunner();
        // Taken-over updates go to the bot before the runner's first poll would initialise it.
        await bot.init();
        await recover();
        launch();
      }),
    stop: () => serially(stopRunner),
    isRunning: () => runner?.isRunning() ?? false,
    ended: () => ending,
    async settled() {
      while (handling.size > 0) await Promise.allSettled([...handling]);
    },
  };
}
