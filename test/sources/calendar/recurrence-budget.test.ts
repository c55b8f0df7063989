/**
 * Recurrence bombs against the budgets (defaults: 1,000 occurrences and 100,000 steps per series,
 * 5,000 occurrences, 1,000,000 steps and 3 s per calendar). Figures measured on the 2-core test machine
 * are in `npm run bench` (section "hostile"); these tests check the limits and the warnings.
 */
import { describe, expect, it } from "vitest";
import { defaultExpansionWindow, expandCalendar } from "../../../src/sources/calendar/expand-calendar.ts";
import { DEFAULT_RECURRENCE_LIMITS } from "../../../src/sources/calendar/recurrence-budget.ts";
import { fiftySecondlyBombs, secondlyBomb, stallingRules } from "./recurrence-bombs.ts";

const NOW = new Date("2026-03-30T12:00:00Z");
const WINDOW = defaultExpansionWindow(NOW);
const expand = (text: string, extra: Partial<Parameters<typeof expandCalendar>[1]> = {}) =>
  expandCalendar(text, { userZone: "Europe/London", ...WINDOW, ...extra });

function calendar(...events: string[][]): string {
  const body = events.flatMap((lines) => ["BEGIN:VEVENT", ...lines, "END:VEVENT"]);
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...body, "END:VCALENDAR", ""].join("\r\n");
}

const WEEKLY_MEETING = [
  "UID:weekly@example.com",
  "SUMMARY:Weekly planning",
  "DTSTART;TZID=Europe/London:20250106T100000",
  "DTEND;TZID=Europe/London:20250106T110000",
  "RRULE:FREQ=WEEKLY;BYDAY=MO,WE",
];
const LUNCH = [
  "UID:lunch@example.com",
  "SUMMARY:Lunch",
  "DTSTART:20260331T120000Z",
  "DTEND:20260331T130000Z",
];

