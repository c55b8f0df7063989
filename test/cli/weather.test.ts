import { afterAll, beforeAll, expect, it } from "vitest";
import { findUserByName } from "../../db/queries/users.ts";
import { registerWeatherCommands } from "../../src/cli/commands/weather.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { LocationError, setUserLocation } from "../../src/sources/weather/set-location.ts";
import { cliHarness } from "../helpers/cli.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../servers/open-meteo-server.ts";

describeEachDatabase("briefbot weather and user locations", (getDb) => {
  let meteo: OpenMeteoServer;
  beforeAll(async () => {
    meteo = await startOpenMeteoServer({ firstDay: "2025-06-01" });
  });
  afterAll(async () => {
    await meteo?.close();
  });
  const run = (...argv: string[]) =>
    cliHarness(getDb, {
      families: [registerWeatherCommands],
      clock: fixedClock("2025-06-01T06:00:00Z"),
      env: { OPEN_METEO_URL: meteo.url, OPEN_METEO_GEOCODING_URL: meteo.url },
    })(...argv);

  async function rejection(promise: Promise<unknown>): Promise<LocationError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(LocationError);
    return error as LocationError;
  }

  it("sets a location by name and prints the forecast", async () => {
    const user = await createTestUser(getDb(), { timeZone: "Europe/Lisbon" });
    const updated = await setUserLocation(getDb(), fetch, meteo.url, user.name, "Lisbon");
    expect(updated).toMatchObject({
      locationName: "Lisbon, Portugal",
      latitude: 38.71667,
      longitude: -9.13333,
    });
    const shown = await run("weather", "--user", user.name);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split("\n").slice(0, 3)).toEqual([
      "Lisbon, Portugal, as of Sun 1 Jun, 07:00",
      "  now        14°C, partly cloudy",
      "  2025-06-01 12°C to 21°C, partly cloudy, 5% chance of rain",
    ]);
    const json = JSON.parse((await run("weather", "--user", user.name, "--json")).stdout) as {
      available: boolean;
    };
    expect(json.available).toBe(true);
  });

  it("refuses an ambiguous name, listing candidates, and changes nothing", async () => {
    const user = await createTestUser(getDb());
    const error = await rejection(setUserLocation(getDb(), fetch, meteo.url, user.name, "Springfield"));
    expect(error.message).toBe(
      'Springfield is ambiguous: Springfield, Missouri, United States; Springfield, Massachusetts, United States; Springfield, Illinois, United States; Springfield, Ohio, United States; Springfield, Oregon, United States — give a more precise name (e.g. "Springfield, Missouri") or --lat/--lon',
    );
    expect((await findUserByName(getDb(), user.name))?.latitude).toBeNull();
    const narrowed = await setUserLocation(getDb(), fetch, meteo.url, user.name, "Springfield, Missouri");
    expect(narrowed.locationName).toBe("Springfield, Missouri, United States");
  });

  it("accepts coordinates, rejecting out-of-range ones, unknown places and unknown users", async () => {
    const user = await createTestUser(getDb());
    expect(
      await setUserLocation(getDb(), fetch, meteo.url, user.name, { lat: 52.52, lon: 13.41, name: "Berlin" }),
    ).toMatchObject({
      locationName: "Berlin",
      latitude: 52.52,
    });
    expect(
      (await rejection(setUserLocation(getDb(), fetch, meteo.url, user.name, { lat: 91, lon: 0 }))).message,
    ).toContain("outside -90…90");
    expect(
      (await rejection(setUserLocation(getDb(), fetch, meteo.url, user.name, "Atlantis"))).message,
    ).toContain('no place called "Atlantis"');
    expect(
      (await rejection(setUserLocation(getDb(), fetch, meteo.url, "ghost", "Lisbon"))).message,
    ).toContain('no user named "ghost"');
    meteo.failWith(500);
    try {
      const failure = await rejection(setUserLocation(getDb(), fetch, meteo.url, user.name, "Lisbon"));
      expect(failure.message).toContain("could not look up");
      expect(failure.reason).toBe("unavailable");
    } finally {
      meteo.recover();
    }
    expect((await findUserByName(getDb(), user.name))?.locationName).toBe("Berlin");
  });

  it("the weather command reports unavailable weather and unknown users on stderr", async () => {
    const user = await createTestUser(getDb());
    const unavailable = await run("weather", "--user", user.name);
    expect(unavailable.code).toBe(1);
    expect(unavailable.stderr).toContain("weather unavailable: no location is set");
    expect((await run("weather", "--user", "ghost")).code).toBe(2);
    expect((await run("weather")).stderr).toContain("required option '--user <name>'");
  });
});
