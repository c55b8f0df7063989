/**
 * Weather for a user from the forecast cache. Tools call `readWeather` (database only, never the
 * network); the background loop calls `refreshAllWeather`; `getWeather` does both for the CLI. None of
 * them throw for a network or data problem: the answer says what is missing and how old the data is.
 */
import type { Database } from "../../../db/client.ts";
import {
  listWeatherLocations,
  readCachedForecast,
  roundCoordinate,
  saveCachedForecast,
} from "../../../db/queries/weather.ts";
import type { Clock } from "../../core/clock.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import {
  noLocation,
  placeOf,
  readForecast,
  unavailable,
  type WeatherResult,
  type WeatherUser,
} from "../../core/weather/forecast.ts";
import type { FetchFunction } from "../http-cache-fetch.ts";
import { type PeriodicSync, startPeriodicSync } from "../periodic-sync.ts";
import { type SourceLeases, sourceLeaseName, unsharedSources } from "../source-lease.ts";
import { fetchForecast } from "./open-meteo-forecast.ts";

export interface WeatherDeps {
  fetch: FetchFunction;
  clock: Clock;
  /** Open-Meteo base, e.g. "https://api.open-meteo.com". */
  forecastUrl: string;
  timeoutMs?: number;
}

export const DEFAULT_MAX_AGE_MINUTES = 30;

/** Cache only (the tool's view); see `readForecast`. */
export function readWeather(
  db: Database,
  user: WeatherUser,
  now: Date,
  options: { staleAfterMinutes?: number } = {},
): Promise<WeatherResult> {
  const sources = {
    forecast: (place: { latitude: number; longitude: number }) =>
      readCachedForecast(db, place.latitude, place.longitude),
  };
  return readForecast(sources, user, now, options);
}

export type RefreshOutcome = { status: "refreshed"; fetchedAt: Date } | { status: "failed"; error: string };

/** Fetches and caches the forecast for one place; failures are returned, not thrown. */
export async function refreshWeather(
  db: Database,
  place: { latitude: number; longitude: number; timeZone: string },
  deps: WeatherDeps,
): Promise<RefreshOutcome> {
  const latitude = roundCoordinate(place.latitude);
  const longitude = roundCoordinate(place.longitude);
  try {
    const payload = await fetchForecast(
      deps.fetch,
      deps.forecastUrl,
      { latitude, longitude, timeZone: place.timeZone },
      deps.timeoutMs,
    );
    const fetchedAt = deps.clock.now();
    await saveCachedForecast(db, latitude, longitude, payload, fetchedAt);
    return { status: "refreshed", fetchedAt };
  } catch (error) {
    return { status: "failed", error: errorMessage(error) };
  }
}

/** Cache first; refreshes when older than `maxAgeMinutes`; serves the old forecast, flagged, if that fails. */
export async function getWeather(
  db: Database,
  user: WeatherUser,
  deps: WeatherDeps & { maxAgeMinutes?: number },
): Promise<WeatherResult> {
  const place = placeOf(user);
  if (!place) return noLocation();
  const maxAgeMs = (deps.maxAgeMinutes ?? DEFAULT_MAX_AGE_MINUTES) * 60_000;
  const now = deps.clock.now();
  try {
    const cached = await readCachedForecast(db, place.latitude, place.longitude);
    if (cached && now.getTime() - cached.fetchedAt.getTime() <= maxAgeMs) {
      return readWeather(db, user, now, { staleAfterMinutes: Number.POSITIVE_INFINITY });
    }
    const refreshed = await refreshWeather(db, { ...place, timeZone: user.timeZone }, deps);
    if (refreshed.status === "refreshed") {
      return readWeather(db, user, deps.clock.now(), { staleAfterMinutes: Number.POSITIVE_INFINITY });
    }
    if (!cached) return unavailable(`could not fetch a forecast for ${place.label} (${refreshed.error})`);
    const result = await readWeather(db, user, now, { staleAfterMinutes: 0 });
    return result.available
      ? { ...result, stale: true, staleReason: `the forecast service failed (${refreshed.error})` }
      : result;
  } catch (error) {
    return unavailable(errorMessage(error));
  }
}

export interface WeatherSyncOptions extends WeatherDeps {
  db: Database;
  /** One fetch per place across the processes on the database. */
  leases?: SourceLeases;
  /** Default 30 minutes. */
  intervalMs?: number;
  logger?: Logger | undefined;
}

export const DEFAULT_WEATHER_SYNC_INTERVAL_MS = 30 * 60 * 1000;
/** A place fetched this recently (say by `getWeather`) is skipped by the loop. */
const RECENT_ENOUGH_MS = 5 * 60 * 1000;

/**
 * Refreshes every distinct user location once; returns how many places were refreshed or failed, and how
 * many were skipped: fetched recently, or being fetched by another process right now.
 */
export async function refreshAllWeather(
  db: Database,
  deps: WeatherDeps & { leases?: SourceLeases | undefined },
  logger?: Logger,
): Promise<{ refreshed: number; failed: number; skipped: number }> {
  const guard = deps.leases ?? unsharedSources;
  const seen = new Set<string>();
  const totals = { refreshed: 0, failed: 0, skipped: 0 };
  for (const location of await listWeatherLocations(db)) {
    const key = `${roundCoordinate(location.latitude)},${roundCoordinate(location.longitude)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const cached = await readCachedForecast(db, location.latitude, location.longitude);
    if (cached && deps.clock.now().getTime() - cached.fetchedAt.getTime() < RECENT_ENOUGH_MS) {
      totals.skipped++;
      continue;
    }
    const place = sourceLeaseName.weather(
      roundCoordinate(location.latitude),
      roundCoordinate(location.longitude),
    );
    const fetched = await guard.exclusive(place, () => refreshWeather(db, location, deps));
    if (!fetched.ran) {
      totals.skipped++;
      continue;
    }
    const outcome = fetched.value;
    if (outcome.status === "refreshed") totals.refreshed++;
    else {
      totals.failed++;
      logger?.warn(
        { latitude: location.latitude, longitude: location.longitude, error: outcome.error },
        "weather refresh failed",
      );
    }
  }
  return totals;
}

/** Background forecast refresh so tools never wait on the network: now, then every `intervalMs`. */
export function startWeatherSync(options: WeatherSyncOptions): PeriodicSync {
  return startPeriodicSync({
    name: "weather",
    intervalMs: options.intervalMs ?? DEFAULT_WEATHER_SYNC_INTERVAL_MS,
    logger: options.logger,
    run: async () => {
      const totals = await refreshAllWeather(options.db, options, options.logger);
      options.logger?.info(totals, "weather refreshed");
    },
  });
}
