/**
 * Subscriptions never reach into the private network unless the operator allows it. The "public" feed
 * host is played by a server on 127.0.0.2 that the policy names in `allowHosts`; the internal service it
 * redirects to listens on 127.0.0.1, which nothing allows, and serves a perfectly good feed and calendar
 * that must never be stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendar, getCalendar } from "../../../db/queries/calendars.ts";
import { listEvents } from "../../../db/queries/events.ts";
import { addFeed, getFeed, listFeedItems } from "../../../db/queries/feeds.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { syncCalendar } from "../../../src/sources/calendar/sync-calendar.ts";
import { syncFeed } from "../../../src/sources/feeds/sync-feed.ts";
import { FetchError, fetchWithCache } from "../../../src/sources/http-cache-fetch.ts";
import { type NetworkPolicy, PUBLIC_ONLY } from "../../../src/sources/network/address-policy.ts";
import { createGuardedAgent } from "../../../src/sources/network/guarded-agent.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import { type StaticHttpServer, startStaticHttpServer } from "../../servers/static-http-server.ts";
import { rssFeed } from "../feeds/hostile-feeds.ts";

const PUBLIC_HOST = "127.0.0.2";
/** What an operator who allowed nothing private would have, plus the stand-in public host. */
const POLICY: NetworkPolicy = { allowPrivateNetworks: false, allowHosts: [PUBLIC_HOST] };
const SECRET_FEED = rssFeed("Internal admin", [
  ["secret-1", "Root password is hunter2", "Mon, 02 Jun 2025 07:00:00 +0000"],
]);
const SECRET_ICS = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//internal//EN",
  "BEGIN:VEVENT",
  "UID:secret",
  "SUMMARY:Internal only",
  "DTSTART:20250602T090000Z",
  "DTEND:20250602T100000Z",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");

let internal: StaticHttpServer;
let hostile: StaticHttpServer;

beforeAll(async () => {
  internal = await startStaticHttpServer({
    "/feed.xml": { body: SECRET_FEED, contentType: "application/rss+xml" },
    "/cal.ics": { body: SECRET_ICS, contentType: "text/calendar" },
  });
  hostile = await startStaticHttpServer(
    {
      "/to-loopback.xml": { status: 302, headers: { location: `${internal.url}/feed.xml` } },
      "/to-metadata.xml": {
        status: 301,
        headers: { location: "http://169.254.169.254/latest/meta-data/iam/security-credentials/" },
      },
      "/to-loopback.ics": { status: 307, headers: { location: `${internal.url}/cal.ics` } },
      "/to-metadata.ics": { status: 302, headers: { location: "http://169.254.169.254/latest/user-data" } },
      "/via-localhost.xml": {
        status: 302,
        headers: { location: `http://localhost:${new URL(internal.url).port}/feed.xml` },
      },
    },
    { host: PUBLIC_HOST },
  );
});

afterAll(async () => {
  await hostile?.close();
  await internal?.close();
});

describeEachDatabase("subscriptions redirected into the private network", (getDb) => {
  const clock = fixedClock("2025-06-02T08:00:00Z");

  it.each([
    [
      "/to-loopback.xml",
      /refused the redirect to http:\/\/127\.0\.0\.1:\d+\/feed\.xml: 127\.0\.0\.1 is a loopback address/,
    ],
    [
      "/to-metadata.xml",
      /refused the redirect to http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam\/security-credentials\/: 169\.254\.169\.254 is a cloud metadata address/,
    ],
    ["/via-localhost.xml", /localhost resolves to 127\.0\.0\.1, which is a loopback address/],
  ])("feed %s: refused, recorded on the feed, nothing stored from the target", async (path, message) => {
    const db = getDb();
    const user = await createTestUser(db);
    const feed = await addFeed(db, { userId: user.id, url: `${hostile.url}${path}` });
    const before = internal.requests.length;
    const asked = hostile.requestsTo(path).length;

    const result = await syncFeed(db, feed.id, { fetch, clock, network: POLICY });

    expect(result.status).toBe("error");
    expect(result.status === "error" && result.error).toMatch(message);
    expect((await getFeed(db, feed.id))?.lastError).toMatch(message);
    expect(await listFeedItems(db, user, { max: 10 })).toEqual([]);
    expect(internal.requests.length).toBe(before);
    expect(hostile.requestsTo(path)).toHaveLength(asked + 1);
  });

  it.each([
    [
      "/to-loopback.ics",
      /refused the redirect to http:\/\/127\.0\.0\.1:\d+\/cal\.ics: 127\.0\.0\.1 is a loopback address/,
    ],
    [
      "/to-metadata.ics",
      /refused the redirect to http:\/\/169\.254\.169\.254\/latest\/user-data: .*cloud metadata/,
    ],
  ])("calendar %s: refused, recorded on the calendar, no events stored", async (path, message) => {
    const db = getDb();
    const user = await createTestUser(db, { timeZone: "UTC" });
    const calendar = await addCalendar(db, { userId: user.id, source: `${hostile.url}${path}` });
    const before = internal.requests.length;

    const result = await syncCalendar(db, calendar.id, { fetch, clock, network: POLICY });

    expect(result.status).toBe("failed");
    expect(result.error).toMatch(message);
    expect((await getCalendar(db, calendar.id))?.lastError).toMatch(message);
    expect(await listEvents(db, user, { range: "today", now: clock.now() })).toEqual([]);
    expect(internal.requests.length).toBe(before);
  });

  it("the default (no policy given) refuses a loopback feed outright; the operator's allowance lets it in", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const feed = await addFeed(db, { userId: user.id, url: `${internal.url}/feed.xml` });

    const refused = await syncFeed(db, feed.id, { fetch, clock });
    expect(refused.status === "error" && refused.error).toMatch(
      /refused: 127\.0\.0\.1 is a loopback address/,
    );

    const allowed = await syncFeed(db, feed.id, {
      fetch,
      clock,
      network: { allowPrivateNetworks: true, allowHosts: [] },
    });
    expect(allowed).toMatchObject({ status: "ok", itemCount: 1 });
    expect((await getFeed(db, feed.id))?.lastError).toBeNull();
  });
});

