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
 * after a takeover) is someone else's and skipped. The updates a dead process left unhandled are taken over
 * at each start and every `recoverEveryMs` while polling (bots/durable-intake.ts, shared with the webhook).
 */
import { type RunnerHandle, run } from "@grammyjs/runner";
import type { Bot, Context } from "grammy";
import type { Update } from "grammy/types";
import { errorMessage, type Logger, silentLogger } from "../../src/core/index.ts";
import { createDurableIntake, type DurableUpdates } from "../durable-intake.ts";
import { handleTracked } from "./progress.ts";
import { failureReporter } from "./report-failure.ts";

type RunnerBot = Parameters<typeof run<Update, unknown>>[0];
type GetUpdatesArgs = Parameters<RunnerBot["api"]["getUpdates"]>[0];
type RunnerSignal = Parameters<RunnerBot["api"]["getUpdates"]>[1];

/** The kinds of update Telegram should send. */
export type UpdateKind = Exclude<keyof Update, "update_id">;

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
  /** Undurable handling in flight (durable handling the intake tracks). */
  const handling = new Set<Promise<void>>();
  let storeFailing = false;
  const reportFailure = failureReporter(bot, logger);
  const intake = durable
    ? createDurableIntake({
        ...durable,
        label: "telegram",
        logger,
        handle: (payload, _updateId, progress) => handleTracked(bot, payload as Update, progress),
        isUpdate: (payload, updateId) => String((payload as Update | null)?.update_id) === updateId,
        onFailure: reportFailure,
      })
    : undefined;

  /** Start and stop one after another, so two runners never overlap even when callers race. */
  function serially(step: () => Promise<void>): Promise<void> {
    const next = lifecycle.then(step, step);
    lifecycle = next.catch(() => {});
    return next;
  }

  async function stopRunner(): Promise<void> {
    const recovery = intake?.stopRecovering();
    const current = runner;
    runner = undefined;
    if (current) {
      // The runner aborts its long poll; its task settles once that request has come back or failed.
      if (current.isRunning()) await current.stop();
      await current.task()?.catch(() => {});
      await ending.catch(() => {});
    }
    await recovery;
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
    if (intake && updates.length > 0) {
      try {
        const stored = await intake.accept(
          updates.map((update) => ({ updateId: String(update.update_id), payload: update })),
        );
        for (const id of stored) fresh.add(Number(id));
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

  /** Handles one update; when durable, records it handled — whatever the handler's outcome. */
  function handle(update: Update): Promise<void> {
    if (intake) return intake.handle(String(update.update_id), update);
    const work = bot.handleUpdate(update);
    handling.add(work);
    const done = () => handling.delete(work);
    work.then(done, done);
    return work;
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
  }

  return {
    start: () =>
      serially(async () => {
        await stopRunner();
        // Taken-over updates go to the bot before the runner's first poll would initialise it.
        await bot.init();
        await intake?.startRecovering();
        launch();
      }),
    stop: () => serially(stopRunner),
    isRunning: () => runner?.isRunning() ?? false,
    ended: () => ending,
    async settled() {
      await intake?.settled();
      while (handling.size > 0) await Promise.allSettled([...handling]);
    },
  };
}
