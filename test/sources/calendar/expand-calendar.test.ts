import { describe, expect, it } from "vitest";
import { CalendarParseError } from "../../../src/sources/calendar/calendar-parse-error.ts";
import { defaultExpansionWindow, expandCalendar } from "../../../src/sources/calendar/expand-calendar.ts";
import { resolveTimeZoneName } from "../../../src/sources/calendar/resolve-time-zone.ts";

const WINDOW = { windowStart: new Date("2026-01-01T00:00:00Z"), windowEnd: new Date("2026-12-31T00:00:00Z") };

function ics(...events: string[][]): string {
  const body = events.flatMap((lines) => ["BEGIN:VEVENT", ...lines, "END:VEVENT"]);
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...body, "END:VCALENDAR", ""].join("\r\n");
}

function expand(text: string, userZone = "Europe/London", window = WINDOW) {
  return expandCalendar(text, { userZone, ...window });
}

describe("expandCalendar", () => {
  it("throws CalendarParseError for text that is not a calendar, empty, or truncated", () => {
    for (const text of [
      "<html><body>Sign in</body></html>",
      "",
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\n",
    ]) {
      expect(() => expand(text)).toThrow(CalendarParseError);
    }
    expect(() => expand("BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:2026")).toThrow(/truncated/);
  });

  it("throws when every event is unreadable, but skips one bad event among good ones with a warning", () => {
    const bad = ["UID:bad", "SUMMARY:Broken", 'DTSTART;TZID="unterminated:20260301T100000']; // unparseable line
    expect(() => expand(ics(bad))).toThrow(CalendarParseError);
    const good = ["UID:good", "SUMMARY:Fine", "DTSTART:20260301T100000Z", "DTEND:20260301T110000Z"];
    const noStart = ["UID:nostart", "SUMMARY:No start"];
    const result = expand(ics(bad, good, noStart));
    expect(result.instances.map((instance) => instance.title)).toEqual(["Fine"]);
    expect(result.warnings.some((warning) => warning.includes('"Broken"'))).toBe(true);
    expect(result.warnings.some((warning) => warning.includes('"No start": it has no DTSTART'))).toBe(true);
  });

  it("expands monthly BYDAY with COUNT, and DAILY with UNTIL", () => {
    const monthly = expand(
      ics([
        "UID:m",
        "SUMMARY:Board",
        "DTSTART;TZID=America/New_York:20260113T170000",
        "DURATION:PT1H",
        "RRULE:FREQ=MONTHLY;BYDAY=2TU;COUNT=4",
      ]),
    );
    expect(monthly.instances.map((instance) => instance.startsAt.toISOString())).toEqual([
      "2026-01-13T22:00:00.000Z",
      "2026-02-10T22:00:00.000Z",
      "2026-03-10T21:00:00.000Z", // New York is on daylight time from 8 March
      "2026-04-14T21:00:00.000Z",
    ]);
    const daily = expand(
      ics([
        "UID:d",
        "SUMMARY:Pills",
        "DTSTART;TZID=Europe/London:20260327T080000",
        "RRULE:FREQ=DAILY;UNTIL=20260330T070000Z",
      ]),
    );
    // 30 March 08:00 BST is 07:00Z: exactly UNTIL, so included; the clocks changed on the 29th.
    expect(daily.instances.map((instance) => instance.startsAt.toISOString())).toEqual([
      "2026-03-27T08:00:00.000Z",
      "2026-03-28T08:00:00.000Z",
      "2026-03-29T07:00:00.000Z",
      "2026-03-30T07:00:00.000Z",
    ]);
  });

  it("keeps only occurrences that touch the window, including one that started before it", () => {
    const text = ics(
      ["UID:w", "SUMMARY:Weekly", "DTSTART:20200106T090000Z", "DTEND:20200106T100000Z", "RRULE:FREQ=WEEKLY"],
      ["UID:long", "SUMMARY:Long", "DTSTART;VALUE=DATE:20260228", "DTEND;VALUE=DATE:20260303"],
    );
    const { instances } = expand(text, "UTC", {
      windowStart: new Date("2026-03-02T09:30:00Z"),
      windowEnd: new Date("2026-03-09T09:00:00Z"),
    });
    expect(
      instances.map(
        (instance) => `${instance.title} ${instance.startDate ?? instance.startsAt.toISOString()}`,
      ),
    ).toEqual(["Long 2026-02-28", "Weekly 2026-03-02T09:00:00.000Z"]);
  });

  it("an all-day event stays on its date in every zone", () => {
    const text = ics([
      "UID:a",
      "SUMMARY:Holiday",
      "DTSTART;VALUE=DATE:20260704",
      "DTEND;VALUE=DATE:20260705",
    ]);
    for (const zone of ["Pacific/Auckland", "America/Los_Angeles", "Europe/London"]) {
      const [instance] = expand(text, zone).instances;
      expect([instance?.startDate, instance?.endDate, instance?.allDay]).toEqual([
        "2026-07-04",
        "2026-07-05",
        true,
      ]);
    }
    const [auckland] = expand(text, "Pacific/Auckland").instances;
    expect(auckland?.startsAt.toISOString()).toBe("2026-07-03T12:00:00.000Z");
  });

  it("warns about an unknown TZID and reads it in the user's zone; uses a custom VTIMEZONE when nothing else matches", () => {
    const unknown = expand(
      ics(["UID:u", "SUMMARY:Mystery", "DTSTART;TZID=Nowhere Special:20260301T100000"]),
      "Asia/Tokyo",
    );
    expect(unknown.instances[0]?.startsAt.toISOString()).toBe("2026-03-01T01:00:00.000Z");
    expect(unknown.warnings).toContain('unknown time zone "Nowhere Special"; read as Asia/Tokyo');

    const custom = [
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "BEGIN:VTIMEZONE",
      "TZID:Customized Time Zone",
      "BEGIN:STANDARD",
      "DTSTART:16010101T000000",
      "TZOFFSETFROM:+0530",
      "TZOFFSETTO:+0530",
      "END:STANDARD",
      "END:VTIMEZONE",
      "BEGIN:VEVENT",
      "UID:c",
      "SUMMARY:Custom",
      "DTSTART;TZID=Customized Time Zone:20260301T100000",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n");
    const result = expand(custom);
    expect(result.instances[0]?.startsAt.toISOString()).toBe("2026-03-01T04:30:00.000Z");
    expect(result.warnings).toEqual([]);
  });

  it("reads an ambiguous fall-back time as the first occurrence", () => {
    const { instances } = expand(
      ics(["UID:f", "SUMMARY:Early", "DTSTART;TZID=America/New_York:20261101T013000"]),
    );
    expect(instances[0]?.startsAt.toISOString()).toBe("2026-11-01T05:30:00.000Z");
  });

  it("default window is one day back and fourteen ahead", () => {
    const now = new Date("2026-05-10T12:00:00Z");
    expect(defaultExpansionWindow(now)).toEqual({
      windowStart: new Date("2026-05-09T12:00:00Z"),
      windowEnd: new Date("2026-05-24T12:00:00Z"),
    });
  });
});

describe("resolveTimeZoneName", () => {
  it("maps IANA, Windows, display and offset names", () => {
    expect(resolveTimeZoneName("W. Europe Standard Time")).toBe("Europe/Berlin");
    expect(resolveTimeZoneName("Pacific Standard Time")).toBe("America/Los_Angeles");
    expect(resolveTimeZoneName("(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna")).toBe(
      "Europe/Amsterdam",
    );
    expect(resolveTimeZoneName("/mozilla.org/20050126_1/Europe/Paris")).toBe("Europe/Paris");
    expect(resolveTimeZoneName("US/Central")).toBe("America/Chicago");
    expect(resolveTimeZoneName("(GMT +01:00)")).toBe("UTC+1");
    expect(resolveTimeZoneName("GMT+0530")).toBe("UTC+5:30");
    expect(resolveTimeZoneName("Customized Time Zone")).toBeUndefined();
  });
});
