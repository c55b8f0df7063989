/**
 * /settings in the core, over both databases and the Open-Meteo test server's geocoding: the view, each
 * kind of change with its one-line refusal, the pick list for an ambiguous place and the proposed zone,
 * and the "next … briefing" line computed as the scheduler will run it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../../src/core/clock.ts";
import type { ModelClient } from "../../../src/core/model.ts";
import { parseSettings } from "../../../src/core/settings/index.ts";
import { createOpenMeteoGeocoder } from "../../../src/sources/weather/geocoder.ts";
import { claimRun } from "../../helpers/runs.ts";
import { createTestUser, describeInMemory, getUser } from "../../helpers/test-store.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../../servers/open-meteo-server.ts";
import { testCore } from "../fixture.ts";

/** Settings never call the model; a model that throws proves it. */
const NO_MODEL = {
  chat: () => Promise.reject(new Error("settings must not call the model")),
} as unknown as ModelClient;

let meteo: OpenMeteoServer;
beforeAll(async () => {
  meteo = await startOpenMeteoServer();
});
afterAll(() => meteo.close());

describe("parseSettings", () => {
  it("reads the short forms and normalises times and zones", () => {
    expect(parseSettings("")).toEqual({ kind: "view" });
    expect(parseSettings(" morning  6:45 ")).toEqual({ kind: "slot", slot: "morning", time: "06:45" });
    expect(parseSettings("Midday OFF")).toEqual({ kind: "slot", slot: "midday", time: null });
    expect(parseSettings("mode legacy")).toEqual({ kind: "mode", mode: "legacy" });
    expect(parseSettings("place Porto, Portugal")).toEqual({ kind: "place", query: "Porto, Portugal" });
    expect(parseSettings("place")).toEqual({ kind: "place-prompt" });
    expect(parseSettings("zone europe/lisbon")).toEqual({ kind: "zone", zone: "Europe/Lisbon" });
    expect(parseSettings("pick 2 Springfield")).toEqual({ kind: "pick", index: 2, query: "Springfield" });
  });

  it("refuses bad input with one clear line", () => {
    for (const input of [
      "morning 24:00",
      "morning 7",
      "noon 07:00",
      "mode fast",
      "zone Mars/Base",
      "zone UTC+2",
    ]) {
      const parsed = parseSettings(input);
      expect(parsed.kind, input).toBe("invalid");
      if (parsed.kind === "invalid") expect(parsed.error).not.toContain("\n");
    }
  });
});

