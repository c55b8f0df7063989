/** Every real-world export in the shared corpus parses without throwing and yields the instances it should. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ExpandedInstance, expandCalendar } from "../../../src/sources/calendar/expand-calendar.ts";
import { DEFAULT_RECURRENCE_LIMITS } from "../../../src/sources/calendar/recurrence-budget.ts";
import { REAL_WORLD_FIXTURES } from "../../helpers/shared-fixtures.ts";

const DIR = join(REAL_WORLD_FIXTURES, "ics");
const WIDE = { windowStart: new Date("1990-01-01T00:00:00Z"), windowEnd: new Date("2030-01-01T00:00:00Z") };
/**
 * The defaults are sized for the two-week sync window; forty years of a weekday series is 10,000
 * occurrences, so the wide window gets room for them (and the tests check that nothing was cut).
 */
const WIDE_LIMITS = {
  ...DEFAULT_RECURRENCE_LIMITS,
  instancesPerSeries: 20_000,
  instancesPerCalendar: 100_000,
  timeMs: 60_000,
};
const BUDGET_WARNING = /recurrence budget|stopped after|occurrences in the sync window/;

function expand(name: string, userZone = "Europe/London", window = WIDE) {
  return expandCalendar(readFileSync(join(DIR, name), "utf8"), { userZone, ...window, limits: WIDE_LIMITS });
}

const starts = (instances: ExpandedInstance[]) =>
  instances.map((instance) => instance.startsAt.toISOString());

