/**
 * The core's `Geocoder` port over Open-Meteo geocoding (`resolveLocation`: the same request, network policy
 * and ambiguity rules as the CLI's `--location`), with every failure turned into a value.
 */
import { errorMessage } from "../../core/errors.ts";
import type { Geocoder, PlaceCandidate } from "../../core/geocoder.ts";
import { FetchError, type FetchFunction } from "../http-cache-fetch.ts";
import { type Place, resolveLocation } from "./geocoding.ts";

export function createOpenMeteoGeocoder(fetchFunction: FetchFunction, geocodingUrl: string): Geocoder {
  return {
    async search(query) {
      try {
        const found = await resolveLocation(fetchFunction, geocodingUrl, query);
        if (found.kind === "found") return { kind: "found", place: toCandidate(found.place) };
        if (found.kind === "ambiguous")
          return { kind: "ambiguous", candidates: found.candidates.map(toCandidate) };
        return { kind: "not-found" };
      } catch (error) {
        const reason = error instanceof FetchError ? error.message : errorMessage(error);
        return { kind: "unavailable", reason: reason.slice(0, 200) };
      }
    },
  };
}

function toCandidate(place: Place): PlaceCandidate {
  return {
    label: place.label,
    latitude: place.latitude,
    longitude: place.longitude,
    timeZone: place.timezone,
  };
}
