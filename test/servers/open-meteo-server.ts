/**
 * A local stand-in for Open-Meteo's forecast (`/v1/forecast`) and geocoding (`/v1/search`) APIs, serving
 * JSON in the shapes the real services return, recording every request, and failing on demand.
 *
 *   const meteo = await startOpenMeteoServer();
 *   … getWeather(db, user, { forecastUrl: meteo.url, … }) …
 *   meteo.failWith(500);      // or meteo.failWith("hang"), meteo.failWith("garbage")
 *   await meteo.close();
 */
import { createServer } from "node:http";
import { listen, sendJson } from "./http.ts";

export interface GeocodingResult {
  id: number;
  name: string;
  latitude: number;
  longitude: number;
  elevation?: number;
  feature_code?: string;
  country_code: string;
  country: string;
  admin1?: string;
  admin2?: string;
  timezone: string;
  population?: number;
}

/** Recorded-shape geocoding results for a few names, as `/v1/search?name=…&count=5` returns them. */
export const GEOCODING_RESULTS: Record<string, GeocodingResult[]> = {
  porto: [
    {
      id: 2735943,
      name: "Porto",
      latitude: 41.14961,
      longitude: -8.61099,
      elevation: 104,
      feature_code: "PPLA",
      country_code: "PT",
      country: "Portugal",
      admin1: "Porto",
      timezone: "Europe/Lisbon",
      population: 249633,
    },
  ],
  lisbon: [
    {
      id: 2267057,
      name: "Lisbon",
      latitude: 38.71667,
      longitude: -9.13333,
      elevation: 45,
      feature_code: "PPLC",
      country_code: "PT",
      country: "Portugal",
      admin1: "Lisbon",
      timezone: "Europe/Lisbon",
      population: 517802,
    },
    {
      id: 5160783,
      name: "Lisbon",
      latitude: 40.77201,
      longitude: -80.76813,
      elevation: 294,
      feature_code: "PPL",
      country_code: "US",
      country: "United States",
      admin1: "Ohio",
      admin2: "Columbiana",
      timezone: "America/New_York",
      population: 2821,
    },
    {
      id: 4971068,
      name: "Lisbon",
      latitude: 44.03146,
      longitude: -70.10394,
      elevation: 78,
      feature_code: "PPL",
      country_code: "US",
      country: "United States",
      admin1: "Maine",
      admin2: "Androscoggin",
      timezone: "America/New_York",
      population: 9128,
    },
  ],
  springfield: [
    {
      id: 4409896,
      name: "Springfield",
      latitude: 37.21533,
      longitude: -93.29824,
      elevation: 398,
      feature_code: "PPLA2",
      country_code: "US",
      country: "United States",
      admin1: "Missouri",
      admin2: "Greene",
      timezone: "America/Chicago",
      population: 166810,
    },
    {
      id: 4951788,
      name: "Springfield",
      latitude: 42.10148,
      longitude: -72.58981,
      elevation: 21,
      feature_code: "PPLA2",
      country_code: "US",
      country: "United States",
      admin1: "Massachusetts",
      admin2: "Hampden",
      timezone: "America/New_York",
      population: 155929,
    },
    {
      id: 4250542,
      name: "Springfield",
      latitude: 39.80172,
      longitude: -89.64371,
      elevation: 182,
      feature_code: "PPLA",
      country_code: "US",
      country: "United States",
      admin1: "Illinois",
      admin2: "Sangamon",
      timezone: "America/Chicago",
      population: 116565,
    },
    {
      id: 4520760,
      name: "Springfield",
      latitude: 39.92423,
      longitude: -83.80882,
      elevation: 300,
      feature_code: "PPLA2",
      country_code: "US",
      country: "United States",
      admin1: "Ohio",
      admin2: "Clark",
      timezone: "America/New_York",
      population: 58662,
    },
    {
      id: 5754005,
      name: "Springfield",
      latitude: 44.04624,
      longitude: -123.02203,
      elevation: 139,
      feature_code: "PPL",
      country_code: "US",
      country: "United States",
      admin1: "Oregon",
      admin2: "Lane",
      timezone: "America/Los_Angeles",
      population: 59403,
    },
  ],
  london: [
    {
      id: 2643743,
      name: "London",
      latitude: 51.50853,
      longitude: -0.12574,
      elevation: 25,
      feature_code: "PPLC",
      country_code: "GB",
      country: "United Kingdom",
      admin1: "England",
      admin2: "Greater London",
      timezone: "Europe/London",
      population: 7556900,
    },
    {
      id: 6058560,
      name: "London",
      latitude: 42.98339,
      longitude: -81.23304,
      elevation: 252,
      feature_code: "PPL",
      country_code: "CA",
      country: "Canada",
      admin1: "Ontario",
      timezone: "America/Toronto",
      population: 346765,
    },
  ],
};

