/**
 * Fresh before a briefing, as a new user meets it in the terminal: `user add --location`, then `brief`,
 * against the Open-Meteo and Ollama test servers. The simulated model writes the weather sentence from the
 * get_weather result it was handed (the runner's receipt), so the prose shows what the model could see.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { registerBriefCommands } from "../../src/cli/commands/brief.ts";
import { registerUserCommands } from "../../src/cli/commands/user.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { cliHarness } from "../helpers/cli.ts";
import { describeEachDatabase } from "../helpers/database.ts";
import { type OllamaTestServer, startOllamaServer } from "../servers/ollama-server.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../servers/open-meteo-server.ts";
import { toolResult } from "../servers/tool-habits.ts";

const MODEL = "weather-reader:7b";
/** 07:12 in Lisbon (WEST, UTC+1) on Monday 2 June 2025. */
const MORNING = "2025-06-02T06:12:00Z";

let ollama: OllamaTestServer;
let meteo: OpenMeteoServer;
beforeAll(async () => {
  ollama = await startOllamaServer({
    models: {
      // Reads the receipts it is handed and writes at once, the weather sentence from get_weather.
      [MODEL]: {
        reply: ({ request }) => {
          const weather = toolResult(request, "get_weather");
          if (!weather || typeof weather.error === "string") {
            // Repeats what the receipt says, not a guess (and no coordinates, which no receipt backs).
            const never = String(weather?.error).includes("no forecast has been fetched yet");
            return {
              content: never
                ? "No forecast has ever been fetched for your place yet, so I cannot tell you the weather."
                : "The weather service was unavailable.",
            };
          }
          const today = weather.today as { summary: string; low: number; high: number };
          const age =
            weather.stale === true ? `The last forecast I have, as of ${String(weather.as_of)}, says ` : "";
          return {
            content: `${age}${age ? today.summary : `Today: ${today.summary}`}, ${today.low} to ${today.high} degrees.`,
          };
        },
      },
    },
  });
  // Open-Meteo's first day is the briefing's day, so "today" is its first daily entry (12.1 to 21.4 °C).
  meteo = await startOpenMeteoServer({ firstDay: "2025-06-02" });
});
afterAll(async () => {
  await ollama.close();
  await meteo.close();
});
beforeEach(() => meteo.recover());

describeEachDatabase("a new user's first brief", (getDb) => {
  const clock = fixedClock(MORNING);
  const cli = () =>
    cliHarness(getDb, {
      env: {
        OLLAMA_HOST: ollama.url,
        BRIEFBOT_MODEL: MODEL,
        OPEN_METEO_URL: meteo.url,
        OPEN_METEO_GEOCODING_URL: meteo.url,
      },
      clock,
      families: [registerUserCommands, registerBriefCommands],
    });
  /** A new user in Lisbon, as `user add --location` makes them (each test its own, at a place of its own). */
  async function newUserInLisbon(): Promise<string> {
    clock.set(MORNING);
    const name = `ana-${randomBytes(3).toString("hex")}`;
    const added = await cli()("user", "add", name, "--tz", "Europe/Lisbon", "--location", "Lisbon");
    expect(added.code).toBe(0);
    return name;
  }

  it("states the forecast's low and high, fetched before the model was asked", async () => {
    const name = await newUserInLisbon();
    const forecastsBefore = meteo.forecastRequests().length;
    const brief = await cli()("brief", "--user", name, "--slot", "morning");

    expect(brief.code).toBe(0);
    expect(brief.stdout.split("\n")[0]).toBe("Today: partly cloudy, 12 to 21 degrees.");
    expect(brief.stdout).toContain("✓ pulled weather");
    expect(brief.stdout).toMatch(/grounding: \d+ claims checked, all backed/);
    expect(brief.stderr).toContain("refreshing weather…");
    expect(brief.stderr).toContain("✓ weather refreshed");
    // At most one forecast request (a test on the other database may have cached Lisbon already).
    expect(meteo.forecastRequests().length - forecastsBefore).toBeLessThanOrEqual(1);
  });

  it("says plainly that no forecast was ever fetched when Open-Meteo is down for a new place", async () => {
    // A place nobody has a forecast for, so no earlier test's cache answers it.
    const name = `bo-${randomBytes(3).toString("hex")}`;
    clock.set(MORNING);
    const lat = (40 + Math.random()).toFixed(4);
    expect(
      (await cli()("user", "add", name, "--tz", "Europe/Lisbon", "--lat", lat, "--lon", "-8.4")).code,
    ).toBe(0);
    meteo.failWith(503);
    const brief = await cli()("brief", "--user", name, "--slot", "morning");

    expect(brief.code).toBe(0);
    expect(brief.stdout.split("\n")[0]).toBe(
      "No forecast has ever been fetched for your place yet, so I cannot tell you the weather.",
    );
    expect(brief.stdout).toContain("✗ pulled weather");
    expect(brief.stderr).toMatch(
      /✗ weather: could not fetch a forecast \(.*503.*\); none has ever been fetched/,
    );
  });

  it("states the last forecast with its age when Open-Meteo is down later", async () => {
    const name = await newUserInLisbon();
    expect((await cli()("brief", "--user", name, "--slot", "morning")).code).toBe(0);
    // Three hours on, the forecast is due for a refresh, and the service is down.
    clock.set("2025-06-02T09:30:00Z");
    meteo.failWith(503);
    const brief = await cli()("brief", "--user", name, "--slot", "morning");

    expect(brief.code).toBe(0);
    expect(brief.stderr).toMatch(/✗ weather: could not refresh \(.*503.*\); using the forecast as of 07:1\d/);
    expect(brief.stdout.split("\n")[0]).toMatch(
      /^The last forecast I have, as of 07:1\d, says partly cloudy, 12 to 21 degrees\.$/,
    );
    expect(brief.stdout).toContain("✓ pulled weather");
    expect(brief.stdout).toMatch(/grounding: \d+ claims checked, all backed/);
  });
});
