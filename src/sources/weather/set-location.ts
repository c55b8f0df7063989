/**
 * Sets a user's weather location once, from a place name (resolved through geocoding) or coordinates.
 * Every failure is a `LocationError` with one line the person can act on.
 */
import type { Database } from "../../../db/client.ts";
import { findUserByName, updateUser } from "../../../db/queries/users.ts";
import type { User } from "../../../db/schema/index.ts";
import { BriefbotError, errorMessage } from "../../core/errors.ts";
import { FetchError, type FetchFunction } from "../http-cache-fetch.ts";
import { type Place, resolveLocation } from "./geocoding.ts";

/** A location that cannot be set: bad input (`invalid`), or the geocoding service failed (`unavailable`). */
export class LocationError extends BriefbotError<"location_invalid" | "location_unavailable"> {
  constructor(
    message: string,
    readonly reason: "invalid" | "unavailable" = "invalid",
  ) {
    super(reason === "invalid" ? "location_invalid" : "location_unavailable", message);
  }
}

export type LocationInput = string | { lat: number; lon: number; name?: string | undefined };

export async function setUserLocation(
  db: Database,
  fetchFunction: FetchFunction,
  geocodingUrl: string,
  userName: string,
  location: LocationInput,
): Promise<User> {
  const user = await findUserByName(db, userName);
  if (!user) throw new LocationError(`no user named "${userName}" (see: briefbot user list)`);
  const changes =
    typeof location === "string"
      ? await geocode(fetchFunction, geocodingUrl, location)
      : fromCoordinates(location);
  return updateUser(db, user.id, changes);
}

function fromCoordinates(location: { lat: number; lon: number; name?: string | undefined }) {
  const { lat, lon } = location;
  if (!Number.isFinite(lat) || lat < -90 || lat > 90)
    throw new LocationError(`latitude ${lat} is outside -90…90`);
  if (!Number.isFinite(lon) || lon < -180 || lon > 180)
    throw new LocationError(`longitude ${lon} is outside -180…180`);
  return { latitude: lat, longitude: lon, locationName: location.name?.trim() || `${lat}, ${lon}` };
}

async function geocode(fetchFunction: FetchFunction, geocodingUrl: string, name: string) {
  if (!name.trim()) throw new LocationError("a location needs a place name, or --lat and --lon");
  let resolution: Awaited<ReturnType<typeof resolveLocation>>;
  try {
    resolution = await resolveLocation(fetchFunction, geocodingUrl, name);
  } catch (error) {
    const detail = error instanceof FetchError ? error.message : errorMessage(error);
    throw new LocationError(
      `could not look up "${name}" (${detail}); try again later or give --lat/--lon`,
      "unavailable",
    );
  }
  if (resolution.kind === "not-found") {
    throw new LocationError(`no place called "${name}" was found; check the spelling or give --lat/--lon`);
  }
  if (resolution.kind === "ambiguous") {
    throw new LocationError(
      `${name} is ambiguous: ${describeCandidates(resolution.candidates)} — give a more precise name (e.g. "${example(resolution.candidates)}") or --lat/--lon`,
    );
  }
  const { place } = resolution;
  return { latitude: place.latitude, longitude: place.longitude, locationName: place.label };
}

export function describeCandidates(candidates: readonly Place[]): string {
  const shown = candidates.slice(0, 5).map((place) => place.label);
  return candidates.length > shown.length ? `${shown.join("; ")}; …` : shown.join("; ");
}

function example(candidates: readonly Place[]): string {
  const first = candidates[0];
  if (!first) return "Lisbon, Portugal";
  return [first.name, first.admin1 && first.admin1 !== first.name ? first.admin1 : first.country]
    .filter(Boolean)
    .join(", ");
}
