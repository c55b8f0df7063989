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

  it("takes the place's time zone when --tz is not given, and says so", async () => {
    const result = await run()("user", "add", "ann", "--location", "Porto");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe("added ann (Europe/Lisbon)\ntime zone Europe/Lisbon (from Porto, Portugal)\n");
    const ann = await findUserByName(getDb(), "ann");
    expect(ann?.timeZone).toBe("Europe/Lisbon");
    expect(ann?.locationName).toBe("Porto, Portugal");
  });

  it("lets --tz win over the place's zone, and refuses a user with neither", async () => {
    const both = await run()("user", "add", "bo", "--tz", "America/New_York", "--location", "Porto");
    expect(both).toMatchObject({ code: 0, stdout: "added bo (America/New_York)\n" });
    expect((await findUserByName(getDb(), "bo"))?.timeZone).toBe("America/New_York");

    const neither = await run()("user", "add", "cy");
    expect(neither).toEqual({
      code: 2,
      stdout: "",
      stderr: "briefbot: user add needs --tz <zone>, or --location <place> to take the place's time zone\n",
    });
    const coordinates = await run()(
      "user",
      "add",
      "di",
      "--location",
      "Home",
      "--lat",
      "41.1",
      "--lon",
      "-8.6",
    );
    expect(coordinates.code).toBe(2);
    expect(coordinates.stderr).toBe("briefbot: coordinates carry no time zone; add --tz <zone>\n");
    expect(await findUserByName(getDb(), "cy")).toBeUndefined();
    expect(await findUserByName(getDb(), "di")).toBeUndefined();
  });

  it("does not change the zone silently when user set moves the place; it says how to", async () => {
    await run()("user", "add", "ed", "--tz", "Europe/London");
    const moved = await run()("user", "set", "ed", "--location", "Porto");
    expect(moved.code).toBe(0);
    expect(moved.stdout).toBe(
      "updated ed\nnote: Porto, Portugal is in Europe/Lisbon, but ed's time zone stays Europe/London; to change it: briefbot user set ed --tz Europe/Lisbon\n",
    );
    const ed = await findUserByName(getDb(), "ed");
    expect(ed?.timeZone).toBe("Europe/London");
    expect(ed?.locationName).toBe("Porto, Portugal");
  });
});
