/**
 * Hostile calendars through the real sync (HTTP server → worker thread → database): one bad event among
 * good ones, input that is not a calendar at all, recurrence bombs, and the bot's HTTP server answering
 * while a bomb expands.
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addCalendar, getCalendar } from "../../../db/queries/calendars.ts";
import { listEvents } from "../../../db/queries/events.ts";
import type { User } from "../../../db/schema/index.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { createHealthCheck } from "../../../src/server/health.ts";
import { createHttpServer } from "../../../src/server/http-server.ts";
import { createCalendarExpander } from "../../../src/sources/calendar/expand-off-thread.ts";
import { syncCalendar } from "../../../src/sources/calendar/sync-calendar.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import {
  LOOPBACK_SOURCES,
  type ScriptedResponse,
  type StaticHttpServer,
  startStaticHttpServer,
} from "../../servers/static-http-server.ts";
import { fiftySecondlyBombs, secondlyBomb, stallingRules } from "./recurrence-bombs.ts";

const MONDAY = "2026-03-30T12:00:00Z";

function ics(...events: string[][]): string {
  const body = events.flatMap((lines) => ["BEGIN:VEVENT", ...lines, "END:VEVENT"]);
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...body, "END:VCALENDAR", ""].join("\r\n");
}

const GOOD = [
  ["UID:good-1", "SUMMARY:Standup", "DTSTART:20260330T090000Z", "DTEND:20260330T091500Z"],
  ["UID:good-2", "SUMMARY:Review", "DTSTART:20260330T150000Z", "DTEND:20260330T160000Z"],
];

describeEachDatabase("hostile calendars", (getDb) => {
  let server: StaticHttpServer;
  let route = 0;
  beforeAll(async () => {
    server = await startStaticHttpServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const clock = fixedClock(MONDAY);
  const deps = { fetch, clock, network: LOOPBACK_SOURCES };

  async function subscribe(script: ScriptedResponse | ScriptedResponse[]) {
    route += 1;
    const path = `/hostile-${route}.ics`;
    server.route(path, script);
    const user = await createTestUser(getDb(), { timeZone: "Europe/London" });
    const calendar = await addCalendar(getDb(), { userId: user.id, source: `${server.url}${path}` });
    return { user, calendarId: calendar.id };
  }

  const titlesToday = async (user: User) =>
    (await listEvents(getDb(), user, { range: "today", now: new Date(MONDAY) })).map((event) => event.title);

  it.each([
    [
      "a NUL in its SUMMARY",
      ["UID:nul", "SUMMARY:Pay\u0000roll", "DTSTART:20260330T110000Z"],
      "Payroll",
      /^event "Payroll": removed control characters from its text$/,
    ],
    [
      "an invalid date",
      ["UID:date", "SUMMARY:Never", "DTSTART:20261345T250000Z"],
      undefined,
      /^skipped event "Never": its DTSTART "2026-13-45T25:00:00Z" is not a date$/,
    ],
    [
      "a TZID full of control characters",
      ["UID:tz", "SUMMARY:Zoned", "DTSTART;TZID=\u0001\u0002Mars/Olympus:20260330T110000"],
      "Zoned",
      /^unknown time zone "Mars\/Olympus"; read as Europe\/London$/,
    ],
    [
      "an absurd DURATION",
      ["UID:dur", "SUMMARY:Forever", "DTSTART:20260330T110000Z", "DURATION:P99999999W"],
      undefined,
      /^skipped event "Forever": it lasts longer than five years/,
    ],
    [
      "a DTEND in the year 9999",
      ["UID:end", "SUMMARY:Until the end", "DTSTART:20260330T110000Z", "DTEND:99991231T235959Z"],
      undefined,
      /^skipped event "Until the end": it lasts longer than five years/,
    ],
    // Too long for the unique index: hashed, imported, nothing to warn about.
    [
      "a 10 KB UID",
      [`UID:${"u".repeat(10_000)}`, "SUMMARY:Long uid", "DTSTART:20260330T110000Z"],
      "Long uid",
      undefined,
    ],
  ] as const)("one event with %s: the good events import beside it", async (_, bad, kept, warning) => {
    const db = getDb();
    const { user, calendarId } = await subscribe({
      body: ics(GOOD[0]!, [...bad], GOOD[1]!),
      contentType: "text/calendar",
    });

    const result = await syncCalendar(db, calendarId, deps);

    expect(result.error).toBeUndefined();
    expect(result.status).toBe("updated");
    expect(await titlesToday(user)).toEqual(kept ? ["Standup", kept, "Review"] : ["Standup", "Review"]);
    if (warning) expect(result.warnings).toEqual([expect.stringMatching(warning)]);
    else expect(result.warnings).toEqual([]);
    const stored = await getCalendar(db, calendarId);
    expect(stored?.lastError).toBeNull();
    expect(stored?.lastWarnings).toEqual(result.warnings);
  });

  const garbage = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919 + 13) % 256));
  const utf16 = Buffer.from(`\uFEFF${ics(GOOD[0]!)}`, "utf16le").subarray(2);
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), garbage]);

  it.each([
    ["binary garbage", garbage, /binary data, not an iCalendar file/],
    [
      "binary garbage between BEGIN:VCALENDAR and END:VCALENDAR",
      Buffer.concat([Buffer.from("BEGIN:VCALENDAR\r\n"), garbage, Buffer.from("\r\nEND:VCALENDAR\r\n")]),
      /binary data, not an iCalendar file/,
    ],
    ["a PNG image", png, /binary data, not an iCalendar file/],
    [
      "a gzip-compressed calendar without Content-Encoding",
      gzipSync(ics(GOOD[0]!)),
      /binary data|not an iCalendar/,
    ],
    ["UTF-16 without a byte-order mark", utf16, /binary data, not an iCalendar file/],
    ["an HTML error page", Buffer.from("<!doctype html><title>Sign in</title>"), /not an iCalendar file/],
    ["JSON", Buffer.from('{"events":[]}'), /not an iCalendar file/],
  ])("%s is an error recorded on the calendar, and the last good events stay", async (_, body, message) => {
    const db = getDb();
    const { user, calendarId } = await subscribe([
      { body: ics(...GOOD), contentType: "text/calendar" },
      { body: new Uint8Array(body), contentType: "text/calendar" },
    ]);
    expect((await syncCalendar(db, calendarId, deps)).status).toBe("updated");

    const result = await syncCalendar(db, calendarId, deps);

    expect(result.status).toBe("failed");
    expect(result.error).toMatch(message);
    const stored = await getCalendar(db, calendarId);
    expect(stored?.lastError).toMatch(message);
    expect(stored?.lastError).not.toContain("\u0000");
    expect(await titlesToday(user)).toEqual(["Standup", "Review"]);
  });

  it("a 293-byte FREQ=SECONDLY bomb stores 1,000 occurrences (was 100,000) and records which rule was cut", async () => {
    const db = getDb();
    const { calendarId } = await subscribe({ body: secondlyBomb(), contentType: "text/calendar" });
    const result = await syncCalendar(db, calendarId, deps);
    expect(result).toMatchObject({ status: "updated", eventCount: 1_000 });
    const stored = await getCalendar(db, calendarId);
    expect(stored).toMatchObject({ eventCount: 1_000, lastError: null });
    expect(stored?.lastWarnings).toEqual([
      'event "Every second, forever (01)" (RRULE:FREQ=SECONDLY): stopped after 1,000 occurrences in the sync window',
    ]);
  });

  it("/healthz answers while fifty bombs and four stalling rules expand", async () => {
    const db = getDb();
    const hostile = fiftySecondlyBombs().replace(
      "END:VCALENDAR",
      stallingRules()
        .replace(/^[\s\S]*?(?=BEGIN:VEVENT)/, "")
        .replace(/UID:bomb-/g, "UID:stall-"),
    );
    const { calendarId } = await subscribe({ body: hostile, contentType: "text/calendar" });
    const http = createHttpServer({
      health: createHealthCheck({
        clock,
        pingDatabase: async () => {},
        scheduler: { lastTickAt: clock.now() },
      }),
      metrics: async () => ({ contentType: "text/plain", body: "" }),
    });
    const port = await http.listen(0, "127.0.0.1");
    const expander = createCalendarExpander();
    try {
      let expanding: () => void = () => {};
      const started = new Promise<void>((resolve) => {
        expanding = resolve;
      });
      // Observes the real expander, so the health check is sent while the thread is at work.
      const observed = {
        expand: (...args: Parameters<typeof expander.expand>) => {
          expanding();
          return expander.expand(...args);
        },
        close: () => expander.close(),
      };
      let syncDone = false;
      const sync = syncCalendar(db, calendarId, { ...deps, expander: observed }).finally(() => {
        syncDone = true;
      });
      await started;

      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      const answeredDuringSync = !syncDone;

      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true });
      expect(answeredDuringSync).toBe(true);
      const result = await sync;
      expect(result).toMatchObject({ status: "updated", eventCount: 5_000 });
      expect(result.warnings.join("\n")).toContain("the calendar's recurrence budget ran out");
    } finally {
      await expander.close();
      await http.close();
    }
  });
});
