/**
 * The VEVENT writer on real exports (Google, Exchange/Outlook, Apple, ownCloud, and the rest under
 * test/fixtures): each single event of a fixture is cut out as a CalDAV object would hold it (one UID,
 * the calendar's VTIMEZONEs), edited, and read back. Only the properties the edit names differ, line for
 * line; a recurring series is refused.
 */
import { readdirSync, readFileSync } from "node:fs";
import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import type { EventChanges } from "../../../../src/core/accounts/ports.ts";
import {
  editEvent,
  isSeries,
  newEvent,
  UnwritableEventError,
} from "../../../../src/sources/accounts/caldav/vevent-write.ts";
import { expandCalendar } from "../../../../src/sources/calendar/expand-calendar.ts";

const NOW = new Date("2026-12-03T07:00:00Z");
const FOLDERS = ["../../../fixtures/ics/", "../../../fixtures/real-world/ics/"].map(
  (folder) => new URL(folder, import.meta.url),
);
const fixtures = FOLDERS.flatMap((folder) =>
  readdirSync(folder)
    .filter((name) => name.endsWith(".ics"))
    .map((name) => ({ name, text: readFileSync(new URL(name, folder), "utf8") })),
);

/**
 * Content lines, unfolded, as the writer's output is compared with its input. ical.js drops the quotes
 * around a parameter value that needs none (`CN="a@b.c"` → `CN=a@b.c`, the same value by RFC 5545 §3.2);
 * that one difference is evened out here, nothing else.
 */
