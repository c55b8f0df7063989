/**
 * Place name → coordinates through the Open-Meteo geocoding API, with ambiguity detection so the CLI can
 * ask "which Springfield?" instead of silently picking one. Qualifiers after commas ("Lisbon, Portugal",
 * "Springfield, Illinois, US") narrow the candidates by country, country code or region.
 */
import { z } from "zod";
import { BriefbotError } from "../../core/errors.ts";
import { type FetchFunction, fetchWithCache } from "../http-cache-fetch.ts";
import { OPERATOR_CONFIGURED } from "../network/address-policy.ts";

export const DEFAULT_OPEN_METEO_GEOCODING_URL = "https://geocoding-api.open-meteo.com";

export interface Place {
  name: string;
  latitude: number;
  longitude: number;
  country: string | null;
  countryCode: string | null;
  admin1: string | null;
  timezone: string | null;
  population: number | null;
  /** "Lisbon, Portugal" / "Springfield, Illinois, United States". */
  label: string;
}

export type LocationResolution =
  | { kind: "found"; place: Place }
  | { kind: "ambiguous"; candidates: Place[] }
  | { kind: "not-found" };

const GeocodingResultSchema = z.object({
  name: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  country: z.string().optional(),
  country_code: z.string().optional(),
  admin1: z.string().optional(),
  admin2: z.string().optional(),
  timezone: z.string().optional(),
  population: z.number().optional(),
});
const GeocodingResponseSchema = z.object({ results: z.array(z.unknown()).optional() });

/** The most populous candidate wins outright when it is this many times bigger than the next. */
const CLEAR_WINNER_RATIO = 10;

export class GeocodingError extends BriefbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("geocoding_unreadable", message, options);
  }
}

/** Throws `FetchError` or `GeocodingError` when the service cannot answer; "no such place" is a value. */
export async function resolveLocation(
  fetchFunction: FetchFunction,
  baseUrl: string,
  query: string,
): Promise<LocationResolution> {
  const [name = "", ...qualifiers] = query
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  if (name.length < 2) return { kind: "not-found" };

  const candidates = (await searchPlaces(fetchFunction, baseUrl, name)).filter((place) =>
    qualifiers.every((qualifier) => matchesQualifier(place, qualifier)),
  );
  return pickPlace(candidates);
}

export async function searchPlaces(
  fetchFunction: FetchFunction,
  baseUrl: string,
  name: string,
): Promise<Place[]> {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/v1/search`);
  url.searchParams.set("name", name);
  url.searchParams.set("count", "5");
  url.searchParams.set("language", "en");
  url.searchParams.set("format", "json");
  const response = await fetchWithCache(fetchFunction, url.toString(), {
    timeoutMs: 10_000,
    maxBytes: 512 * 1024,
    headers: { Accept: "application/json" },
    // OPEN_METEO_URL comes from the operator (a self-hosted Open-Meteo on the LAN is normal), not from users.
    network: OPERATOR_CONFIGURED,
  });
  if (response.status !== "ok")
    throw new GeocodingError("geocoding service answered 304 to an unconditional request");
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch (error) {
    throw new GeocodingError("geocoding service returned something that is not JSON", { cause: error });
  }
  const parsed = GeocodingResponseSchema.safeParse(json);
  if (!parsed.success) throw new GeocodingError("geocoding service returned an unexpected shape");
  const places: Place[] = [];
  for (const raw of parsed.data.results ?? []) {
    const result = GeocodingResultSchema.safeParse(raw);
    if (result.success) places.push(toPlace(result.data));
  }
  return places;
}

function toPlace(result: z.infer<typeof GeocodingResultSchema>): Place {
  const admin1 = result.admin1 && result.admin1 !== result.name ? result.admin1 : null;
  return {
    name: result.name,
    latitude: result.latitude,
    longitude: result.longitude,
    country: result.country ?? null,
    countryCode: result.country_code ?? null,
    admin1: result.admin1 ?? null,
    timezone: result.timezone ?? null,
    population: result.population ?? null,
    label: [result.name, admin1, result.country].filter(Boolean).join(", "),
  };
}

function matchesQualifier(place: Place, qualifier: string): boolean {
  const wanted = qualifier.toLowerCase();
  const aliases =
    wanted === "usa" || wanted === "united states of america" ? ["us"] : wanted === "uk" ? ["gb"] : [];
  return [place.country, place.countryCode, place.admin1].some((value) => {
    const have = value?.toLowerCase();
    return have !== undefined && (have === wanted || aliases.includes(have));
  });
}

function pickPlace(candidates: Place[]): LocationResolution {
  const [first, ...rest] = candidates;
  if (!first) return { kind: "not-found" };
  // Several hits for one region (a city and its district) are the same answer; keep the service's first.
  const distinct = candidates.filter(
    (place, index) => candidates.findIndex((other) => regionKey(other) === regionKey(place)) === index,
  );
  if (distinct.length === 1 || rest.length === 0) return { kind: "found", place: first };

  const byPopulation = [...distinct].sort((a, b) => (b.population ?? 0) - (a.population ?? 0));
  const [largest, runnerUp] = byPopulation;
  if (largest && runnerUp && (largest.population ?? 0) > 0) {
    if ((largest.population ?? 0) >= CLEAR_WINNER_RATIO * (runnerUp.population ?? 0)) {
      return { kind: "found", place: largest };
    }
  }
  return { kind: "ambiguous", candidates: distinct };
}

function regionKey(place: Place): string {
  return `${place.countryCode ?? place.country ?? ""}|${place.admin1 ?? ""}`;
}
