import type { Database } from "../../../db/client.ts";
import type { Clock } from "../../core/clock.ts";
import { redactAddressesIn } from "../../core/redact.ts";
import type { FetchFunction } from "../http-cache-fetch.ts";
import type { NetworkPolicy } from "../network/address-policy.ts";
import { type PeriodicSync, type SyncLogger, startPeriodicSync } from "../periodic-sync.ts";
import type { SourceLeases } from "../source-lease.ts";
import { syncAllCalendars } from "./sync-calendar.ts";

export const DEFAULT_CALENDAR_SYNC_INTERVAL_MS = 15 * 60_000;

/** Background sync of every calendar: now, then every `intervalMs`. */
export function startCalendarSync(options: {
  db: Database;
  fetch: FetchFunction;
  clock: Clock;
  /** Which addresses calendar fetches may reach (BRIEFBOT_CONFIG `sources`); default public only. */
  network?: NetworkPolicy;
  intervalMs?: number;
  logger?: SyncLogger | undefined;
  /** One fetch per calendar across the processes on the database. */
  leases?: SourceLeases;
}): PeriodicSync {
  const { logger } = options;
  return startPeriodicSync({
    name: "calendar",
    intervalMs: options.intervalMs ?? DEFAULT_CALENDAR_SYNC_INTERVAL_MS,
    logger,
    run: async () => {
      const results = await syncAllCalendars(options.db, {
        fetch: options.fetch,
        clock: options.clock,
        ...(options.network ? { network: options.network } : {}),
        ...(options.leases ? { leases: options.leases } : {}),
      });
      const failed = results.filter((result) => result.status === "failed");
      for (const result of failed) {
        logger?.warn(
          // The error quotes the secret address; logs get it redacted.
          {
            calendarId: result.calendarId,
            user: result.userName,
            error: redactAddressesIn(result.error ?? ""),
          },
          "calendar sync failed",
        );
      }
      if (results.length > 0) {
        logger?.info({ calendars: results.length, ok: results.length - failed.length }, "calendars synced");
      }
    },
  });
}
