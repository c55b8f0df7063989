/**
 * A background loop for source syncs: runs once at start, then every `intervalMs` after the previous
 * run ends (so a slow run never overlaps the next). A failing run is logged, never thrown.
 */

/** The subset of pino's API the loops use. */
export interface SyncLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface PeriodicSync {
  /** Stops scheduling and waits for a run in progress to finish. */
  stop(): Promise<void>;
}

export function startPeriodicSync(options: {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
  logger?: SyncLogger | undefined;
}): PeriodicSync {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const tick = () => {
    current = options
      .run()
      .catch((error: unknown) => {
        options.logger?.warn(
          { sync: options.name, error: errorMessage(error) },
          `${options.name} sync failed`,
        );
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.intervalMs);
      });
  };
  tick();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
