/**
 * Hostile calendars built in code: recurrence rules that expand without end. Sizes are part of the
 * contract (issue 17 measured "a 300-byte FREQ=SECONDLY rule" and "an 8 KB file with fifty such rules"),
 * so the tests assert them.
 */

const CRLF = "\r\n";

function calendar(events: string[][]): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//hostile.example//recurrence bomb//EN",
    ...events.flat(),
    "END:VCALENDAR",
    "",
  ].join(CRLF);
}

function bombEvent(index: number, dtstart: string, rule: string, extra: string[] = []): string[] {
  const id = String(index).padStart(2, "0");
  return [
    "BEGIN:VEVENT",
    `UID:bomb-${id}@hostile.example`,
    ...extra,
    `DTSTART:${dtstart}`,
    "DURATION:PT1S",
    `SUMMARY:Every second, forever (${id})`,
    `RRULE:${rule}`,
    "END:VEVENT",
  ];
}

/** One FREQ=SECONDLY rule without UNTIL or COUNT, starting at `dtstart` (UTC, basic format). */
export function secondlyBomb(dtstart = "20260329T120000Z"): string {
  return calendar([
    bombEvent(1, dtstart, "FREQ=SECONDLY", ["DTSTAMP:20260101T000000Z", "LOCATION:Everywhere"]),
  ]);
}

/** Fifty such rules, each starting a few minutes after the previous one. */
export function fiftySecondlyBombs(dtstart = "20260329T120000Z"): string {
  const base = Date.parse(
    dtstart.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"),
  );
  const events = Array.from({ length: 50 }, (_, index) => {
    const start = new Date(base + index * 7 * 60_000)
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d{3}/, "");
    return bombEvent(index + 1, start, "FREQ=SECONDLY;WKST=MO");
  });
  return calendar(events);
}

/**
 * Rules that defeat a per-occurrence guard: one that can never match (a single ical.js `next()` call
 * never returns), one that must step through a decade of seconds to reach the window, and an interval so
 * large that one step is a billion loop turns.
 */
export function stallingRules(dtstart = "20260329T120000Z"): string {
  return calendar([
    bombEvent(1, dtstart, "FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30"),
    bombEvent(2, "20160101T000000Z", "FREQ=SECONDLY"),
    bombEvent(3, dtstart, "FREQ=DAILY;INTERVAL=2000000000"),
    bombEvent(4, dtstart, "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30;BYHOUR=1"),
  ]);
}
