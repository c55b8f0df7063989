/**
 * A source is fetched by one process at a time: two processes' worth of syncs (each with its own
 * connection pool and lease owner) on one PostgreSQL database, against a static HTTP server and the
 * Open-Meteo test server that count requests. Background syncs that find a source being fetched skip it;
 * a refresh before a briefing waits for the other process and uses what it stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenDatabase, openDatabase } from "../../db/client.ts";
import { addCalendar } from "../../db/queries/calendars.ts";
import { addFeed } from "../../db/queries/feeds.ts";
import { createLeases } from "../../db/stores/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { syncAllCalendars } from "../../src/sources/calendar/sync-calendar.ts";
import { syncAllFeeds } from "../../src/sources/feeds/sync-feed.ts";
import { createSourceRefresher } from "../../src/sources/refresh-sources.ts";
import { createSourceLeases, type SourceLeases, unsharedSources } from "../../src/sources/source-lease.ts";
import { refreshAllWeather } from "../../src/sources/weather/get-weather.ts";
import { createTestDatabase, createTestUser, type TestDatabase } from "../helpers/database.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../servers/open-meteo-server.ts";
import {
  LOOPBACK_SOURCES,
  type StaticHttpServer,
  startStaticHttpServer,
} from "../servers/static-http-server.ts";

const SEVEN = "2025-06-02T06:00:00Z";
const INTERVALS = { calendar: 15, feeds: 30, weather: 30 };
const ICS = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//test//EN",
  "BEGIN:VEVENT",
  "UID:standup@test",
  "DTSTAMP:20250601T000000Z",
  "DTSTART:20250602T090000Z",
  "DTEND:20250602T091500Z",
  "SUMMARY:Standup",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");
const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>
<item><guid>a</guid><title>First story</title></item></channel></rss>`;

interface Replica {
  database: OpenDatabase;
  leases: SourceLeases;
}

describe("one fetch per source across processes on PostgreSQL", { timeout: 120_000 }, () => {
  let testDb: TestDatabase;
  let hosts: StaticHttpServer;
  let meteo: OpenMeteoServer;
  let replicas: [Replica, Replica];
  const clock = fixedClock(SEVEN);
  let place = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase("postgres");
    if (!testDb.url) throw new Error("test bug: PostgreSQL database without a URL");
    const second = await openDatabase({ databaseUrl: testDb.url, dataDir: "" });
    const replica = (database: OpenDatabase, owner: string): Replica => ({
      database,
      leases: createSourceLeases(createLeases(database.db), { owner, clock }),
    });
    replicas = [replica(testDb.open, "bot-a"), replica(second, "bot-b")];
    hosts = await startStaticHttpServer();
    meteo = await startOpenMeteoServer({ firstDay: "2025-06-02" });
  });
  afterAll(async () => {
    await replicas?.[1].database.close();
    await testDb?.dispose();
    await hosts?.close();
    await meteo?.close();
  });

  /** A user at a place of their own, with a slow calendar and a slow feed (so two syncs overlap). */
  async function subscribedUser(delayMs: number) {
    const db = testDb.open.db;
    place += 1;
    const user = await createTestUser(db, {
      timeZone: "Europe/London",
      locationName: `Place ${place}`,
      latitude: 40 + place / 10,
      longitude: 2,
    });
    const calendarPath = `/cal-${user.id}.ics`;
    const feedPath = `/feed-${user.id}.xml`;
    hosts.route(calendarPath, { body: ICS, contentType: "text/calendar", delayMs });
    hosts.route(feedPath, { body: RSS, contentType: "application/rss+xml", delayMs });
    await addCalendar(db, { userId: user.id, source: `${hosts.url}${calendarPath}` });
    await addFeed(db, { userId: user.id, url: `${hosts.url}${feedPath}` });
    return { user, calendarPath, feedPath };
  }

  /** One process's calendar, feed and weather loops, all at once; calendars and feeds of `userName` only. */
  const backgroundSyncs = (replica: Replica, leases: SourceLeases = replica.leases, userName?: string) => {
    const deps = { fetch, clock, network: LOOPBACK_SOURCES, leases };
    const only = userName === undefined ? {} : { userName };
    return Promise.all([
      syncAllCalendars(replica.database.db, { ...deps, ...only }),
      syncAllFeeds(replica.database.db, { ...deps, ...only }),
      refreshAllWeather(replica.database.db, { ...deps, forecastUrl: meteo.url }),
    ]);
  };

  // One user: a process's calendars go one after another, so with several a process that finished one could
  // start the next just as the other finished it — one after the other, not at once, which is allowed.
  it("two processes' background syncs at the same moment fetch the calendar, the feed and the place once", async () => {
    const subscribed = [await subscribedUser(1_500)];
    const forecastsBefore = meteo.forecastRequests().length;

    const [[calendarsA, feedsA, weatherA], [calendarsB, feedsB, weatherB]] = await Promise.all([
      backgroundSyncs(replicas[0]),
      backgroundSyncs(replicas[1]),
    ]);

    for (const { calendarPath, feedPath } of subscribed) {
      expect(hosts.requestsTo(calendarPath)).toHaveLength(1);
      expect(hosts.requestsTo(feedPath)).toHaveLength(1);
    }
    expect(meteo.forecastRequests().length - forecastsBefore).toBe(1);
    // Between them the two processes report each source once: what one skipped, the other did.
    expect([...calendarsA, ...calendarsB].map((result) => result.status)).toEqual(["updated"]);
    expect([...feedsA, ...feedsB].map((result) => result.status)).toEqual(["ok"]);
    expect(weatherA.refreshed + weatherB.refreshed).toBe(1);
    expect(weatherA.skipped + weatherB.skipped).toBe(1);
  });

  it("without the leases the same two syncs fetch every source twice (the control)", async () => {
    clock.advance(60 * 60_000);
    const { user, calendarPath, feedPath } = await subscribedUser(1_500);
    await Promise.all(replicas.map((replica) => backgroundSyncs(replica, unsharedSources, user.name)));
    expect(hosts.requestsTo(calendarPath)).toHaveLength(2);
    expect(hosts.requestsTo(feedPath)).toHaveLength(2);
  });

  /** The refresh-before-briefing step of one replica, taking that replica's source leases. */
  const refresherOf = (replica: Replica) =>
    createSourceRefresher({
      db: replica.database.db,
      fetch,
      clock,
      forecastUrl: meteo.url,
      maxAgeMinutes: INTERVALS,
      network: LOOPBACK_SOURCES,
      sourceLeases: replica.leases,
    });

  it("a refresh before a briefing waits for the other process's fetch and uses what it stored", async () => {
    clock.advance(60 * 60_000);
    const { user, calendarPath, feedPath } = await subscribedUser(1_500);
    const [background, briefing] = replicas;
    const refresh = refresherOf(briefing);
    // The other process's loop is under way (its first requests are out) when the briefing's refresh starts.
    const syncing = backgroundSyncs(background, background.leases, user.name);
    await waitUntil(() => hosts.requestsTo(calendarPath).length + hosts.requestsTo(feedPath).length > 0);
    const results = await refresh(user, new Date(clock.now().getTime() + 20_000));
    await syncing;

    expect(results).toEqual([
      { source: "weather", status: expect.stringMatching(/^(refreshed|fresh)$/) },
      { source: "calendar", status: "refreshed" },
      { source: "feeds", status: "refreshed" },
    ]);
    expect(hosts.requestsTo(calendarPath)).toHaveLength(1);
    expect(hosts.requestsTo(feedPath)).toHaveLength(1);
  });

  it("a refresh whose deadline comes before the other process is done says it is late, and fetches nothing itself", async () => {
    clock.advance(60 * 60_000);
    const { user, calendarPath } = await subscribedUser(3_000);
    const [background, briefing] = replicas;
    const refresh = refresherOf(briefing);
    const calendars = syncAllCalendars(background.database.db, {
      fetch,
      clock,
      network: LOOPBACK_SOURCES,
      leases: background.leases,
      userName: user.name,
    });
    await waitUntil(() => hosts.requestsTo(calendarPath).length > 0);
    const results = await refresh(user, new Date(clock.now().getTime() + 300));
    const calendar = results.find((result) => result.source === "calendar");
    expect(calendar?.status).toBe("failed");
    // Late like any source past the deadline; what tells it waited rather than fetched is the one request.
    expect(calendar?.detail).toContain("no answer within 0.3 s");
    await calendars;
    expect(hosts.requestsTo(calendarPath)).toHaveLength(1);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for a condition");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
