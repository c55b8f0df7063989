/**
 * `Sources.refresh` at the edge: before a briefing, the user's weather, calendars and feeds that are older
 * than their sync interval are fetched again, all at once, through the same sync functions the background
 * loops use, and the briefing waits for them no later than its deadline. A source that fails or is late
 * keeps its last good data (the syncs never replace it on failure); the result says how old that data is,
 * in the user's zone. Sources young enough are not fetched at all, so a briefing after a fresh sync (or the
 * scheduler's pre-warm) makes no network call here.
 */
import type { Database } from "../../db/client.ts";
import { type CalendarWithOwner, getCalendar, listCalendars } from "../../db/queries/calendars.ts";
import { type FeedWithOwner, getFeed, listFeeds } from "../../db/queries/feeds.ts";
import { readCachedForecast, roundCoordinate } from "../../db/queries/weather.ts";
import type { Clock } from "../core/clock.ts";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { SourceKind, SourceRefresh, Sources } from "../core/ports.ts";
import { asOfStamp } from "../core/tools/format.ts";
import { placeOf } from "../core/weather/forecast.ts";
import { syncCalendar } from "./calendar/sync-calendar.ts";
import { syncFeed } from "./feeds/sync-feed.ts";
import type { FetchFunction } from "./http-cache-fetch.ts";
import type { NetworkPolicy } from "./network/address-policy.ts";
import { type SourceLeases, sourceLeaseName, unsharedSources } from "./source-lease.ts";
import { refreshWeather } from "./weather/get-weather.ts";

export interface SourceRefresherOptions {
  db: Database;
  fetch: FetchFunction;
  clock: Clock;
  /** Open-Meteo base, as the weather sync uses it. */
  forecastUrl: string;
  /** How old each kind may be before a briefing fetches it again: the background syncs' intervals. */
  maxAgeMinutes: Record<Exclude<SourceKind, "accounts">, number> & { accounts?: number };
  logger?: Pick<Logger, "warn"> | undefined;
  /** Which addresses calendar and feed fetches may reach (`sources` in BRIEFBOT_CONFIG). */
  network?: NetworkPolicy | undefined;
  /**
   * Shared by the processes on one database: a source another process is fetching is waited for (up to
   * the deadline) and its stored result used, not fetched twice.
   */
  sourceLeases?: SourceLeases | undefined;
}

export type RefreshSources = NonNullable<Sources["refresh"]>;

/**
 * A fetch may run this much past the briefing's deadline: the briefing no longer waits for it, but an answer
 * that comes just too late still lands in the cache for the next one. Bounded, so nothing runs on for long.
 */
const LATE_GRACE_MS = 2_000;

/** What one fetch came to: `late` when the deadline passed first (the fetch still finishes on its own). */
type Attempt = { ok: true } | { ok: false; reason: string; late: boolean };

