/**
 * `Sources.refresh` at the edge (src/sources/refresh-sources.ts), against the Open-Meteo test server and a
 * static HTTP server playing a calendar host and a feed host: only what is older than its interval is
 * fetched, all at once, under one deadline; what fails or is late keeps its last good data, and the
 * receipts the tools then write say how old it is.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { addCalendar, getCalendar, listCalendars } from "../../db/queries/calendars.ts";
import { listEvents } from "../../db/queries/events.ts";
import { addFeed, listFeedItems } from "../../db/queries/feeds.ts";
import { readCachedForecast, saveCachedForecast } from "../../db/queries/weather.ts";
import type { User } from "../../db/schema/index.ts";
import { createDbPorts } from "../../db/stores/index.ts";
import { fixedClock } from "../../src/core/clock.ts";
import type { Sources } from "../../src/core/ports.ts";
import { briefingToolSet } from "../../src/core/tools/allowlists.ts";
import { createDefaultToolRegistry } from "../../src/core/tools/catalog.ts";
import { dispatchToolCall } from "../../src/core/tools/dispatch.ts";
import { createSourceRefresher } from "../../src/sources/refresh-sources.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { type OpenMeteoServer, startOpenMeteoServer } from "../servers/open-meteo-server.ts";
import {
  LOOPBACK_SOURCES,
  type StaticHttpServer,
  startStaticHttpServer,
} from "../servers/static-http-server.ts";

/** 07:00 in London on Monday 2 June 2025. */
const SEVEN = "2025-06-02T06:00:00Z";
const INTERVALS = { calendar: 15, feeds: 30, weather: 30 };

const ICS = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//test//EN",
  "X-WR-CALNAME:Work",
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

