/** Turns a cached Open-Meteo payload into what the get_weather tool returns. */
import { DateTime } from "luxon";
import { type ForecastPayload, ForecastPayloadSchema } from "./open-meteo-forecast.ts";
import { describeWeatherCode } from "./wmo-codes.ts";

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
