import { afterAll, beforeAll, expect, it } from "vitest";
import { findUserByName } from "../../db/queries/users.ts";
import { cliHarness } from "../helpers/cli.ts";
import { describeEachDatabase } from "../helpers/database.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../servers/open-meteo-server.ts";

let meteo: OpenMeteoServer;
beforeAll(async () => {
  meteo = await startOpenMeteoServer();
});
afterAll(() => meteo.close());

describeEachDatabase("briefbot user --location", (getDb) => {
  const run = () => cliHarness(getDb, { env: { OPEN_METEO_GEOCODING_URL: meteo.url } });

  it("resolves a place once through geocoding and stores its coordinates", async () => {
    expect(await run()("user", "add", "pia", "--tz", "Europe/Lisbon", "--location", "Lisbon")).toMatchObject({
      code: 0,
    });
    const pia = await findUserByName(getDb(), "pia");
    expect(pia?.locationName).toBe("Lisbon, Portugal");
    expect(pia?.latitude).toBeCloseTo(38.72, 2);
    expect(pia?.longitude).toBeCloseTo(-9.13, 2);
  });

  it("lists the candidates of an ambiguous name and writes nothing", async () => {
    const result = await run()("user", "add", "sam", "--tz", "America/Chicago", "--location", "Springfield");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^briefbot: "Springfield" is ambiguous: Springfield, .+; Springfield, .+ — give a more precise name/,
    );
    expect(await findUserByName(getDb(), "sam")).toBeUndefined();
  });

  it("says so in one line when the geocoding service fails, and changes nothing", async () => {
    await run()("user", "add", "ria", "--tz", "Europe/London");
    meteo.failWith(500);
    try {
      const result = await run()("user", "set", "ria", "--location", "London");
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^briefbot: could not look up "London": .*; try again or give --lat and --lon\n$/,
      );
      expect((await findUserByName(getDb(), "ria"))?.locationName).toBeNull();
    } finally {
      meteo.recover();
    }
  });
});