describe("real-world iCalendar fixtures", () => {
  const files = readdirSync(DIR).filter((file) => file.endsWith(".ics"));

  it("finds the corpus", () => {
    expect(files.length).toBeGreaterThanOrEqual(16);
  });

  for (const file of files) {
    it(`${file}: parses without throwing and every instance is sane`, () => {
      const result = expand(file);
      expect(result.instances.length).toBeGreaterThan(0);
      expect(result.warnings.filter((warning) => BUDGET_WARNING.test(warning))).toEqual([]);
      for (const instance of result.instances) {
        expect(instance.title).not.toBe("");
        expect(Number.isNaN(instance.startsAt.getTime())).toBe(false);
        expect(instance.endsAt.getTime()).toBeGreaterThanOrEqual(instance.startsAt.getTime());
        if (instance.allDay) {
          expect(instance.startDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          expect(instance.endDate! > instance.startDate!).toBe(true);
        }
      }
    });
  }

  it("apple: drops the cancelled event, keeps tentative, reads America/Vancouver without a VTIMEZONE", () => {
    const { instances } = expand("apple-macos-status-tentative-cancelled.ics");
    expect(
      instances.map((instance) => [instance.title, instance.status, instance.startsAt.toISOString()]),
    ).toEqual([
      ["Tentative", "tentative", "2022-07-04T23:00:00.000Z"],
      ["Confirmed", "confirmed", "2022-07-05T16:00:00.000Z"],
      ["No Status", "confirmed", "2022-07-07T16:00:00.000Z"],
    ]);
  });

  it("exchange all-day series: moved instance, DATE-TIME RECURRENCE-ID, Exchange-style UTC UNTIL", () => {
    const { instances } = expand("exchange-allday-moved-recurrence.ics", "America/Los_Angeles");
    const dates = instances.map((instance) => instance.startDate);
    expect(dates.slice(0, 4)).toEqual(["2026-02-19", "2026-02-24", "2026-02-27", "2026-03-03"]);
    expect(dates).not.toContain("2026-02-26");
    expect(instances.find((instance) => instance.startDate === "2026-02-27")?.instanceKey).toBe("2026-02-26");
    // UNTIL=20260817T220000Z is local midnight of Tue 18 Aug in W. Europe: that day is the last one.
    expect(dates.at(-1)).toBe("2026-08-18");
    expect(instances.every((instance) => instance.allDay && instance.endDate !== null)).toBe(true);
  });

  it("exchange Windows TZIDs: repairs the quoted TZID, maps zones, honours a folded EXDATE list", () => {
    const { instances } = expand("exchange-windows-tzids-weekly-exdate.ics");
    const jira = instances.filter((instance) => instance.title === "Log Yesterday's Jira time");
    expect(jira[0]?.startsAt.toISOString()).toBe("2020-06-09T07:00:00.000Z");
    expect(jira[0]?.timeZone).toBe("Europe/Berlin");
    expect(jira.at(-1)?.startsAt.toISOString()).toBe("2021-03-09T08:00:00.000Z");
    const pacific = instances.filter((instance) => instance.title === "Not the actual summary either");
    expect(pacific[0]?.startsAt.toISOString()).toBe("2020-07-07T19:00:00.000Z");
    expect(pacific[0]?.timeZone).toBe("America/Los_Angeles");
    const pacificStarts = starts(pacific);
    for (const excluded of [
      "2020-07-21T19:00:00.000Z",
      "2020-07-23T19:00:00.000Z",
      "2020-09-03T19:00:00.000Z",
    ]) {
      expect(pacificStarts).not.toContain(excluded);
    }
    expect(pacificStarts).toContain("2020-07-24T19:00:00.000Z");
    expect(instances.find((instance) => instance.title === "test")?.startsAt.toISOString()).toBe(
      "2020-09-10T07:00:00.000Z",
    );
  });

  it("floating, UTC, TZID and DATE values side by side", () => {
    const { instances } = expand("floating-utc-tzid-date-mix.ics", "Asia/Tokyo");
    const byTitle = new Map(instances.map((instance) => [instance.title, instance]));
    expect(byTitle.get("No Timezone")?.startsAt.toISOString()).toBe("2002-10-27T16:20:30.000Z");
    expect(byTitle.get("UTC Timezone")?.startsAt.toISOString()).toBe("2002-10-28T01:20:30.000Z");
    expect(byTitle.get("Inline Timezone")?.startsAt.toISOString()).toBe("2002-10-28T06:20:30.000Z");
    expect(byTitle.get("Date Only (Explicit)")?.startDate).toBe("2002-10-28");
    expect(byTitle.get("Date Only (Implicit)")?.startDate).toBe("2002-10-28");
    expect(byTitle.get("Date Only (Implicit)")?.endDate).toBe("2002-10-29");
  });

  it("google: an override listed before its master replaces the right occurrence", () => {
    const { instances } = expand("google-override-before-master.ics");
    expect(instances.map((instance) => [instance.startsAt.toISOString(), instance.title])).toEqual([
      ["2026-02-10T17:00:00.000Z", "TEST RECURR 3"],
      ["2026-02-11T17:30:00.000Z", "TEST RECURR 3 - MODIFIED"],
      ["2026-02-12T17:00:00.000Z", "TEST RECURR 3"],
    ]);
  });

  it("khal: UTC RECURRENCE-IDs on a Europe/Berlin series move one instance and cancel another", () => {
    const { instances } = expand("weekly-override-and-cancelled-instance.ics");
    expect(instances.map((instance) => instance.startsAt.toISOString())).toEqual([
      "2014-06-30T05:00:00.000Z",
      "2014-07-07T07:00:00.000Z",
      "2014-07-21T05:00:00.000Z",
      "2014-07-28T05:00:00.000Z",
      "2014-08-04T05:00:00.000Z",
    ]);
  });

  it("a Windows TZID wins over its bogus VTIMEZONE", () => {
    const { instances } = expand("windows-tzid-nz-bogus-vtimezone.ics");
    expect(instances).toHaveLength(1);
    expect(instances[0]?.startsAt.toISOString()).toBe("2019-11-20T00:00:00.000Z");
    expect(instances[0]?.endsAt.toISOString()).toBe("2019-11-20T01:30:00.000Z");
    expect(instances[0]?.timeZone).toBe("Pacific/Auckland");
  });

  it('ownCloud: a custom "(GMT +01:00)" TZID is a fixed offset', () => {
    const { instances } = expand("owncloud-custom-gmt-tzid.ics", "Europe/London", {
      windowStart: new Date("2026-07-01T00:00:00Z"),
      windowEnd: new Date("2026-08-01T00:00:00Z"),
    });
    expect(
      instances.map((instance) => [instance.title, instance.startsAt.toISOString(), instance.timeZone]),
    ).toEqual([
      ["Party", "2026-07-14T12:00:00.000Z", "Europe/Berlin"],
      ["Party next day", "2026-07-15T13:00:00.000Z", "UTC+1"],
    ]);
  });

  it("google: DURATION:P1D instead of DTEND", () => {
    const { instances } = expand("google-duration-instead-of-dtend.ics");
    expect(instances[0]?.startsAt.toISOString()).toBe("2012-06-30T13:00:00.000Z");
    expect(instances[0]?.endsAt.toISOString()).toBe("2012-07-01T13:00:00.000Z");
  });

  it("outlook: 7-day all-day biweekly series with a DATE-TIME EXDATE and UTC UNTIL", () => {
    const { instances } = expand("outlook-gmt-multiday-allday-biweekly.ics");
    const series = instances.filter((instance) => instance.uid === "111");
    expect(series.map((instance) => `${instance.startDate}..${instance.endDate}`)).toEqual([
      "2024-07-01..2024-07-08",
      "2024-07-29..2024-08-05",
    ]);
    const timed = instances.find((instance) => instance.title === "outlook event with alarm");
    expect(timed?.startsAt.toISOString()).toBe("2024-10-04T17:30:00.000Z");
  });

  it("podio: tab folding, trailing junk after END:VCALENDAR", () => {
    const { instances, warnings } = expand("podio-tab-folded-html-trailing-junk.ics");
    expect(instances).toHaveLength(1);
    expect(instances[0]?.title).toBe('Termin 4353 und"so"');
    expect(instances[0]?.description).toContain("Toller Termin für");
    expect(warnings).toContain("ignored text after END:VCALENDAR");
  });

  it("a malformed parameter list still yields the floating event", () => {
    const { instances } = expand("malformed-double-semicolon-param.ics", "America/New_York");
    expect(
      instances.map((instance) => [instance.title, instance.startsAt.toISOString(), instance.timeZone]),
    ).toEqual([["An Event with too many semicolons", "2014-04-09T13:30:00.000Z", null]]);
  });

  it("google: EXDATEs and a garbage-prefixed RRULE", () => {
    const { instances } = expand("google-weekly-exdate-bad-rrule.ics", "Europe/London", {
      windowStart: new Date("2020-10-12T00:00:00Z"),
      windowEnd: new Date("2020-10-17T00:00:00Z"),
    });
    const days = (title: string) =>
      instances
        .filter((instance) => instance.title === title)
        .map((instance) => instance.startsAt.toISOString().slice(0, 10));
    expect(days("Brain Break")).toEqual(["2020-10-12", "2020-10-13", "2020-10-14", "2020-10-16"]);
    expect(days("Academic Time")).toEqual(["2020-10-12", "2020-10-13", "2020-10-14", "2020-10-16"]);
  });

  it("google birthdays: orphan all-day overrides are shown on their dates", () => {
    const { instances } = expand("google-birthday-allday-overrides.ics", "Pacific/Auckland");
    expect(new Set(instances.map((instance) => instance.startDate))).toEqual(
      new Set(["2012-12-10", "2013-12-10", "2014-12-10"]),
    );
  });

  it("google: biweekly with folded EXDATE list and UNTIL", () => {
    const { instances } = expand("google-biweekly-exdate-until.ics");
    const series = instances.filter((instance) => instance.title === "Example of comma-separated exdates");
    const seriesStarts = starts(series);
    expect(seriesStarts[0]).toBe("2017-02-16T15:00:00.000Z");
    expect(seriesStarts).not.toContain("2017-07-06T14:00:00.000Z");
    expect(seriesStarts).not.toContain("2017-07-17T14:00:00.000Z");
    // 3 Aug is excluded and the next Monday (14 Aug, 14:00Z) is after UNTIL.
    expect(seriesStarts.at(-1)).toBe("2017-07-31T14:00:00.000Z");
  });

  it("google: a long folded SUMMARY unfolds exactly", () => {
    const { instances } = expand("google-folded-long-summary.ics");
    expect(
      instances[0]?.title.startsWith("Really long event name thing Really long event name thingReally long"),
    ).toBe(true);
    expect(instances[0]?.title).toContain("thingReally long event name thing");
    expect(instances[0]?.title.endsWith("ally long event name thing")).toBe(true);
  });
});
