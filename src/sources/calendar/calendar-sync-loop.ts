import type { Database } from "../../../db/client.ts";
import type { Clock } from "../../core/clock.ts";
import type { FetchFunction } from "../http-cache-fetch.ts";
import { syncAllCalendars } from "./sync-calendar.ts";

export const DEFAULT_CALENDAR_SYNC_INTERVAL_MS = 15 * 60_000;

export interface CalendarSyncLogger {
  info(message: string): void;
  warn(message: string): void;
}

export interface CalendarSyncLoop {
  /** Stops the timer and waits for a pass in progress to finish. */
  stop(): Promise<void>;
  /** Runs a pass now (or returns the one in progress). */
  runNow(): Promise<void>;
}

/** Syncs every calendar now and then every `intervalMs`; a pass still running when the timer fires is not doubled. */
export function startCalendarSync(options: {
  db: Database;
  fetch: FetchFunction;
  clock: Clock;
  intervalMs?: number;
  logger?: CalendarSyncLogger;
}): CalendarSyncLoop {
  let running: Promise<void> | undefined;
  let stopped = false;

  const pass = async () => {
    try {
      const results = await syncAllCalendars(options.db, { fetch: options.fetch, clock: options.clock });
      const failed = results.filter((result) => result.status === "failed");
      for (const result of failed) {
        options.logger?.warn(
          `calendar ${result.calendarId} (${result.userName}) sync failed: ${result.error}`,
        );
      }
      if (results.length > 0) {
        options.logger?.info(
          `calendar sync: ${results.length - failed.length}/${results.length} calendars ok`,
        );
      }
    } catch (error) {
      options.logger?.warn(
        `calendar sync pass failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  const runNow = () => {
    if (stopped) return Promise.resolve();
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => void runNow(), options.intervalMs ?? DEFAULT_CALENDAR_SYNC_INTERVAL_MS);
  timer.unref?.();
  void runNow();

  return {
    runNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
