import { expect, it } from "vitest";
import { findUserByIdentity, findUserByName } from "../../db/queries/users.ts";
import { cliHarness } from "../helpers/cli.ts";
import { describeEachDatabase } from "../helpers/database.ts";

describeEachDatabase("briefbot user", (getDb) => {
  const run = cliHarness(getDb);

  it("adds a user with zone, slots, mode and platform links, then shows and lists them", async () => {
    const added = await run(
      "user",
      "add",
      "ann",
      "--tz",
      "Europe/Lisbon",
      "--lat",
      "38.72",
      "--lon",
      "-9.14",
      "--location",
      "Lisbon",
      "--telegram",
      "111222",
      "--slack",
      "U0ANN",
      "--slot",
      "morning=06:45",
      "--slot",
      "midday=off",
      "--mode",
      "legacy",
    );
    expect(added).toEqual({ code: 0, stdout: "added ann (Europe/Lisbon)\n", stderr: "" });
    const shown = await run("user", "show", "ann");
    expect(shown.stdout).toContain("time zone  Europe/Lisbon");
    expect(shown.stdout).toContain("location   Lisbon (38.72, -9.14)");
    expect(shown.stdout).toContain("slots      morning 06:45, midday off, afternoon 16:30, evening off");
    expect(shown.stdout).toContain("linked     telegram 111222, slack U0ANN");
    const listed = await run("user", "list", "--json");
    const rows = JSON.parse(listed.stdout) as { name: string; briefingMode: string }[];
    expect(rows.find((row) => row.name === "ann")?.briefingMode).toBe("legacy");
    expect((await findUserByIdentity(getDb(), "telegram", "111222"))?.identity.chatId).toBe("111222");
  });

  it("refuses a missing or invalid time zone and writes nothing", async () => {
    const missing = await run("user", "add", "nobody");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      "briefbot: user add needs --tz <zone>, or --location <place> to take the place's time zone\n",
    );
    const invalid = await run("user", "add", "bea", "--tz", "Mars/Olympus");
    expect(invalid).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'briefbot: --tz "Mars/Olympus" is not an IANA time zone (for example Europe/London or America/New_York)\n',
    });
    expect(await findUserByName(getDb(), "bea")).toBeUndefined();
  });

  it("refuses a bad slot, a duplicate name and a taken platform id, writing nothing", async () => {
    expect((await run("user", "add", "cat", "--tz", "UTC", "--slot", "morning=25:00")).stderr).toBe(
      'briefbot: --slot "morning=25:00": "25:00" is not a time like 07:00 (or "off")\n',
    );
    expect(await findUserByName(getDb(), "cat")).toBeUndefined();
    expect((await run("user", "add", "dan", "--tz", "UTC", "--telegram", "999")).code).toBe(0);
    const duplicate = await run("user", "add", "dan", "--tz", "UTC");
    expect(duplicate.stderr).toBe('briefbot: a user named "dan" already exists (use: briefbot user set)\n');
    const taken = await run("user", "add", "eve", "--tz", "UTC", "--telegram", "999");
    expect(taken).toMatchObject({ code: 2, stderr: "briefbot: Telegram 999 is already linked to dan\n" });
    expect(await findUserByName(getDb(), "eve")).toBeUndefined();
  });

  it("sets slots off and on, the zone and the profile; links later", async () => {
    await run("user", "add", "fay", "--tz", "America/New_York");
    const set = await run(
      "user",
      "set",
      "fay",
      "--slot",
      "midday=off",
      "--slot",
      "evening=19:00",
      "--tz",
      "America/Chicago",
      "--profile",
      "Interests: cycling",
    );
    expect(set).toEqual({ code: 0, stdout: "updated fay\n", stderr: "" });
    const fay = await findUserByName(getDb(), "fay");
    expect(fay?.slots).toEqual({ morning: "07:00", midday: null, afternoon: "16:30", evening: "19:00" });
    expect(fay?.timeZone).toBe("America/Chicago");
    expect(fay?.profile).toBe("Interests: cycling");
    expect(await run("user", "link", "fay", "--slack", "U0FAY")).toEqual({
      code: 0,
      stdout: "linked Slack U0FAY to fay\n",
      stderr: "",
    });
  });

  it("explains an unknown user, an empty set and a malformed link in one line", async () => {
    expect(await run("user", "set", "ghost", "--mode", "legacy")).toEqual({
      code: 2,
      stdout: "",
      stderr: 'briefbot: no user named "ghost" (see: briefbot user list)\n',
    });
    await run("user", "add", "gil", "--tz", "UTC");
    expect((await run("user", "set", "gil")).stderr).toBe(
      "briefbot: nothing to change: give at least one option\n",
    );
    expect((await run("user", "link", "gil", "--telegram", "@gil")).stderr).toBe(
      'briefbot: --telegram "@gil" is not a numeric Telegram user id\n',
    );
    expect((await run("user", "set", "gil", "--lat", "95", "--lon", "0")).stderr).toBe(
      'briefbot: --lat "95" is not a number between -90 and 90\n',
    );
  });
});
