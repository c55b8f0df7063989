/**
 * Long polling with at most one `getUpdates` in flight, ever.
 *
 * grammY's runner is the poller; this owns its life. `start` launches one runner (stopping a previous one
 * first), `stop` aborts its long poll and waits until that request has ended, then confirms the updates
 * already handed to the bot, so the next runner (here or in another process) neither repeats nor skips one.
 * `ended` tells the owner why polling stopped: the runner gives up for good on 401 and 409 (it retries
 * everything else itself), and that is the owner's to act on.
 */
import { type RunnerHandle, run } from "@grammyjs/runner";
import type { Bot, Context, MiddlewareFn } from "grammy";
import type { Update } from "grammy/types";

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
  /** Middleware that records the newest update handed to the bot; install it first. */
  track: MiddlewareFn<Context>;
}

export interface PollerOptions {
  allowedUpdates: readonly UpdateKind[];
  /** Reports a failed offset confirmation (polling goes on; the next runner confirms anyway). */
  onConfirmFailed?: (error: unknown) => void;
}

export function createPoller<C extends Context>(bot: Bot<C>, options: PollerOptions): Poller {
  let runner: RunnerHandle | undefined;
  let ending: Promise<void> = Promise.resolve();
  /** The newest update id the bot was handed; what `stop` confirms. */
  let newestHandled: number | undefined;
  /** The newest update id confirmed to Telegram, by a runner's poll or by `stop`. */
  let confirmedBelow: number | undefined;
  let lifecycle: Promise<void> = Promise.resolve();

  /** Start and stop one after another, so two runners never overlap even when callers race. */
  function serially(step: () => Promise<void>): Promise<void> {
    const next = lifecycle.then(step, step);
    lifecycle = next.catch(() => {});
    return next;
  }

  async function stopRunner(): Promise<void> {
    const current = runner;
    runner = undefined;
    if (current) {
      // The runner aborts its long poll; its task settles once that request has come back or failed.
      if (current.isRunning()) await current.stop();
      await current.task()?.catch(() => {});
      await ending.catch(() => {});
    }
    await confirmHandled();
  }

  /**
   * `getUpdates` with the next offset and no wait confirms every update below it and returns at most one
   * that stays unconfirmed (grammY's own `bot.stop()` does the same).
   */
  async function confirmHandled(): Promise<void> {
    if (newestHandled === undefined) return;
    const offset = newestHandled + 1;
    if (confirmedBelow !== undefined && confirmedBelow >= offset) return;
    try {
      await bot.api.getUpdates({ offset, limit: 1, timeout: 0 });
      confirmedBelow = offset;
    } catch (error) {
      options.onConfirmFailed?.(error);
    }
  }

  function launch(): void {
    const handle = run(bot, {
      runner: {
        fetch: { allowed_updates: options.allowedUpdates },
        // Linear back-off while Telegram is unreachable (100 ms, 200 ms, 300 ms …): the default doubles
        // without a cap, so after a one-minute outage the next try could be two minutes away.
        retryInterval: "quadratic",
        silent: true,
      },
    });
    runner = handle;
    // The task is undefined only if the runner stopped before it began, which `stop` handles.
    ending = handle.task() ?? Promise.resolve();
    ending.catch(() => {});
  }

  return {
    start: () =>
      serially(async () => {
        await stopRunner();
        launch();
      }),
    stop: () => serially(stopRunner),
    isRunning: () => runner?.isRunning() ?? false,
    ended: () => ending,
    track: (ctx, next) => {
      const id = ctx.update.update_id;
      if (newestHandled === undefined || id > newestHandled) newestHandled = id;
      return next();
    },
  };
}