describe("recurrence budgets", () => {
  it("the fixtures are the sizes the issue measured: a 293-byte rule and an 8 KB file of fifty", () => {
    expect(Buffer.byteLength(secondlyBomb())).toBeLessThanOrEqual(300);
    expect(Buffer.byteLength(fiftySecondlyBombs())).toBeGreaterThan(7_900);
    expect(Buffer.byteLength(fiftySecondlyBombs())).toBeLessThanOrEqual(8_192);
  });

  it("a 293-byte FREQ=SECONDLY rule without UNTIL stops at 1,000 occurrences (was 100,000), named in a warning", () => {
    const { instances, warnings } = expand(secondlyBomb());
    expect(instances).toHaveLength(DEFAULT_RECURRENCE_LIMITS.instancesPerSeries);
    expect(new Set(instances.map((instance) => instance.instanceKey)).size).toBe(instances.length);
    expect(warnings).toEqual([
      'event "Every second, forever (01)" (RRULE:FREQ=SECONDLY): stopped after 1,000 occurrences in the sync window',
    ]);
  });

  it("fifty such rules in 8 KB stop at the calendar's 5,000 occurrences (were unbounded); the rest are listed", () => {
    const { instances, warnings } = expand(fiftySecondlyBombs());
    expect(instances).toHaveLength(DEFAULT_RECURRENCE_LIMITS.instancesPerCalendar);
    const cut = warnings.filter((warning) => warning.includes("stopped after 1,000 occurrences"));
    expect(cut).toHaveLength(5);
    const summary = warnings.find((warning) =>
      warning.startsWith("the calendar's recurrence budget ran out"),
    );
    expect(summary).toMatch(/\(its 5,000 occurrences are used up\); 45 recurring events not expanded: "/);
    expect(summary).toMatch(/and 40 more$/);
  });

  it("rules that never match, need a decade of steps or have an absurd interval are cut, each by name", () => {
    // The step budget is under test: on a loaded machine the 3-s time budget could run out first.
    const { instances, warnings } = expand(stallingRules(), {
      limits: { ...DEFAULT_RECURRENCE_LIMITS, timeMs: 600_000 },
    });
    expect(warnings).toEqual(
      expect.arrayContaining([
        'event "Every second, forever (01)" (RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30): stopped after 100,000 recurrence steps',
        'event "Every second, forever (02)" (RRULE:FREQ=SECONDLY): stopped after 100,000 recurrence steps',
        'event "Every second, forever (03)": ignored RRULE with INTERVAL=2000000000; kept the first occurrence only',
      ]),
    );
    // DTSTART is always the first occurrence (RFC 5545), even of a rule that matches nothing after it; the
    // impossible yearly rule ends quietly, its search bounded by the window.
    expect(instances.map((instance) => instance.uid)).toEqual([
      "bomb-01@hostile.example",
      "bomb-03@hostile.example",
    ]);
  });

  it("ordinary events next to fifty bombs are expanded in full: cheap series run first", () => {
    const hostile = fiftySecondlyBombs().replace(
      "END:VCALENDAR",
      [
        "BEGIN:VEVENT",
        ...WEEKLY_MEETING,
        "END:VEVENT",
        "BEGIN:VEVENT",
        ...LUNCH,
        "END:VEVENT",
        "END:VCALENDAR",
      ].join("\r\n"),
    );
    const alone = expand(calendar(WEEKLY_MEETING, LUNCH)).instances;
    const beside = expand(hostile).instances.filter((instance) => !instance.uid.startsWith("bomb-"));
    expect(alone.length).toBe(6);
    expect(beside).toEqual(alone);
  });

  it("the calendar's step budget and time budget each stop expansion and say which ran out", () => {
    // A clock that never moves, so on a loaded machine the time budget cannot run out first.
    const steps = expand(stallingRules(), {
      limits: { ...DEFAULT_RECURRENCE_LIMITS, stepsPerCalendar: 150_000 },
      elapsedMs: () => 0,
    });
    expect(steps.warnings.join("\n")).toContain(
      "stopped: the calendar's recurrence budget ran out (its 150,000 recurrence steps are used up)",
    );

    // A clock that moves 50 ms per reading (it is read every 1,024 steps): 3 s are gone after 60 readings.
    let now = 0;
    const timed = expand(stallingRules(), { elapsedMs: () => (now += 50) });
    expect(timed.warnings.join("\n")).toContain(
      "stopped: the calendar's recurrence budget ran out (its 3,000 ms of expansion time are used up)",
    );
    expect(now).toBeLessThanOrEqual(3_100);
  });

  it("a VTIMEZONE whose observances recur every second is ignored (ical.js would expand it for hours)", () => {
    const text = [
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "PRODID:-//test//EN",
      "BEGIN:VTIMEZONE",
      "TZID:Hostile Zone",
      "BEGIN:STANDARD",
      "DTSTART:19700101T000000",
      "RRULE:FREQ=SECONDLY",
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0000",
      "END:STANDARD",
      "END:VTIMEZONE",
      "BEGIN:VEVENT",
      "UID:zoned",
      "SUMMARY:Zoned",
      "DTSTART;TZID=Hostile Zone:20260330T100000",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n");
    const { instances, warnings } = expand(text);
    expect(warnings).toEqual([
      'ignored VTIMEZONE "Hostile Zone": its observances recur more often than yearly',
      'unknown time zone "Hostile Zone"; read as Europe/London',
    ]);
    expect(instances.map((instance) => instance.startsAt.toISOString())).toEqual([
      "2026-03-30T09:00:00.000Z",
    ]);
  });

  it("past the calendar's occurrence allowance, single events are dropped and counted in one warning", () => {
    const singles = Array.from({ length: 5 }, (_, index) => [
      `UID:single-${index}`,
      `SUMMARY:Single ${index}`,
      `DTSTART:2026033${index % 2}T0${index}0000Z`,
    ]);
    const { instances, warnings } = expand(calendar(...singles), {
      limits: { ...DEFAULT_RECURRENCE_LIMITS, instancesPerCalendar: 3 },
    });
    expect(instances).toHaveLength(3);
    expect(warnings).toEqual([
      "the calendar's recurrence budget ran out (its 3 occurrences are used up); 2 single events dropped",
    ]);
  });

  it("a single-event calendar is not held to series limits, and warns about nothing", () => {
    const { instances, warnings } = expand(calendar(LUNCH, WEEKLY_MEETING));
    expect(warnings).toEqual([]);
    expect(instances.map((instance) => instance.title)).toContain("Lunch");
  });
});