describeInMemory("settings service", (getStore) => {
  // Monday 2 June 2025, 06:00 in London (BST).
  const core = (at = "2025-06-02T05:00:00Z") => {
    const clock = fixedClock(at);
    const built = testCore(getStore(), NO_MODEL, {
      clock,
      geocoder: createOpenMeteoGeocoder(fetch, meteo.url),
    });
    return { settings: built.settings, clock };
  };

  it("shows zone, place, slot times, mode and the next briefing, with buttons for each", async () => {
    const user = await createTestUser(getStore(), {
      locationName: "London, United Kingdom",
      latitude: 51.5,
      longitude: -0.12,
    });
    const reply = await core().settings.handle(user.id, "");
    expect(reply.kind).toBe("view");
    expect(reply.text).toContain("time zone: Europe/London (Mon 06:00 there now)");
    expect(reply.text).toContain("place: London, United Kingdom");
    expect(reply.text).toContain("briefings: morning 07:00 · midday 12:30 · afternoon 16:30 · evening off");
    expect(reply.text).toContain("mode: agentic");
    expect(reply.text).toContain("next morning briefing: Mon 07:00");
    const args = reply.choices.flat().map((choice) => choice.args);
    expect(args).toEqual(
      expect.arrayContaining(["morning 06:30", "morning off", "evening 19:00", "mode legacy", "place"]),
    );
    expect(reply.choices.flat().find((choice) => choice.args === "morning 07:00")?.label).toBe("✓ 07:00");
    for (const choice of reply.choices.flat())
      expect(Buffer.byteLength(`s:${choice.args}`)).toBeLessThanOrEqual(64);
  });

  it("moves a slot and confirms the next briefing in local time; a slot that already ran today comes tomorrow", async () => {
    const store = getStore();
    const user = await createTestUser(store);
    const { settings } = core();
    const moved = await settings.handle(user.id, "morning 06:45");
    expect(moved.kind).toBe("changed");
    expect(moved.text).toBe("Morning briefing at 06:45 (Europe/London).\nnext morning briefing: Mon 06:45");
    expect((await getUser(store, user.id))?.slots).toEqual({
      morning: "06:45",
      midday: "12:30",
      afternoon: "16:30",
      evening: null,
    });

    // Today's morning run exists (it ran at 06:45): the next one is tomorrow's.
    await claimRun(
      store,
      {
        userId: user.id,
        slot: "morning",
        localDate: "2025-06-02",
        notAfter: new Date("2025-06-02T07:15:00Z"),
      },
      new Date("2025-06-02T05:45:00Z"),
    );
    const later = core("2025-06-02T06:30:00Z");
    expect((await later.settings.handle(user.id, "morning 08:00")).text).toBe(
      "Morning briefing at 08:00 (Europe/London).\nnext morning briefing: Tue 08:00",
    );
  });

  it("says a slot whose time passed today but whose window is open runs at once (as the scheduler will)", async () => {
    const user = await createTestUser(getStore());
    const reply = await core("2025-06-02T05:00:00Z").settings.handle(user.id, "morning 05:30");
    expect(reply.text).toContain(
      "next morning briefing: Mon 05:30 (its time has passed, so it comes within a minute)",
    );
    const closed = await core("2025-06-02T05:00:00Z").settings.handle(user.id, "morning 03:00");
    expect(closed.text).toContain("next morning briefing: Tue 03:00");
    // Just after midnight, yesterday's 23:30 is still in its window: the scheduler claims it now.
    const late = await core("2025-06-02T23:10:00Z").settings.handle(user.id, "evening 23:30");
    expect(late.text).toContain(
      "next evening briefing: Mon 23:30 (its time has passed, so it comes within a minute)",
    );
  });

  it("turns a slot off without touching the others, and switches the mode", async () => {
    const store = getStore();
    const user = await createTestUser(store);
    const { settings } = core();
    expect((await settings.handle(user.id, "midday off")).text).toBe(
      "Midday briefing is off.\nnext morning briefing: Mon 07:00",
    );
    expect((await settings.handle(user.id, "mode legacy")).text).toContain("Briefing mode: legacy");
    const stored = await getUser(store, user.id);
    expect(stored?.slots).toEqual({ morning: "07:00", midday: null, afternoon: "16:30", evening: null });
    expect(stored?.briefingMode).toBe("legacy");
  });

  it("refuses bad input in one line and changes nothing", async () => {
    const store = getStore();
    const user = await createTestUser(store);
    const { settings } = core();
    for (const input of ["morning 25:00", "brunch 10:00", "mode turbo", "zone Europe/Atlantis"]) {
      const reply = await settings.handle(user.id, input);
      expect(reply.kind, input).toBe("error");
      expect(reply.text.split("\n"), input).toHaveLength(1);
    }
    const stored = await getUser(store, user.id);
    expect(stored?.slots.morning).toBe("07:00");
    expect(stored?.briefingMode).toBe("agentic");
    expect(stored?.timeZone).toBe("Europe/London");
  });

  it("shows a pick list for an ambiguous place; picking sets it and proposes its zone, which the user accepts", async () => {
    const store = getStore();
    const user = await createTestUser(store);
    const { settings } = core();
    const list = await settings.handle(user.id, "place Springfield");
    expect(list.kind).toBe("pick-place");
    expect(list.text.split("\n")[0]).toBe("Which Springfield?");
    const labels = list.choices.map((row) => row[0]?.label);
    expect(labels).toEqual([
      "Springfield, Missouri, United States",
      "Springfield, Massachusetts, United States",
      "Springfield, Illinois, United States",
      "Springfield, Ohio, United States",
      "Springfield, Oregon, United States",
    ]);
    expect((await getUser(store, user.id))?.locationName).toBeNull();

    const picked = await settings.handle(user.id, list.choices[2]?.[0]?.args ?? "");
    expect(picked.kind).toBe("propose-zone");
    expect(picked.text).toContain("Place: Springfield, Illinois, United States.");
    expect(picked.text).toContain("Its time zone is America/Chicago; your briefings follow Europe/London.");
    expect(picked.choices.flat()).toEqual([
      { label: "Use America/Chicago", args: "zone America/Chicago" },
      { label: "Keep Europe/London", args: "zone Europe/London" },
    ]);
    const placed = await getUser(store, user.id);
    expect(placed?.latitude).toBeCloseTo(39.8, 1);
    expect(placed?.timeZone).toBe("Europe/London");

    const accepted = await settings.handle(user.id, "zone America/Chicago");
    // 06:00 in London is 00:00 in Chicago: the 07:00 morning comes the same (Chicago) Monday.
    expect(accepted.text).toBe(
      "Time zone: America/Chicago; your briefing times are now in America/Chicago.\nnext morning briefing: Mon 07:00",
    );
    expect((await getUser(store, user.id))?.timeZone).toBe("America/Chicago");
  });

  it("proposes the zone of an unambiguous place in another zone, and says when it is the same", async () => {
    const user = await createTestUser(getStore());
    const { settings } = core();
    const porto = await settings.handle(user.id, "place Porto");
    expect(porto.kind).toBe("propose-zone");
    expect(porto.choices.flat().map((choice) => choice.args)).toEqual([
      "zone Europe/Lisbon",
      "zone Europe/London",
    ]);
    const lisboner = await createTestUser(getStore(), { timeZone: "Europe/Lisbon" });
    const same = await settings.handle(lisboner.id, "place Porto");
    expect(same.kind).toBe("changed");
    expect(same.text.split("\n")[0]).toBe("Place: Porto, Portugal (time zone Europe/Lisbon, as before).");
  });

  it("says so when the place is unknown, the list is stale, or the geocoder fails, and changes nothing", async () => {
    const store = getStore();
    const user = await createTestUser(store);
    const { settings } = core();
    expect((await settings.handle(user.id, "place Qqqqzz")).text).toMatch(
      /^No place called "Qqqqzz" was found/,
    );
    expect((await settings.handle(user.id, "pick 9 Springfield")).text).toMatch(/^That list is out of date/);
    meteo.failWith(500);
    try {
      const failed = await settings.handle(user.id, "place Lisbon, Portugal");
      expect(failed.kind).toBe("error");
      expect(failed.text).toMatch(
        /^Could not look up "Lisbon, Portugal" right now \(.+\); try again in a minute\.$/,
      );
    } finally {
      meteo.recover();
    }
    expect((await getUser(store, user.id))?.locationName).toBeNull();
  });
});
