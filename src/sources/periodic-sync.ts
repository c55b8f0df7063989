/**
 * A background loop for source syncs: runs once at start, then every `intervalMs` after the previous
 * run ends (so a slow run never overlaps the next). A failing run is logged, never thrown.
 */

import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { redactAddressesIn } from "../core/redact.ts";

export { errorMessage };

/** The part of the logger the loops use. */
export type SyncLogger = Pick<Logger, "info" | "warn">;

export interface PeriodicSync {
  /** Stops scheduling and waits for a run in progress to finish. */
  stop(): Promise<void>;
  /** Runs now (or returns the run in progress); the next run is then due `intervalMs` after this one ends. */
  runNow(): Promise<void>;
}

export function startPeriodicSync(options: {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
  logger?: SyncLogger | undefined;
}): PeriodicSync {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const tick = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const run = options
      .run()
      .catch((error: unknown) => {
        options.logger?.warn(
          { sync: options.name, error: redactAddressesIn(errorMessage(error)) },
          `${options.name} sync failed`,
        );
      })
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(() => void tick(), options.intervalMs);
      });
    running = run;
    return run;
  };
  void tick();

  return {
    runNow() {
      if (stopped) return Promise.resolve();
      return running ?? tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
