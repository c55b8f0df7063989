import { and, eq, isNotNull } from "drizzle-orm";
import type { CachedForecast } from "../../src/core/domain.ts";
import type { Database } from "../client.ts";
import { users, weatherCache } from "../schema/index.ts";

export type { CachedForecast };

/** Two decimals (~1 km): close enough for a forecast, and users in one town share a cache row. */
export function roundCoordinate(value: number): number {
  return Math.round(value * 100) / 100;
}

export async function readCachedForecast(
  db: Database,
  latitude: number,
  longitude: number,
): Promise<CachedForecast | undefined> {
  const [row] = await db
    .select()
    .from(weatherCache)
    .where(
      and(
        eq(weatherCache.latitude, roundCoordinate(latitude)),
        eq(weatherCache.longitude, roundCoordinate(longitude)),
      ),
    )
    .limit(1);
  return row;
}

export async function saveCachedForecast(
  db: Database,
  latitude: number,
  longitude: number,
  payload: Record<string, unknown>,
  fetchedAt: Date,
): Promise<void> {
  await db
    .insert(weatherCache)
    .values({
      latitude: roundCoordinate(latitude),
      longitude: roundCoordinate(longitude),
      payload,
      fetchedAt,
    })
    .onConflictDoUpdate({
      target: [weatherCache.latitude, weatherCache.longitude],
      set: { payload, fetchedAt },
    });
}

export interface WeatherLocation {
  userId: number;
  timeZone: string;
  latitude: number;
  longitude: number;
}

/** Every user with a location, for the background refresh. */
export async function listWeatherLocations(db: Database): Promise<WeatherLocation[]> {
  const rows = await db
    .select({
      userId: users.id,
      timeZone: users.timeZone,
      latitude: users.latitude,
      longitude: users.longitude,
    })
    .from(users)
    .where(and(isNotNull(users.latitude), isNotNull(users.longitude)));
  return rows.flatMap((row) =>
    row.latitude === null || row.longitude === null
      ? []
      : [{ userId: row.userId, timeZone: row.timeZone, latitude: row.latitude, longitude: row.longitude }],
  );
}
