/**
 * Place names → places, as /settings needs them: the core cannot reach the network, so the edge implements
 * this port (over Open-Meteo's geocoding, behind the same network policy as the CLI) and `composeCore`
 * takes it as an option.
 */

export interface PlaceCandidate {
  /** "Porto, Portugal" / "Springfield, Illinois, United States". */
  label: string;
  latitude: number;
  longitude: number;
  /** The IANA zone the geocoder gives the place; null when it gives none. */
  timeZone: string | null;
}

export type PlaceSearch =
  | { kind: "found"; place: PlaceCandidate }
  /** Several places answer to the name and none clearly wins: the user picks. */
  | { kind: "ambiguous"; candidates: PlaceCandidate[] }
  | { kind: "not-found" }
  /** The service could not answer; `reason` is one line for people. */
  | { kind: "unavailable"; reason: string };

export interface Geocoder {
  /** Never throws: a failure is `unavailable`. */
  search(query: string): Promise<PlaceSearch>;
}