describe("fetchWithCache address checks", () => {
  async function failure(promise: Promise<unknown>): Promise<FetchError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(FetchError);
    return error as FetchError;
  }

  it("refuses IP literals of every private kind before connecting", async () => {
    for (const address of [
      "127.0.0.1",
      "[::1]",
      "10.0.0.1",
      "192.168.0.1",
      "169.254.169.254",
      "0.0.0.0",
      "[fd00::1]",
    ]) {
      const error = await failure(fetchWithCache(fetch, `http://${address}:9/x`, { timeoutMs: 2_000 }));
      expect(error.code, address).toBe("refused-address");
    }
  });

  it("checks the address a host name resolves to, at connection time", async () => {
    const error = await failure(
      fetchWithCache(fetch, `http://localhost:${new URL(internal.url).port}/feed.xml`),
    );
    expect(error.code).toBe("refused-address");
    expect(error.message).toContain("localhost resolves to 127.0.0.1");
    const byName = await fetchWithCache(fetch, `http://localhost:${new URL(internal.url).port}/feed.xml`, {
      network: { allowPrivateNetworks: false, allowHosts: ["localhost"] },
    });
    expect(byName.status === "ok" && byName.body).toBe(SECRET_FEED);
  });

  it("the guarded agent refuses by itself, whoever calls fetch with it", async () => {
    const agent = createGuardedAgent(PUBLIC_ONLY);
    const before = internal.requests.length;
    try {
      for (const url of [
        `${internal.url}/feed.xml`,
        `http://localhost:${new URL(internal.url).port}/feed.xml`,
      ]) {
        const error = await fetch(url, { dispatcher: agent as unknown as RequestInit["dispatcher"] }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect((error as Error).cause, url).toMatchObject({ name: "RefusedAddressError" });
      }
    } finally {
      await agent.close();
    }
    expect(internal.requests.length).toBe(before);
  });

  it("follows redirects between allowed hosts, refuses other schemes and endless chains", async () => {
    const chain = await startStaticHttpServer();
    try {
      chain.route("/a", { status: 301, headers: { location: "/b" } });
      chain.route("/b", { status: 308, headers: { location: `${chain.url}/c` } });
      chain.route("/c", { body: "arrived" });
      chain.route("/file", { status: 302, headers: { location: "file:///etc/passwd" } });
      chain.route("/loop", { status: 302, headers: { location: "/loop" } });
      const network: NetworkPolicy = { allowPrivateNetworks: false, allowHosts: ["127.0.0.1"] };

      const arrived = await fetchWithCache(fetch, `${chain.url}/a`, { network });
      expect(arrived.status === "ok" && arrived.body).toBe("arrived");

      const file = await failure(fetchWithCache(fetch, `${chain.url}/file`, { network }));
      expect(file).toMatchObject({ code: "bad-url" });
      expect(file.message).toContain("redirected to file:///etc/passwd, which is not http(s)");

      const loop = await failure(fetchWithCache(fetch, `${chain.url}/loop`, { network }));
      expect(loop).toMatchObject({ code: "too-many-redirects" });
      expect(chain.requestsTo("/loop")).toHaveLength(11);
    } finally {
      await chain.close();
    }
  });
});
