import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  addCalendar,
  dropCalendarBody,
  getCalendar,
  getCalendarBody,
} from "../../../db/queries/calendars.ts";
import { createEvent, listEvents } from "../../../db/queries/events.ts";
import type { User } from "../../../db/schema/index.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { startCalendarSync } from "../../../src/sources/calendar/calendar-sync-loop.ts";
import { syncAllCalendars, syncCalendar } from "../../../src/sources/calendar/sync-calendar.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import {
  LOOPBACK_SOURCES,
  type ScriptedResponse,
  type StaticHttpServer,
  startStaticHttpServer,
} from "../../servers/static-http-server.ts";

const GOOGLE = readFileSync(
  fileURLToPath(new URL("../../fixtures/ics/google-team-london.ics", import.meta.url)),
  "utf8",
);
const MONDAY = "2026-03-30T12:00:00Z";

function ics(...events: string[][]): string {
  const body = events.flatMap((lines) => ["BEGIN:VEVENT", ...lines, "END:VEVENT"]);
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", ...body, "END:VCALENDAR", ""].join("\r\n");
}

describeEachDatabase("calendar sync over HTTP", (getDb) => {
  let server: StaticHttpServer;
  beforeAll(async () => {
    server = await startStaticHttpServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function subscribe(path: string): Promise<{ user: User; calendarId: number }> {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "Europe/London" });
    const calendar = await addCalendar(db, { userId: user.id, source: `${server.url}${path}` });
    return { user, calendarId: calendar.id };
  }

  const titlesToday = async (user: User, now = new Date(MONDAY)) =>
    (await listEvents(getDb(), user, { range: "today", now })).map((event) => event.title);

  it("stores events on 200, revalidates with the ETag, keeps them on 304", async () => {
    const db = getDb();
    server.route("/etag.ics", { body: GOOGLE, contentType: "text/calendar", etag: '"v1"' });
    const { user, calendarId } = await subscribe("/etag.ics");
    const clock = fixedClock(MONDAY);

    const first = await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    expect(first).toMatchObject({ status: "updated", warnings: [] });
    expect(await titlesToday(user)).toEqual(["Conference", "Team sync"]);
    const afterFirst = await getCalendar(db, calendarId);
    expect(afterFirst).toMatchObject({
      etag: '"v1"',
      lastError: null,
      name: "Team (London)",
      eventCount: first.eventCount,
    });

    clock.advance(15 * 60_000);
    const second = await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    expect(second.status).toBe("not-modified");
    expect(server.requestsTo("/etag.ics")[1]?.headers["if-none-match"]).toBe('"v1"');
    expect(await titlesToday(user)).toEqual(["Conference", "Team sync"]);
    expect((await getCalendar(db, calendarId))?.lastSyncAt?.toISOString()).toBe(clock.now().toISOString());

    // However long after the last success: the stored body answers the 304.
    clock.advance(7 * 3_600_000);
    expect((await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES })).status).toBe(
      "not-modified",
    );
    expect(server.requestsTo("/etag.ics")[2]?.headers["if-none-match"]).toBe('"v1"');
  });

  it("re-expands the stored body on a 304 a day later, so the window moves with the clock", async () => {
    const db = getDb();
    const daily = ics(
      [
        "UID:standup",
        "SUMMARY:Standup",
        "DTSTART:20260301T090000Z",
        "DTEND:20260301T091500Z",
        "RRULE:FREQ=DAILY",
      ],
      ["UID:nostart", "SUMMARY:No start"],
    );
    server.route("/daily.ics", { body: daily, contentType: "text/calendar", etag: '"d1"' });
    const { user, calendarId } = await subscribe("/daily.ics");
    const clock = fixedClock(MONDAY);
    // Two weeks and a day ahead: just outside the window expanded on Monday.
    const edge = new Date("2026-04-14T12:00:00Z");

    const first = await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    expect(first.status).toBe("updated");
    expect(first.warnings.some((warning) => warning.includes('"No start"'))).toBe(true);
    expect(await titlesToday(user, edge)).toEqual([]);
    const stored = await getCalendar(db, calendarId);
    expect(stored?.hasBody).toBe(true);
    expect(await getCalendarBody(db, calendarId)).toBe(daily);
    expect(stored?.lastWarnings).toEqual(first.warnings);

    clock.advance(24 * 3_600_000);
    const later = await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    expect(later).toMatchObject({ status: "not-modified", eventCount: first.eventCount });
    expect(later.warnings).toEqual(first.warnings);
    expect(server.requestsTo("/daily.ics")[1]?.headers["if-none-match"]).toBe('"d1"');
    expect(await titlesToday(user, edge)).toEqual(["Standup"]);
    // The day that slid out of the window is kept as a past occurrence, not duplicated.
    expect(await titlesToday(user, new Date(MONDAY))).toEqual(["Standup"]);
    const after = await getCalendar(db, calendarId);
    expect(after?.lastSuccessAt?.toISOString()).toBe(clock.now().toISOString());
    expect(after?.lastWarnings).toEqual(first.warnings);
    expect(after?.etag).toBe('"d1"');
  });

  it("stores the warnings of the last sync and clears them when the calendar is fixed", async () => {
    const db = getDb();
    const good = ["UID:fine", "SUMMARY:Fine", "DTSTART:20260330T150000Z", "DTEND:20260330T160000Z"];
    server.route("/warn.ics", [
      { body: ics(good, ["UID:nostart", "SUMMARY:No start"]) },
      { body: ics(good) },
    ]);
    const { calendarId } = await subscribe("/warn.ics");
    const clock = fixedClock(MONDAY);
    await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    const warned = (await getCalendar(db, calendarId))?.lastWarnings ?? [];
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('"No start": it has no DTSTART');
    await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    expect((await getCalendar(db, calendarId))?.lastWarnings).toEqual([]);
  });

  it("sends no conditional headers without a stored body, and keeps no body for a local file", async () => {
    const db = getDb();
    server.route("/nobody.ics", { body: GOOGLE, etag: '"n1"' });
    const { calendarId } = await subscribe("/nobody.ics");
    const clock = fixedClock(MONDAY);
    await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    // As a calendar synced before bodies were stored would be.
    await dropCalendarBody(db, calendarId);
    expect((await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES })).status).toBe(
      "updated",
    );
    expect(server.requestsTo("/nobody.ics")[1]?.headers["if-none-match"]).toBeUndefined();
    expect((await getCalendar(db, calendarId))?.hasBody).toBe(true);

    const user = await createTestUser(db, { timeZone: "Europe/London" });
    const file = await addCalendar(db, { userId: user.id, source: "/calendars/home.ics" });
    const synced = await syncCalendar(db, file.id, {
      fetch,
      clock,
      network: LOOPBACK_SOURCES,
      readFile: async () => GOOGLE,
    });
    expect(synced.status).toBe("updated");
    expect(await getCalendarBody(db, file.id)).toBeNull();
  });

  it("does not store a body larger than the fetch limit", async () => {
    const db = getDb();
    server.route("/big.ics", { body: GOOGLE, etag: '"b1"' });
    const { calendarId } = await subscribe("/big.ics");
    const clock = fixedClock(MONDAY);
    const maxBytes = Buffer.byteLength(GOOGLE, "utf8");
    expect(
      (await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES, maxBytes })).status,
    ).toBe("updated");
    expect(await getCalendarBody(db, calendarId)).toBe(GOOGLE);
    server.route("/big.ics", { body: `${GOOGLE}\r\n`, etag: '"b2"' });
    const failed = await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES, maxBytes });
    expect(failed.status).toBe("failed");
    expect(await getCalendarBody(db, calendarId)).toBe(GOOGLE);
  });

  it("honours Last-Modified when there is no ETag", async () => {
    const db = getDb();
    const lastModified = "Sun, 01 Mar 2026 10:00:00 GMT";
    server.route("/lm.ics", { body: GOOGLE, lastModified });
    const { calendarId } = await subscribe("/lm.ics");
    const clock = fixedClock(MONDAY);
    await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    expect((await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES })).status).toBe(
      "not-modified",
    );
    expect(server.requestsTo("/lm.ics")[1]?.headers["if-modified-since"]).toBe(lastModified);
  });

  it("keeps the last good events and records the error on 500, timeout and a malformed body", async () => {
    const db = getDb();
    const failures: [string, ScriptedResponse, RegExp][] = [
      ["/500.ics", { status: 500, body: "oops" }, /HTTP 500/],
      ["/slow.ics", { hang: true }, /no complete response within 300 ms/],
      ["/html.ics", { body: "<!doctype html><title>Sign in</title>" }, /not an iCalendar file/],
      ["/cut.ics", { body: GOOGLE.slice(0, 2000) }, /truncated/],
    ];
    for (const [path, failure, error] of failures) {
      server.route(path, [{ body: GOOGLE }, failure]);
      const { user, calendarId } = await subscribe(path);
      const clock = fixedClock(MONDAY);
      expect(
        (await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES, timeoutMs: 300 }))
          .status,
      ).toBe("updated");
      clock.advance(60_000);
      const failed = await syncCalendar(db, calendarId, {
        fetch,
        clock,
        network: LOOPBACK_SOURCES,
        timeoutMs: 300,
      });
      expect(failed.status, path).toBe("failed");
      expect(failed.error, path).toMatch(error);
      expect(await titlesToday(user), path).toEqual(["Conference", "Team sync"]);
      const calendar = await getCalendar(db, calendarId);
      expect(calendar?.lastError, path).toMatch(error);
      expect(calendar?.lastSyncAt?.toISOString()).toBe(clock.now().toISOString());
      expect(calendar?.lastSuccessAt?.toISOString()).toBe(MONDAY.replace("Z", ".000Z"));
    }
  });

  it("never touches chat-created events", async () => {
    const db = getDb();
    server.route("/chat.ics", [
      { body: GOOGLE },
      { body: GOOGLE.replace(/SUMMARY:Team sync\r\n/, "SUMMARY:Renamed\r\n") },
    ]);
    const { user, calendarId } = await subscribe("/chat.ics");
    await createEvent(db, user.id, {
      title: "Dentist",
      startsAt: new Date("2026-03-30T15:00:00Z"),
      endsAt: new Date("2026-03-30T15:30:00Z"),
      timeZone: user.timeZone,
    });
    const clock = fixedClock(MONDAY);
    await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    await syncCalendar(db, calendarId, { fetch, clock, network: LOOPBACK_SOURCES });
    expect(await titlesToday(user)).toEqual(["Conference", "Renamed", "Dentist"]);
  });

  it("syncAllCalendars reports every calendar, failing ones included, and never throws", async () => {
    const db = getDb();
    server.route("/good.ics", { body: GOOGLE });
    const user = await createTestUser(db, { timeZone: "Pacific/Auckland" });
    await addCalendar(db, { userId: user.id, source: `${server.url}/good.ics` });
    await addCalendar(db, { userId: user.id, source: `${server.url}/missing.ics` });
    await addCalendar(db, { userId: user.id, source: "/nonexistent/calendar.ics" });
    const progress: string[] = [];
    const results = await syncAllCalendars(db, {
      fetch,
      network: LOOPBACK_SOURCES,
      clock: fixedClock(MONDAY),
      userName: user.name,
      onProgress: ({ index, total, result }) => progress.push(`${index + 1}/${total} ${result.status}`),
    });
    expect(progress).toEqual(["1/3 updated", "2/3 failed", "3/3 failed"]);
    expect(results[1]?.error).toMatch(/HTTP 404/);
    expect(results[2]?.error).toMatch(/cannot read \/nonexistent\/calendar.ics: ENOENT/);
  });

  it("the background loop syncs and stops cleanly", async () => {
    const db = getDb();
    server.route("/loop.ics", { body: GOOGLE });
    // The loop syncs every calendar in this database; the hanging one from above would only slow it down.
    server.route("/slow.ics", { body: GOOGLE });
    const { user, calendarId } = await subscribe("/loop.ics");
    const messages: string[] = [];
    const logger = {
      info: (_: object, message: string) => messages.push(message),
      warn: (_: object, message: string) => messages.push(message),
    };
    const loop = startCalendarSync({
      db,
      fetch,
      network: LOOPBACK_SOURCES,
      clock: fixedClock(MONDAY),
      intervalMs: 3_600_000,
      logger,
    });
    await loop.runNow();
    await loop.stop();
    expect((await getCalendar(db, calendarId))?.lastSuccessAt?.toISOString()).toBe(
      "2026-03-30T12:00:00.000Z",
    );
    expect(await titlesToday(user)).toEqual(["Conference", "Team sync"]);
    expect(messages).toContain("calendars synced");
  });
});
