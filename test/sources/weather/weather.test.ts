import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readCachedForecast } from "../../../db/queries/weather.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { describeWeatherCode } from "../../../src/core/weather/wmo-codes.ts";
import { getWeather, readWeather, refreshAllWeather } from "../../../src/sources/weather/get-weather.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../../servers/open-meteo-server.ts";

describe("describeWeatherCode", () => {
  it("translates WMO codes and admits unknown ones", () => {
    expect(describeWeatherCode(0)).toBe("clear sky");
    expect(describeWeatherCode(61)).toBe("light rain");
    expect(describeWeatherCode(95)).toBe("thunderstorm");
    expect(describeWeatherCode(42)).toBe("unknown conditions (code 42)");
    expect(describeWeatherCode(null)).toBe("unknown conditions");
  });
});

describeEachDatabase("weather", (getDb) => {
  let meteo: OpenMeteoServer;
  let coordinateCounter = 0;
  beforeAll(async () => {
    meteo = await startOpenMeteoServer({ firstDay: "2025-06-01" });
  });
  afterAll(async () => {
    await meteo?.close();
  });
  beforeEach(() => {
    meteo.recover();
    meteo.setTemperatureOffset(0);
  });

  /** Each test gets its own place so the shared cache table does not leak between tests. */
  async function userSomewhere(overrides: { timeZone?: string } = {}) {
    coordinateCounter += 1;
    return createTestUser(getDb(), {
      timeZone: overrides.timeZone ?? "Europe/Lisbon",
      locationName: "Lisbon, Portugal",
      latitude: 38.71667 + coordinateCounter,
      longitude: -9.13333,
    });
  }

  function depsAt(start: string) {
    const clock = fixedClock(start);
    return { clock, deps: { fetch, clock, forecastUrl: meteo.url, timeoutMs: 15_000 } };
  }

  it("fetches a fresh forecast with the documented query and caches it by rounded coordinates", async () => {
    const db = getDb();
    const user = await userSomewhere();
    const { deps } = depsAt("2025-06-01T06:10:00Z");
    const before = meteo.forecastRequests().length;
    const result = await getWeather(db, user, deps);
    expect(result).toMatchObject({
      available: true,
      location: "Lisbon, Portugal",
      stale: false,
      ageMinutes: 0,
      asOf: "2025-06-01T06:10:00.000Z",
      asOfLocal: "Sun 1 Jun, 07:10",
      current: { temperatureC: 14.2, weatherCode: 2, description: "partly cloudy" },
    });
    if (!result.available) throw new Error("expected weather");
    expect(result.days[0]).toEqual({
      date: "2025-06-01",
      minTemperatureC: 12.1,
      maxTemperatureC: 21.4,
      precipitationProbabilityPercent: 5,
      weatherCode: 2,
      description: "partly cloudy",
    });
    expect(result.days[1]?.description).toBe("light rain");
    expect(result.days[6]?.precipitationProbabilityPercent).toBeNull();

    const request = meteo.forecastRequests()[before];
    expect(request?.query.get("daily")).toBe(
      "temperature_2m_max,temperature_2m_min,precipitation_probability_max,weather_code",
    );
    expect(request?.query.get("current")).toBe("temperature_2m,weather_code");
    expect(request?.query.get("timezone")).toBe("Europe/Lisbon");
    expect(request?.query.get("latitude")).toBe(String(Math.round((user.latitude ?? 0) * 100) / 100));
    const cached = await readCachedForecast(db, user.latitude ?? 0, user.longitude ?? 0);
    expect(cached?.longitude).toBe(-9.13);
  });

  it("serves the cache without a request while it is younger than maxAgeMinutes", async () => {
    const db = getDb();
    const user = await userSomewhere();
    const { clock, deps } = depsAt("2025-06-01T06:00:00Z");
    await getWeather(db, user, deps);
    const requests = meteo.forecastRequests().length;
    clock.advance(20 * 60_000);
    meteo.setTemperatureOffset(5);
    const cached = await getWeather(db, user, deps);
    expect(meteo.forecastRequests().length).toBe(requests);
    expect(cached).toMatchObject({
      available: true,
      ageMinutes: 20,
      stale: false,
      current: { temperatureC: 14.2 },
    });
    clock.advance(15 * 60_000);
    const refreshed = await getWeather(db, user, deps);
    expect(meteo.forecastRequests().length).toBe(requests + 1);
    expect(refreshed).toMatchObject({ available: true, ageMinutes: 0, current: { temperatureC: 19.2 } });
  });

  it.each([
    ["HTTP 500", 500 as const, /HTTP 500/],
    ["a hang", "hang" as const, /no complete response within 300 ms/],
    ["a non-JSON body", "garbage" as const, /not JSON/],
    ["an unexpected shape", "wrong-shape" as const, /unexpected shape/],
  ])(
    "serves the last forecast with its as-of time and stale: true after %s",
    async (_label, mode, reason) => {
      const db = getDb();
      const user = await userSomewhere();
      const { clock, deps } = depsAt("2025-06-01T06:00:00Z");
      await getWeather(db, user, deps);
      clock.advance(26 * 60 * 60_000);
      meteo.failWith(mode);
      const result = await getWeather(db, user, {
        ...deps,
        timeoutMs: mode === "hang" ? 300 : deps.timeoutMs,
      });
      expect(result).toMatchObject({
        available: true,
        stale: true,
        asOf: "2025-06-01T06:00:00.000Z",
        ageMinutes: 26 * 60,
      });
      if (!result.available) throw new Error("expected weather");
      expect(result.staleReason).toMatch(reason);
      // "Today" is 2 June in Lisbon now, so yesterday's row is gone.
      expect(result.days[0]?.date).toBe("2025-06-02");
      expect(result.days).toHaveLength(6);
    },
  );

  it("returns a clear unavailable result, not an exception, with nothing cached", async () => {
    const db = getDb();
    const user = await userSomewhere();
    const { deps } = depsAt("2025-06-01T06:00:00Z");
    meteo.failWith(503);
    const result = await getWeather(db, user, deps);
    expect(result.available).toBe(false);
    expect(!result.available && result.reason).toMatch(
      /^weather unavailable: could not fetch a forecast for Lisbon, Portugal \(.*HTTP 503/,
    );
    expect(await readWeather(db, user, deps.clock.now())).toEqual({
      available: false,
      reason: "weather unavailable: no forecast has been fetched yet for Lisbon, Portugal",
    });
  });

  it("says so when the user has no location", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const { deps } = depsAt("2025-06-01T06:00:00Z");
    const result = await getWeather(db, user, deps);
    expect(!result.available && result.reason).toMatch(/no location is set/);
  });

  it("the background refresh fills the cache that read-only readWeather serves, flagging it stale later", async () => {
    const db = getDb();
    const user = await userSomewhere({ timeZone: "Pacific/Auckland" });
    const { clock, deps } = depsAt("2025-06-01T06:00:00Z");
    const totals = await refreshAllWeather(db, deps);
    expect(totals.refreshed).toBeGreaterThanOrEqual(1);
    const before = meteo.forecastRequests().length;
    const fresh = await readWeather(db, user, clock.now());
    expect(meteo.forecastRequests().length).toBe(before);
    expect(fresh).toMatchObject({ available: true, stale: false, asOfLocal: "Sun 1 Jun, 18:00" });
    const later = await readWeather(db, user, new Date("2025-06-01T08:00:00Z"));
    expect(later).toMatchObject({ available: true, stale: true, ageMinutes: 120 });
  });
});