export type FailureMode = number | "hang" | "garbage" | "wrong-shape";

export interface RecordedMeteoRequest {
  path: string;
  query: URLSearchParams;
}

export interface OpenMeteoServer {
  url: string;
  requests: RecordedMeteoRequest[];
  forecastRequests(): RecordedMeteoRequest[];
  /** Every later request fails this way until `recover()`. */
  failWith(mode: FailureMode): void;
  recover(): void;
  /** Shifts temperatures so a test can tell one fetch from the next. */
  setTemperatureOffset(offset: number): void;
  close(): Promise<void>;
}

export async function startOpenMeteoServer(options: { firstDay?: string } = {}): Promise<OpenMeteoServer> {
  const requests: RecordedMeteoRequest[] = [];
  let failure: FailureMode | undefined;
  let offset = 0;
  const firstDay = options.firstDay ?? "2025-06-01";

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    requests.push({ path: url.pathname, query: url.searchParams });
    if (failure === "hang") return;
    if (typeof failure === "number")
      return sendJson(response, failure, { error: true, reason: "Scripted failure" });
    if (failure === "garbage") {
      response.writeHead(200, { "content-type": "application/json" }).end("<html>502 Bad Gateway</html>");
      return;
    }
    if (failure === "wrong-shape") return sendJson(response, 200, { hello: "world" });

    if (url.pathname === "/v1/forecast")
      return sendJson(response, 200, forecastBody(url.searchParams, firstDay, offset));
    if (url.pathname === "/v1/search") {
      const name = (url.searchParams.get("name") ?? "").toLowerCase();
      const results = GEOCODING_RESULTS[name];
      // The real API omits `results` entirely when nothing matches.
      return sendJson(
        response,
        200,
        results ? { results, generationtime_ms: 0.9 } : { generationtime_ms: 0.4 },
      );
    }
    sendJson(response, 404, { error: true, reason: "Not Found" });
  });
  const { url, close } = await listen(server);

  return {
    url,
    requests,
    forecastRequests: () => requests.filter((request) => request.path === "/v1/forecast"),
    failWith(mode) {
      failure = mode;
    },
    recover() {
      failure = undefined;
    },
    setTemperatureOffset(value) {
      offset = value;
    },
    close,
  };
}

function forecastBody(query: URLSearchParams, firstDay: string, offset: number) {
  const latitude = Number(query.get("latitude"));
  const longitude = Number(query.get("longitude"));
  const days = Array.from({ length: 7 }, (_, index) => {
    const date = new Date(`${firstDay}T00:00:00Z`);
    date.setUTCDate(date.getUTCDate() + index);
    return date.toISOString().slice(0, 10);
  });
  return {
    latitude: Math.round(latitude * 1000) / 1000 + 0.0005,
    longitude: Math.round(longitude * 1000) / 1000 - 0.0005,
    generationtime_ms: 0.05,
    utc_offset_seconds: 3600,
    timezone: query.get("timezone") ?? "GMT",
    timezone_abbreviation: "GMT+1",
    elevation: 12,
    current_units: { time: "iso8601", interval: "seconds", temperature_2m: "°C", weather_code: "wmo code" },
    current: { time: `${firstDay}T07:00`, interval: 900, temperature_2m: 14.2 + offset, weather_code: 2 },
    daily_units: {
      time: "iso8601",
      temperature_2m_max: "°C",
      temperature_2m_min: "°C",
      precipitation_probability_max: "%",
      weather_code: "wmo code",
    },
    daily: {
      time: days,
      temperature_2m_max: [21.4, 19.8, 23.1, 24.0, 18.2, 17.5, 20.3].map((value) => value + offset),
      temperature_2m_min: [12.1, 11.5, 13.0, 14.2, 10.9, 9.8, 11.1].map((value) => value + offset),
      precipitation_probability_max: [5, 60, 0, 10, 85, 40, null],
      weather_code: [2, 61, 0, 1, 95, 3, 45],
    },
  };
}
