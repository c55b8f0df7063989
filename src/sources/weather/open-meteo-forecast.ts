/** The Open-Meteo forecast request we make and the part of its answer we keep. */

import { BriefbotError } from "../../core/errors.ts";
import { type ForecastPayload, ForecastPayloadSchema } from "../../core/weather/forecast.ts";
import { type FetchFunction, fetchWithCache } from "../http-cache-fetch.ts";
import { OPERATOR_CONFIGURED } from "../network/address-policy.ts";

export const DEFAULT_OPEN_METEO_URL = "https://api.open-meteo.com";

export class ForecastError extends BriefbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("forecast_unreadable", message, options);
  }
}

export function forecastRequestUrl(
  baseUrl: string,
  place: { latitude: number; longitude: number; timeZone: string },
): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/v1/forecast`);
  url.searchParams.set("latitude", String(place.latitude));
  url.searchParams.set("longitude", String(place.longitude));
  url.searchParams.set(
    "daily",
    "temperature_2m_max,temperature_2m_min,precipitation_probability_max,weather_code",
  );
  url.searchParams.set("current", "temperature_2m,weather_code");
  url.searchParams.set("timezone", place.timeZone);
  return url.toString();
}

/** Fetches and validates a forecast; throws `FetchError` (network, status) or `ForecastError` (bad body). */
export async function fetchForecast(
  fetchFunction: FetchFunction,
  baseUrl: string,
  place: { latitude: number; longitude: number; timeZone: string },
  timeoutMs = 10_000,
): Promise<ForecastPayload> {
  const response = await fetchWithCache(fetchFunction, forecastRequestUrl(baseUrl, place), {
    timeoutMs,
    maxBytes: 1024 * 1024,
    headers: { Accept: "application/json" },
    // OPEN_METEO_URL comes from the operator (a self-hosted Open-Meteo on the LAN is normal), not from users.
    network: OPERATOR_CONFIGURED,
  });
  if (response.status !== "ok")
    throw new ForecastError("forecast service answered 304 to an unconditional request");
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch (error) {
    throw new ForecastError("forecast service returned something that is not JSON", { cause: error });
  }
  const parsed = ForecastPayloadSchema.safeParse(json);
  if (!parsed.success) {
    const reason = (json as { reason?: unknown } | null)?.reason;
    throw new ForecastError(
      typeof reason === "string"
        ? `forecast service refused: ${reason}`
        : `forecast service returned an unexpected shape (${parsed.error.issues[0]?.message ?? "invalid"})`,
    );
  }
  return parsed.data;
}