export function createSourceRefresher(options: SourceRefresherOptions): RefreshSources {
  const { db, clock } = options;
  const network = options.network;
  // One fetch per source at a time: two briefings (or the pre-warm and a /brief) share it.
  const inFlight = new Map<string, Promise<Attempt>>();

  const guard = options.sourceLeases ?? unsharedSources;
  /**
   * One fetch per source here (two briefings, or the pre-warm and a /brief, share it) and across processes
   * (the lease `key`); `fresh` says afterwards whether another process's fetch left the stored data fresh.
   */
  const once = (
    key: string,
    deadline: Date,
    fetchIt: () => Promise<Attempt>,
    fresh: () => Promise<boolean>,
  ): Promise<Attempt> => {
    const running = inFlight.get(key);
    if (running) return running;
    const started = guard
      .exclusive(key, fetchIt)
      .then(async (outcome): Promise<Attempt> => {
        if (outcome.ran) return outcome.value;
        const done = await guard.waitFree(key, deadline);
        if (await fresh()) return { ok: true };
        return done
          ? { ok: false, reason: "another process fetched it and did not succeed", late: false }
          : { ok: false, reason: "another process is still fetching it", late: true };
      })
      .catch((error: unknown): Attempt => ({ ok: false, reason: errorMessage(error), late: false }))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  };

  const isOld = (
    fetchedAt: Date | null | undefined,
    kind: Exclude<SourceKind, "accounts">,
    now: Date,
  ): boolean => !fetchedAt || now.getTime() - fetchedAt.getTime() >= options.maxAgeMinutes[kind] * 60_000;

  return async (user, deadline, onStart) => {
    const now = clock.now();
    const waitMs = Math.max(1, deadline.getTime() - now.getTime());
    const seconds = `${Math.round(waitMs / 100) / 10} s`;
    const timeoutMs = waitMs + LATE_GRACE_MS;
    const place = placeOf(user);
    const [cachedForecast, calendars, feeds] = await Promise.all([
      place ? readCachedForecast(db, place.latitude, place.longitude) : undefined,
      listCalendars(db, user.id),
      listFeeds(db, { userId: user.id }),
    ]);
    const weatherDue = place !== null && isOld(cachedForecast?.fetchedAt, "weather", now);
    const calendarsDue = calendars.filter((calendar) => isOld(calendar.lastSuccessAt, "calendar", now));
    const feedsDue = feeds.filter((feed) => isOld(feed.lastSuccessAt, "feeds", now));

    const due: SourceKind[] = [
      ...(weatherDue ? (["weather"] as const) : []),
      ...(calendarsDue.length > 0 ? (["calendar"] as const) : []),
      ...(feedsDue.length > 0 ? (["feeds"] as const) : []),
    ];
    if (due.length === 0) {
      return [
        { source: "weather", status: place ? "fresh" : "skipped" },
        { source: "calendar", status: calendars.length > 0 ? "fresh" : "skipped" },
        { source: "feeds", status: feeds.length > 0 ? "fresh" : "skipped" },
      ];
    }
    try {
      onStart?.(due);
    } catch {
      // Progress is for show.
    }

    const beforeDeadline = (attempt: Promise<Attempt>): Promise<Attempt> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<Attempt>((resolve) => {
        timer = setTimeout(
          () => resolve({ ok: false, reason: `no answer within ${seconds}`, late: true }),
          waitMs,
        );
      });
      return Promise.race([attempt, late]).finally(() => clearTimeout(timer));
    };

    const weatherAttempt =
      weatherDue && place
        ? beforeDeadline(
            once(
              sourceLeaseName.weather(roundCoordinate(place.latitude), roundCoordinate(place.longitude)),
              deadline,
              async () => {
                const outcome = await refreshWeather(
                  db,
                  { ...place, timeZone: user.timeZone },
                  { fetch: options.fetch, clock, forecastUrl: options.forecastUrl, timeoutMs },
                );
                return outcome.status === "refreshed"
                  ? { ok: true }
                  : { ok: false, reason: outcome.error, late: false };
              },
              async () =>
                !isOld(
                  (await readCachedForecast(db, place.latitude, place.longitude))?.fetchedAt,
                  "weather",
                  clock.now(),
                ),
            ),
          )
        : undefined;
    const calendarAttempts = calendarsDue.map((calendar) =>
      beforeDeadline(
        once(
          sourceLeaseName.calendar(calendar.id),
          deadline,
          async () => {
            const result = await syncCalendar(db, calendar.id, {
              fetch: options.fetch,
              clock,
              timeoutMs,
              network,
            });
            return result.status === "failed"
              ? { ok: false, reason: result.error ?? "failed", late: false }
              : { ok: true };
          },
          async () => !isOld((await getCalendar(db, calendar.id))?.lastSuccessAt, "calendar", clock.now()),
        ),
      ),
    );
    const feedAttempts = feedsDue.map((feed) =>
      beforeDeadline(
        once(
          sourceLeaseName.feed(feed.id),
          deadline,
          async () => {
            const result = await syncFeed(db, feed.id, { fetch: options.fetch, clock, timeoutMs, network });
            return result.status === "error"
              ? { ok: false, reason: result.error, late: false }
              : { ok: true };
          },
          async () => !isOld((await getFeed(db, feed.id))?.lastSuccessAt, "feeds", clock.now()),
        ),
      ),
    );
    const [weather, calendarResults, feedResults] = await Promise.all([
      weatherAttempt,
      Promise.all(calendarAttempts),
      Promise.all(feedAttempts),
    ]);

    const zone = user.timeZone;
    const warn = (source: string, reason: string) =>
      options.logger?.warn({ userId: user.id, source, error: reason }, "refresh before a briefing failed");
    const results: SourceRefresh[] = [];

    if (!place) results.push({ source: "weather", status: "skipped" });
    else if (!weather) results.push({ source: "weather", status: "fresh" });
    else if (weather.ok) results.push({ source: "weather", status: "refreshed" });
    else {
      warn("weather", weather.reason);
      const why = weather.late ? weather.reason : shortReason(weather.reason);
      results.push({
        source: "weather",
        status: "failed",
        detail: cachedForecast
          ? `could not refresh (${why}); using the forecast as of ${asOfStamp(cachedForecast.fetchedAt, zone, now)}`
          : `could not fetch a forecast (${why}); none has ever been fetched`,
      });
    }

    results.push(
      summarise("calendar", calendars.length, calendarsDue, calendarResults, (calendar, attempt) => {
        warn(`calendar ${calendar.id}`, attempt.reason);
        return describeFailure(
          `"${calendar.name || `calendar ${calendar.id}`}"`,
          calendar,
          attempt,
          zone,
          now,
        );
      }),
    );
    results.push(
      summarise("feeds", feeds.length, feedsDue, feedResults, (feed, attempt) => {
        warn(`feed ${feed.id}`, attempt.reason);
        return describeFailure(`"${feed.title || `feed ${feed.id}`}"`, feed, attempt, zone, now);
      }),
    );
    return results;
  };
}

/** One result for all of a kind's subscriptions: failed when any failed, naming only those. */
function summarise<T>(
  source: SourceKind,
  total: number,
  due: readonly T[],
  attempts: readonly Attempt[],
  describe: (item: T, attempt: Attempt & { ok: false }) => string,
): SourceRefresh {
  if (total === 0) return { source, status: "skipped" };
  if (due.length === 0) return { source, status: "fresh" };
  const failures = due.flatMap((item, index) => {
    const attempt = attempts[index];
    return attempt && !attempt.ok ? [describe(item, attempt)] : [];
  });
  return failures.length > 0
    ? { source, status: "failed", detail: failures.join("; ") }
    : { source, status: "refreshed" };
}

/**
 * A calendar's or feed's failure without the error text, which can carry a secret calendar address; the
 * operator's log has the whole error.
 */
function describeFailure(
  name: string,
  subscription: Pick<CalendarWithOwner | FeedWithOwner, "lastSuccessAt">,
  attempt: Attempt & { ok: false },
  zone: string,
  now: Date,
): string {
  const why = attempt.late ? ` (${attempt.reason})` : "";
  return subscription.lastSuccessAt
    ? `could not refresh ${name}${why}; using what it showed as of ${asOfStamp(subscription.lastSuccessAt, zone, now)}`
    : `could not fetch ${name}${why}; it has never been fetched`;
}

/** "http://…/v1/forecast?…: server answered HTTP 503" → "server answered HTTP 503". */
function shortReason(reason: string): string {
  return reason.replace(/^\S+:\/\/\S+: /, "");
}