const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Daily News</title>
<item><guid>a</guid><title>First story</title><pubDate>Mon, 02 Jun 2025 05:00:00 +0000</pubDate></item>
</channel></rss>`;

/** fetch, counting requests. */
function countingFetch() {
  const counts = { started: 0 };
  const wrapped: typeof fetch = (input, init) => {
    counts.started += 1;
    return fetch(input, init);
  };
  return { fetch: wrapped, counts };
}

/**
 * fetch that holds every request until `size` have started (or `fallbackMs` passed): with a sequential
 * caller the barrier is never reached, so "reached" proves the requests were out at the same time.
 */
function barrierFetch(size: number, fallbackMs = 5_000) {
  let started = 0;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const state = { reached: false };
  const wrapped: typeof fetch = async (input, init) => {
    started += 1;
    if (started === size) {
      state.reached = true;
      open();
    }
    await Promise.race([opened, new Promise((resolve) => setTimeout(resolve, fallbackMs))]);
    return fetch(input, init);
  };
  return { fetch: wrapped, state };
}

/** fetch that holds forecast requests until `release()`, counting them. */
function heldForecasts() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const counts = { forecasts: 0 };
  const wrapped: typeof fetch = async (input, init) => {
    if (String(input).includes("/v1/forecast")) {
      counts.forecasts += 1;
      await released;
    }
    return fetch(input, init);
  };
  return { fetch: wrapped, counts, release };
}

describeEachDatabase("refreshing a user's sources before a briefing", (getDb) => {
  let meteo: OpenMeteoServer;
  let hosts: StaticHttpServer;
  let place = 0;
  beforeAll(async () => {
    meteo = await startOpenMeteoServer({ firstDay: "2025-06-02" });
    hosts = await startStaticHttpServer();
  });
  afterAll(async () => {
    await meteo?.close();
    await hosts?.close();
  });

  /** A London user at a place of their own (forecasts are cached per place), with a calendar and a feed. */
  async function subscribedUser(
    db: Database,
  ): Promise<{ user: User; calendarPath: string; feedPath: string }> {
    place += 1;
    const user = await createTestUser(db, {
      timeZone: "Europe/London",
      locationName: `Place ${place}`,
      latitude: 50 + place / 10,
      longitude: -1,
    });
    const calendarPath = `/cal-${user.id}.ics`;
    const feedPath = `/feed-${user.id}.xml`;
    hosts.route(calendarPath, { body: ICS, contentType: "text/calendar" });
    hosts.route(feedPath, { body: RSS, contentType: "application/rss+xml" });
    await addCalendar(db, { userId: user.id, source: `${hosts.url}${calendarPath}` });
    await addFeed(db, { userId: user.id, url: `${hosts.url}${feedPath}` });
    return { user, calendarPath, feedPath };
  }

  function refresherFor(db: Database, clock = fixedClock(SEVEN), fetchFunction: typeof fetch = fetch) {
    return {
      clock,
      refresh: createSourceRefresher({
        db,
        fetch: fetchFunction,
        clock,
        forecastUrl: meteo.url,
        maxAgeMinutes: INTERVALS,
        network: LOOPBACK_SOURCES,
      }) as NonNullable<Sources["refresh"]>,
    };
  }

  const inSeconds = (clock: { now(): Date }, seconds: number) =>
    new Date(clock.now().getTime() + seconds * 1000);

  it("fetches every stale source at once, names them first, and leaves nothing stale behind", async () => {
    const db = getDb();
    const { user, calendarPath, feedPath } = await subscribedUser(db);
    const barrier = barrierFetch(3);
    const { refresh, clock } = refresherFor(db, fixedClock(SEVEN), barrier.fetch);
    const started: string[][] = [];
    const forecastsBefore = meteo.forecastRequests().length;

    const results = await refresh(user, inSeconds(clock, 10), (kinds) => started.push([...kinds]));

    expect(started).toEqual([["weather", "calendar", "feeds"]]);
    expect(results).toEqual([
      { source: "weather", status: "refreshed" },
      { source: "calendar", status: "refreshed" },
      { source: "feeds", status: "refreshed" },
    ]);
    // Concurrently: all three requests were out before any of them was let through.
    expect(barrier.state.reached).toBe(true);
    expect(meteo.forecastRequests().length - forecastsBefore).toBe(1);
    expect(hosts.requestsTo(calendarPath)).toHaveLength(1);
    expect(hosts.requestsTo(feedPath)).toHaveLength(1);
    expect(
      (await listEvents(db, user, { range: "today", now: clock.now() })).map((event) => event.title),
    ).toEqual(["Standup"]);
    expect((await readCachedForecast(db, user.latitude ?? 0, user.longitude ?? 0))?.fetchedAt).toEqual(
      clock.now(),
    );
  });

  it("makes no network call when every source is younger than its interval", async () => {
    const db = getDb();
    const { user } = await subscribedUser(db);
    const { refresh, clock } = refresherFor(db);
    await refresh(user, inSeconds(clock, 10));

    clock.advance(10 * 60_000);
    const counting = countingFetch();
    const again = createSourceRefresher({
      db,
      fetch: counting.fetch,
      clock,
      forecastUrl: meteo.url,
      maxAgeMinutes: INTERVALS,
      network: LOOPBACK_SOURCES,
    });
    const started: unknown[] = [];
    const results = await again(user, inSeconds(clock, 10), (kinds) => started.push(kinds));
    expect(counting.counts.started).toBe(0);
    expect(started).toEqual([]);
    expect(results.map((result) => result.status)).toEqual(["fresh", "fresh", "fresh"]);

    // Past the calendar's 15 minutes, only the calendar is due.
    clock.advance(6 * 60_000);
    const partly = await again(user, inSeconds(clock, 10), (kinds) => started.push(kinds));
    expect(started).toEqual([["calendar"]]);
    expect(counting.counts.started).toBe(1);
    expect(partly.map((result) => result.status)).toEqual(["fresh", "refreshed", "fresh"]);
  });

  it("keeps a failing calendar's and feed's last good data, and the receipts say how old it is", async () => {
    const db = getDb();
    const { user, calendarPath, feedPath } = await subscribedUser(db);
    const { refresh, clock } = refresherFor(db);
    await refresh(user, inSeconds(clock, 10));

    // An hour later both hosts fail.
    clock.set("2025-06-02T07:00:00Z");
    hosts.route(calendarPath, { status: 500, body: "oops" });
    hosts.route(feedPath, { status: 503, body: "down" });
    const results = await refresh(user, inSeconds(clock, 10));

    const calendar = results.find((result) => result.source === "calendar");
    expect(calendar).toEqual({
      source: "calendar",
      status: "failed",
      detail: 'could not refresh "Work"; using what it showed as of 07:00',
    });
    // The error text (which can carry a secret calendar address) stays in the log, not in the detail.
    expect(calendar?.detail).not.toContain(hosts.url);
    expect(results.find((result) => result.source === "feeds")).toEqual({
      source: "feeds",
      status: "failed",
      detail: 'could not refresh "Daily News"; using what it showed as of 07:00',
    });
    const [subscription] = await listCalendars(db, user.id);
    expect((await getCalendar(db, subscription?.id ?? 0))?.lastError).toMatch(/500/);
    // The last good data is still there for the briefing.
    expect(
      (await listEvents(db, user, { range: "today", now: clock.now() })).map((event) => event.title),
    ).toEqual(["Standup"]);
    expect((await listFeedItems(db, user, { max: 5 })).map((item) => item.title)).toEqual(["First story"]);

    // And the briefing's receipts say so.
    const ports = createDbPorts(db);
    const tools = briefingToolSet(createDefaultToolRegistry());
    const context = { user, clock, records: ports.records, sources: ports.sources };
    const events = await dispatchToolCall(
      tools,
      { id: "c1", function: { name: "list_events", arguments: { range: "today" } } },
      context,
    );
    expect(events.result).toMatchObject({
      count: 1,
      freshness: 'Calendar "Work" could not be refreshed; what it shows is as of 07:00.',
    });
    const news = await dispatchToolCall(
      tools,
      { id: "c2", function: { name: "get_rss_items", arguments: { max: 5 } } },
      context,
    );
    expect(news.result).toMatchObject({
      count: 1,
      freshness: 'Feed "Daily News" could not be refreshed; what it shows is as of 07:00.',
    });
  });

  it("returns at the deadline with the last good data; the late fetch finishes on its own", async () => {
    const db = getDb();
    const { user, calendarPath } = await subscribedUser(db);
    const { refresh, clock } = refresherFor(db);
    await refresh(user, inSeconds(clock, 10));
    clock.set("2025-06-02T07:00:00Z");
    hosts.route(calendarPath, { hang: true });

    // Long enough for the weather and the feed to make it on a loaded machine; the calendar never answers.
    const results = await refresh(user, inSeconds(clock, 3));

    expect(results.find((result) => result.source === "calendar")).toEqual({
      source: "calendar",
      status: "failed",
      detail: 'could not refresh "Work" (no answer within 3 s); using what it showed as of 07:00',
    });
    // The weather and the feed were due too, and made it.
    expect(results.map((result) => result.status)).toEqual(["refreshed", "failed", "refreshed"]);
    expect(
      (await listEvents(db, user, { range: "today", now: clock.now() })).map((event) => event.title),
    ).toEqual(["Standup"]);
  });

  it("says how old the forecast is when Open-Meteo is down, or that none was ever fetched", async () => {
    const db = getDb();
    const { user } = await subscribedUser(db);
    const { refresh, clock } = refresherFor(db);
    meteo.failWith(503);
    try {
      const never = await refresh(user, inSeconds(clock, 10));
      expect(never[0]).toMatchObject({ source: "weather", status: "failed" });
      expect(never[0]?.detail).toMatch(
        /^could not fetch a forecast \(server answered HTTP 503.*\); none has ever been fetched$/,
      );

      await saveCachedForecast(
        db,
        user.latitude ?? 0,
        user.longitude ?? 0,
        { daily: { time: [] } },
        new Date("2025-06-02T05:12:00Z"),
      );
      clock.set("2025-06-02T07:00:00Z");
      const old = await refresh(user, inSeconds(clock, 10));
      expect(old[0]?.detail).toMatch(
        /^could not refresh \(server answered HTTP 503.*\); using the forecast as of 06:12$/,
      );
    } finally {
      meteo.recover();
    }
  });

  it("shares one fetch per place between briefings running at once", async () => {
    const db = getDb();
    const first = await subscribedUser(db);
    const neighbour = await createTestUser(db, {
      timeZone: "Europe/London",
      latitude: first.user.latitude,
      longitude: first.user.longitude,
      locationName: first.user.locationName,
    });
    // The forecast request is held past both deadlines, so the second briefing must find it in flight.
    const held = heldForecasts();
    const { refresh, clock } = refresherFor(db, fixedClock(SEVEN), held.fetch);
    try {
      const [mine, theirs] = await Promise.all([
        refresh(first.user, inSeconds(clock, 1)),
        refresh(neighbour, inSeconds(clock, 1)),
      ]);
      expect(held.counts.forecasts).toBe(1);
      for (const results of [mine, theirs]) {
        expect(results[0]).toEqual({
          source: "weather",
          status: "failed",
          detail: "could not fetch a forecast (no answer within 1 s); none has ever been fetched",
        });
      }
      // The neighbour has no subscriptions of their own.
      expect(theirs.slice(1)).toEqual([
        { source: "calendar", status: "skipped" },
        { source: "feeds", status: "skipped" },
      ]);
    } finally {
      held.release();
    }
  });
});
