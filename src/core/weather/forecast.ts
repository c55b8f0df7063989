/**
 * Reading the forecast cache: the Open-Meteo payload the background refresh stored, turned into what the
 * get_weather tool and `briefbot weather` show, with how old it is. Never touches the network.
 */
import { DateTime } from "luxon";
import { z } from "zod";
import type { User } from "../domain.ts";
import type { Sources } from "../ports.ts";
import { describeWeatherCode } from "./wmo-codes.ts";

const nullableNumbers = z.array(z.number().nullable());

/** The part of Open-Meteo's forecast answer that is fetched, validated and cached. */
export const ForecastPayloadSchema = z.object({
  latitude: z.number(),
  longitude: z.number(),
  timezone: z.string().optional(),
  current: z
    .object({
      time: z.string(),
      temperature_2m: z.number().nullable().optional(),
      weather_code: z.number().nullable().optional(),
    })
    .optional(),
  current_units: z.record(z.string(), z.string()).optional(),
  daily: z.object({
    time: z.array(z.string()),
    temperature_2m_max: nullableNumbers.optional(),
    temperature_2m_min: nullableNumbers.optional(),
    precipitation_probability_max: nullableNumbers.optional(),
    weather_code: nullableNumbers.optional(),
  }),
  daily_units: z.record(z.string(), z.string()).optional(),
});
export type ForecastPayload = z.infer<typeof ForecastPayloadSchema>;

export type WeatherUser = Pick<User, "timeZone" | "locationName" | "latitude" | "longitude">;

/** Read-only callers flag data as stale after this; the background refresh should keep it well under. */
export const FORECAST_STALE_AFTER_MINUTES = 60;

export interface DailyForecast {
  /** Local date at the location, "YYYY-MM-DD". */
  date: string;
  minTemperatureC: number | null;
  maxTemperatureC: number | null;
  /** 0–100. */
  precipitationProbabilityPercent: number | null;
  weatherCode: number | null;
  description: string;
}

export interface CurrentWeather {
  /** Local time of the observation at the location, as Open-Meteo gives it ("2025-06-01T14:15"). */
  time: string;
  temperatureC: number | null;
  weatherCode: number | null;
  description: string;
}

export type WeatherResult =
  | {
      available: true;
      location: string;
      latitude: number;
      longitude: number;
      /** When the forecast was fetched, ISO 8601 UTC. */
      asOf: string;
      /** The same instant in the user's zone, e.g. "Mon 1 Dec, 07:10". */
      asOfLocal: string;
      ageMinutes: number;
      /** True when the forecast is older than it should be (the API failed or the refresh is behind). */
      stale: boolean;
      /** Why fresh data is missing, when `stale`. */
      staleReason?: string;
      current: CurrentWeather | null;
      /** Today (in the user's zone) and later days. */
      days: DailyForecast[];
    }
  | { available: false; reason: string };

export function unavailable(detail: string): WeatherResult {
  return { available: false, reason: `weather unavailable: ${detail}` };
}

export function buildWeatherResult(input: {
  payload: Record<string, unknown>;
  fetchedAt: Date;
  now: Date;
  timeZone: string;
  location: string;
  latitude: number;
  longitude: number;
  stale: boolean;
  staleReason?: string | undefined;
}): WeatherResult {
  const parsed = ForecastPayloadSchema.safeParse(input.payload);
  if (!parsed.success) return unavailable("the cached forecast is unreadable");
  const today = DateTime.fromJSDate(input.now, { zone: input.timeZone }).toISODate() ?? "";
  const ageMinutes = Math.max(0, Math.floor((input.now.getTime() - input.fetchedAt.getTime()) / 60_000));
  return {
    available: true,
    location: input.location,
    latitude: input.latitude,
    longitude: input.longitude,
    asOf: input.fetchedAt.toISOString(),
    asOfLocal: DateTime.fromJSDate(input.fetchedAt, { zone: input.timeZone }).toFormat("ccc d LLL, HH:mm"),
    ageMinutes,
    stale: input.stale,
    ...(input.stale && input.staleReason ? { staleReason: input.staleReason } : {}),
    current: currentWeather(parsed.data),
    days: dailyForecasts(parsed.data).filter((day) => day.date >= today),
  };
}

function currentWeather(payload: ForecastPayload): CurrentWeather | null {
  if (!payload.current) return null;
  const code = payload.current.weather_code ?? null;
  return {
    time: payload.current.time,
    temperatureC: payload.current.temperature_2m ?? null,
    weatherCode: code,
    description: describeWeatherCode(code),
  };
}

function dailyForecasts(payload: ForecastPayload): DailyForecast[] {
  const daily = payload.daily;
  return daily.time.map((date, index) => {
    const code = daily.weather_code?.[index] ?? null;
    return {
      date,
      minTemperatureC: daily.temperature_2m_min?.[index] ?? null,
      maxTemperatureC: daily.temperature_2m_max?.[index] ?? null,
      precipitationProbabilityPercent: daily.precipitation_probability_max?.[index] ?? null,
      weatherCode: code,
      description: describeWeatherCode(code),
    };
  });
}

/** Cache only. Stale when older than `staleAfterMinutes` (default 60). */
export async function readForecast(
  sources: Pick<Sources, "forecast">,
  user: WeatherUser,
  now: Date,
  options: { staleAfterMinutes?: number } = {},
): Promise<WeatherResult> {
  const place = placeOf(user);
  if (!place) return noLocation();
  const cached = await sources.forecast(place);
  if (!cached) return unavailable(`no forecast has been fetched yet for ${place.label}`);
  const staleAfter = options.staleAfterMinutes ?? FORECAST_STALE_AFTER_MINUTES;
  const stale = now.getTime() - cached.fetchedAt.getTime() > staleAfter * 60_000;
  return buildWeatherResult({
    payload: cached.payload,
    fetchedAt: cached.fetchedAt,
    now,
    timeZone: user.timeZone,
    location: place.label,
    latitude: place.latitude,
    longitude: place.longitude,
    stale,
    staleReason: stale
      ? `the forecast has not been refreshed since ${cached.fetchedAt.toISOString()}`
      : undefined,
  });
}

export function noLocation(): WeatherResult {
  return unavailable("no location is set for this user (briefbot user set <name> --location <place>)");
}

/** The user's place to two decimals (~1 km), the precision forecasts are cached at. */
export function placeOf(user: WeatherUser): { latitude: number; longitude: number; label: string } | null {
  if (user.latitude === null || user.longitude === null) return null;
  const latitude = Math.round(user.latitude * 100) / 100;
  const longitude = Math.round(user.longitude * 100) / 100;
  return { latitude, longitude, label: user.locationName || `${latitude}, ${longitude}` };
}
