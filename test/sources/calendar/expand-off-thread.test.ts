/** The expansion thread: same answers as in-process, and a backstop that stops a thread that hangs. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CalendarParseError } from "../../../src/sources/calendar/calendar-parse-error.ts";
import { defaultExpansionWindow, expandCalendar } from "../../../src/sources/calendar/expand-calendar.ts";
import {
  CalendarExpansionError,
  createCalendarExpander,
} from "../../../src/sources/calendar/expand-off-thread.ts";
import { fiftySecondlyBombs, stallingRules } from "./recurrence-bombs.ts";

const GOOGLE = readFileSync(
  fileURLToPath(new URL("../../fixtures/ics/google-team-london.ics", import.meta.url)),
  "utf8",
);
const OPTIONS = { userZone: "Europe/London", ...defaultExpansionWindow(new Date("2026-03-30T12:00:00Z")) };
/** Budgets so large they never stop anything: only the thread's deadline can. */
const NO_BUDGET = {
  instancesPerSeries: 1e9,
  instancesPerCalendar: 1e9,
  stepsPerSeries: 1e15,
  stepsPerCalendar: 1e15,
  timeMs: 1e9,
};

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe("expansion on a worker thread", () => {
  const expander = createCalendarExpander();
  afterAll(() => expander.close());

  it("returns what expandCalendar returns, Dates included", async () => {
    for (const text of [GOOGLE, fiftySecondlyBombs()]) {
      const threaded = await expander.expand(text, OPTIONS);
      expect(threaded).toEqual(expandCalendar(text, OPTIONS));
      expect(threaded.instances[0]?.startsAt).toBeInstanceOf(Date);
    }
  });

  it("passes a parse error through as a CalendarParseError", async () => {
    const error = await rejection(expander.expand("<html>gateway timeout</html>", OPTIONS));
    expect(error).toBeInstanceOf(CalendarParseError);
    expect(error.message).toBe('not an iCalendar file (starts with "<html>gateway timeout</html>")');
  });

  it("serves calendars one at a time when asked for several at once", async () => {
    const results = await Promise.all(
      [GOOGLE, fiftySecondlyBombs(), GOOGLE].map((text) => expander.expand(text, OPTIONS)),
    );
    expect(results.map((result) => result.instances.length)).toEqual([
      expandCalendar(GOOGLE, OPTIONS).instances.length,
      5_000,
      expandCalendar(GOOGLE, OPTIONS).instances.length,
    ]);
  });
});

describe("the backstop behind the budgets", () => {
  it("stops a thread stuck in one rule, names that rule, and starts a fresh thread for the next calendar", async () => {
    const expander = createCalendarExpander({ hardTimeoutMs: 1_500 });
    try {
      // With the budgets lifted, ical.js never returns from next() on a rule that matches nothing.
      const error = await rejection(expander.expand(stallingRules(), { ...OPTIONS, limits: NO_BUDGET }));
      expect(error).toBeInstanceOf(CalendarExpansionError);
      expect(error.message).toBe(
        'calendar expansion was stopped after 1.5 s while expanding event "Every second, forever (01)" (RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30)',
      );
      const next = await expander.expand(GOOGLE, OPTIONS);
      expect(next.instances.length).toBeGreaterThan(0);
    } finally {
      await expander.close();
    }
  });

  it("a thread that runs out of heap fails its calendar with a clear error instead of taking the process down", async () => {
    const expander = createCalendarExpander({ maxHeapMb: 2 });
    try {
      const error = await rejection(expander.expand(fiftySecondlyBombs(), { ...OPTIONS, limits: NO_BUDGET }));
      expect(error).toBeInstanceOf(CalendarExpansionError);
      expect(error.message).toMatch(/^calendar expansion ran out of memory \(limit 2 MB\)/);
    } finally {
      await expander.close();
    }
  });
});
