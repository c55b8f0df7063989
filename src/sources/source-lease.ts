/**
 * One fetch of a source at a time across every process on the database: a short lease named after the
 * source (a calendar, a feed, a weather place, an account) is held around the fetch. A background sync that
 * finds it held skips that source (the holder's result lands in the same tables); a refresh before a
 * briefing waits briefly for the holder and uses what it stored.
 */
import type { Clock } from "../core/clock.ts";
import type { Leases } from "../core/ports.ts";

/** Longer than any one fetch's time limit, so a live fetch keeps its lease; renewed meanwhile anyway. */
export const SOURCE_LEASE_TTL_MS = 2 * 60_000;
/** How often a waiting refresh looks whether the holder is done. */
const WAIT_POLL_MS = 200;

/** Lease names per kind of source. `account` is for account syncs (mail, tasks services) to use. */
export const sourceLeaseName = {
  calendar: (calendarId: number) => `source:calendar:${calendarId}`,
  feed: (feedId: number) => `source:feed:${feedId}`,
  /** Per place, as the forecast cache is keyed (rounded coordinates): users in one place share a fetch. */
  weather: (latitude: number, longitude: number) => `source:weather:${latitude},${longitude}`,
  account: (accountId: number | string) => `source:account:${accountId}`,
};

export type Exclusive<T> = { ran: true; value: T } | { ran: false; holder: string | undefined };

export interface SourceLeases {
  /** Runs `fetchIt` holding the lease `name`; does not run it while another process holds that lease. */
  exclusive<T>(name: string, fetchIt: () => Promise<T>): Promise<Exclusive<T>>;
  /** Resolves once nobody holds `name` (true) or `until` has passed (false). */
  waitFree(name: string, until: Date): Promise<boolean>;
}

/** For one-off commands and tests with a single process: every fetch runs. */
export const unsharedSources: SourceLeases = {
  exclusive: async (_name, fetchIt) => ({ ran: true, value: await fetchIt() }),
  waitFree: async () => true,
};

export function createSourceLeases(
  leases: Leases,
  options: { owner: string; clock: Clock; ttlMs?: number },
): SourceLeases {
  const ttlMs = options.ttlMs ?? SOURCE_LEASE_TTL_MS;
  const { owner, clock } = options;
  /**
   * Names this process holds now. The stored lease is re-entrant for its holder (that is how it is
   * renewed), so without this the background sync and a briefing's refresh in one process would both
   * "hold" a source and fetch it side by side.
   */
  const heldHere = new Set<string>();
  return {
    async exclusive(name, fetchIt) {
      if (heldHere.has(name)) return { ran: false, holder: owner };
      heldHere.add(name);
      let acquired = false;
      try {
        acquired = await leases.acquire(name, owner, ttlMs, clock.now());
      } finally {
        if (!acquired) heldHere.delete(name);
      }
      if (!acquired) return { ran: false, holder: await leases.holder(name, clock.now()) };
      const renew = setInterval(
        () => void leases.acquire(name, owner, ttlMs, clock.now()).catch(() => undefined),
        ttlMs / 3,
      );
      renew.unref();
      try {
        return { ran: true, value: await fetchIt() };
      } finally {
        clearInterval(renew);
        await leases.release(name, owner).catch(() => undefined);
        heldHere.delete(name);
      }
    },
    async waitFree(name, until) {
      // The budget is read off the clock once and spent in real time, as the refresh's own deadline is.
      const giveUpAt = Date.now() + (until.getTime() - clock.now().getTime());
      for (;;) {
        if ((await leases.holder(name, clock.now())) === undefined) return true;
        const left = giveUpAt - Date.now();
        if (left <= 0) return false;
        await new Promise((resolve) => setTimeout(resolve, Math.min(WAIT_POLL_MS, left)));
      }
    },
  };
}