const contentLines = (text: string) =>
  text
    .replace(/\r?\n[ \t]/g, "")
    .split(/\r?\n/)
    .filter((line) => line !== "")
    .map((line) => line.replace(/=("[^";:,]*")(?=[;:])/g, (_, quoted: string) => `=${quoted.slice(1, -1)}`));

/** The fixture's raw lines with every VEVENT block but the `index`th removed: one object, as CalDAV holds it. */
function objectOf(text: string, index: number): string {
  const lines = text.split(/\r?\n/);
  const kept: string[] = [];
  let event = -1;
  let inside = false;
  for (const line of lines) {
    if (/^BEGIN:VEVENT\s*$/i.test(line)) {
      event += 1;
      inside = true;
    }
    if (!inside || event === index) kept.push(line);
    if (/^END:VEVENT\s*$/i.test(line)) inside = false;
  }
  return `${kept.join("\r\n").replace(/(\r\n)+$/, "")}\r\n`;
}

/** Every event of every fixture that is a single event (no RRULE, RDATE, overrides) ical.js can read. */
function singleEvents() {
  const found: { label: string; object: string }[] = [];
  for (const { name, text } of fixtures) {
    let calendar: ICAL.Component;
    try {
      calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
    } catch {
      continue;
    }
    const events = calendar.getAllSubcomponents("vevent");
    const uids = events.map((event) => String(event.getFirstPropertyValue("uid")));
    events.forEach((_, index) => {
      const object = objectOf(text, index);
      try {
        if (!isSeries(object) && uids.filter((uid) => uid === uids[index]).length === 1)
          found.push({ label: `${name} #${index}`, object });
      } catch {
        // Not an object ical.js reads on its own; the writer refuses such text (tested below).
      }
    });
  }
  return found;
}

const MOVE: EventChanges = {
  title: "Moved in chat",
  timing: {
    allDay: false,
    startsAt: new Date("2026-12-04T14:00:00Z"),
    endsAt: new Date("2026-12-04T15:30:00Z"),
  },
  timeZone: "Europe/Berlin",
};
const WEEK = {
  userZone: "Europe/Berlin",
  windowStart: new Date("2026-12-01T00:00:00Z"),
  windowEnd: new Date("2026-12-10T00:00:00Z"),
};
const CHANGED = /^(SUMMARY|DTSTART|DTEND|DURATION|DTSTAMP|LAST-MODIFIED|SEQUENCE)[;:]/i;

describe("editEvent on real-world exports", () => {
  const events = singleEvents();

  it("finds single events to edit in the fixtures of several exporters", () => {
    expect(events.length).toBeGreaterThanOrEqual(8);
    expect(new Set(events.map((event) => event.label.split("-")[0])).size).toBeGreaterThanOrEqual(4);
  });

  it.each(singleEvents())("$label: a move and a rename change only those lines", ({ object }) => {
    const edited = editEvent(object, MOVE, NOW);
    const outsideVtimezone = (lines: string[]) => {
      // The writer adds a VTIMEZONE for the user's zone when the object has none; it is checked below.
      const kept: string[] = [];
      let added = false;
      const had = contentLines(object).includes("TZID:Europe/Berlin");
      for (const [index, line] of lines.entries()) {
        if (line === "BEGIN:VTIMEZONE") added = !had && lines[index + 1] === "TZID:Europe/Berlin";
        if (!added) kept.push(line);
        if (line === "END:VTIMEZONE") added = false;
      }
      return kept;
    };
    const before = contentLines(object).filter((line) => !CHANGED.test(line));
    const after = outsideVtimezone(contentLines(edited)).filter((line) => !CHANGED.test(line));
    expect(after).toEqual(before);
    const lines = contentLines(edited);
    expect(lines).toContain("SUMMARY:Moved in chat");
    expect(lines).toContain("DTSTART;TZID=Europe/Berlin:20261204T150000");
    expect(lines).toContain("DTEND;TZID=Europe/Berlin:20261204T163000");
    expect(lines).toContain("DTSTAMP:20261203T070000Z");
    expect(lines.filter((line) => /^DURATION[;:]/.test(line))).toEqual([]);
    // Read back through the same layer as a sync: the instants the move asked for.
    const { instances } = expandCalendar(edited, WEEK);
    // A cancelled event stays cancelled: the edit does not touch STATUS, and the reader hides it.
    if (/^STATUS:CANCELLED\r?$/im.test(object)) return expect(instances).toEqual([]);
    expect(instances).toHaveLength(1);
    expect(instances[0]).toMatchObject({
      title: "Moved in chat",
      startsAt: new Date("2026-12-04T14:00:00Z"),
      endsAt: new Date("2026-12-04T15:30:00Z"),
    });
  });
});

describe("editEvent and newEvent", () => {
  const [google] = singleEvents().filter((event) => event.label.startsWith("google-team-london"));

  it("moves an event to all day as VALUE=DATE dates, and an empty location removes it", () => {
    const edited = editEvent(
      google?.object ?? "",
      {
        location: "",
        timing: { allDay: true, startDate: "2026-12-05", endDate: "2026-12-07" },
        timeZone: "UTC",
      },
      NOW,
    );
    const lines = contentLines(edited);
    expect(lines).toContain("DTSTART;VALUE=DATE:20261205");
    expect(lines).toContain("DTEND;VALUE=DATE:20261207");
    expect(lines.filter((line) => line.startsWith("LOCATION"))).toEqual([]);
    expect(expandCalendar(edited, WEEK).instances).toEqual([
      expect.objectContaining({ allDay: true, startDate: "2026-12-05", endDate: "2026-12-07" }),
    ]);
  });

  it("leaves the timing, SEQUENCE and text it is not asked about as they were", () => {
    const edited = editEvent(google?.object ?? "", { title: "Renamed", timeZone: "Europe/Berlin" }, NOW);
    const without = (text: string) =>
      contentLines(text).filter((line) => !/^(SUMMARY|DTSTAMP|LAST-MODIFIED)[;:]/.test(line));
    expect(without(edited)).toEqual(without(google?.object ?? ""));
  });

  it("refuses a recurring series from the fixtures, and says why", () => {
    const series = fixtures.flatMap(({ name, text }) => {
      try {
        const events = new ICAL.Component(ICAL.parse(text) as unknown[]).getAllSubcomponents("vevent");
        return events.flatMap((event, index) =>
          event.hasProperty("rrule") ? [{ name, object: objectOf(text, index) }] : [],
        );
      } catch {
        return [];
      }
    });
    expect(new Set(series.map((entry) => entry.name)).size).toBeGreaterThanOrEqual(3);
    for (const { name, object } of series) {
      expect(isSeries(object), name).toBe(true);
      expect(() => editEvent(object, MOVE, NOW), name).toThrow(UnwritableEventError);
      expect(() => editEvent(object, MOVE, NOW), name).toThrow(/recurring series/);
    }
  });

  it("refuses text it cannot parse, and an object without a VEVENT", () => {
    expect(() => editEvent("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n", MOVE, NOW)).toThrow(/cannot be parsed/);
    expect(() =>
      editEvent(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:t\r\nEND:VTODO\r\nEND:VCALENDAR\r\n",
        MOVE,
        NOW,
      ),
    ).toThrow(/no VEVENT/);
  });

  it("writes a new timed event in the user's zone with its VTIMEZONE, read back at the same instants", () => {
    const text = newEvent(
      {
        title: "Dinner, with Bo",
        location: "Lokal",
        description: "bring wine",
        timing: MOVE.timing ?? { allDay: true, startDate: "", endDate: "" },
        timeZone: "Europe/Berlin",
      },
      "uid-1",
      NOW,
    );
    const lines = contentLines(text);
    for (const line of [
      "UID:uid-1",
      "DTSTAMP:20261203T070000Z",
      "SUMMARY:Dinner\\, with Bo",
      "LOCATION:Lokal",
      "DESCRIPTION:bring wine",
      "DTSTART;TZID=Europe/Berlin:20261204T150000",
      "DTEND;TZID=Europe/Berlin:20261204T163000",
      "TZID:Europe/Berlin",
    ])
      expect(lines).toContain(line);
    expect(lines.indexOf("BEGIN:VTIMEZONE")).toBeLessThan(lines.indexOf("BEGIN:VEVENT"));
    const { instances, warnings } = expandCalendar(text, { ...WEEK, userZone: "America/New_York" });
    expect(warnings).toEqual([]);
    expect(instances).toEqual([
      expect.objectContaining({
        title: "Dinner, with Bo",
        startsAt: new Date("2026-12-04T14:00:00Z"),
        endsAt: new Date("2026-12-04T15:30:00Z"),
        timeZone: "Europe/Berlin",
      }),
    ]);
    // The zone's own definition agrees with the name: ical.js reads the VTIMEZONE alone to the same instant.
    const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
    const zone = new ICAL.Timezone(
      calendar.getFirstSubcomponent("vtimezone") ?? new ICAL.Component("vtimezone"),
    );
    const start = calendar.getFirstSubcomponent("vevent")?.getFirstPropertyValue("dtstart");
    if (!(start instanceof ICAL.Time)) throw new Error("no DTSTART");
    expect(zone.utcOffset(start)).toBe(3600);
  });

  it("writes a new all-day event as VALUE=DATE without a VTIMEZONE", () => {
    const text = newEvent(
      {
        title: "Holiday",
        timing: { allDay: true, startDate: "2026-12-24", endDate: "2026-12-27" },
        timeZone: "Europe/Berlin",
      },
      "uid-2",
      NOW,
    );
    const lines = contentLines(text);
    expect(lines).toContain("DTSTART;VALUE=DATE:20261224");
    expect(lines).toContain("DTEND;VALUE=DATE:20261227");
    expect(lines).not.toContain("BEGIN:VTIMEZONE");
  });
});
