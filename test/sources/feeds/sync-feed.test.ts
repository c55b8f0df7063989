import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../../db/client.ts";
import { addFeed, getFeed, listFeedItems } from "../../../db/queries/feeds.ts";
import type { User } from "../../../db/schema/index.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { startFeedSync, syncAllFeeds, syncFeed } from "../../../src/sources/feeds/sync-feed.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import {
  LOOPBACK_SOURCES,
  type StaticHttpServer,
  startStaticHttpServer,
} from "../../servers/static-http-server.ts";
import { rssFeed } from "./hostile-feeds.ts";

const RSS = "application/rss+xml; charset=utf-8";

describeEachDatabase("feed sync", (getDb) => {
  let server: StaticHttpServer;
  let routeCounter = 0;
  beforeAll(async () => {
    server = await startStaticHttpServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const clock = fixedClock("2025-06-02T08:00:00Z");
  // Generous: the machine is noisy. Only the hang case uses a short limit.
  const deps = { fetch, clock, timeoutMs: 15_000, network: LOOPBACK_SOURCES };

  async function subscribe(db: Database, user: User, script: Parameters<StaticHttpServer["route"]>[1]) {
    routeCounter += 1;
    const path = `/feed-${routeCounter}.xml`;
    server.route(path, script);
    const feed = await addFeed(db, { userId: user.id, url: `${server.url}${path}` });
    return { feed, path };
  }

  const twoItems = rssFeed("Daily News", [
    ["a", "First story", "Mon, 02 Jun 2025 07:00:00 +0000"],
    ["b", "Second story", "Mon, 02 Jun 2025 06:00:00 +0000"],
  ]);

  it("stores items on 200, then sends the ETag back and changes nothing but lastSyncAt on 304", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const { feed, path } = await subscribe(db, user, { body: twoItems, contentType: RSS, etag: '"abc"' });

    const first = await syncFeed(db, feed.id, deps);
    expect(first).toMatchObject({ status: "ok", itemCount: 2, newItems: 2 });
    const afterFirst = await getFeed(db, feed.id);
    expect(afterFirst).toMatchObject({ title: "Daily News", etag: '"abc"', itemCount: 2, lastError: null });
    expect(afterFirst?.lastSyncAt).toEqual(new Date("2025-06-02T08:00:00Z"));

    clock.advance(30 * 60_000);
    const second = await syncFeed(db, feed.id, deps);
    expect(second).toMatchObject({ status: "not-modified", itemCount: 2 });
    expect(server.requestsTo(path)[1]?.headers["if-none-match"]).toBe('"abc"');
    const afterSecond = await getFeed(db, feed.id);
    expect(afterSecond?.lastSyncAt).toEqual(new Date("2025-06-02T08:30:00Z"));
    expect(afterSecond?.etag).toBe('"abc"');
    const items = await listFeedItems(db, user, { max: 10, interests: [] });
    expect(items.map((item) => item.title)).toEqual(["First story", "Second story"]);
  });

  it("honours Last-Modified when the server sends no ETag", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const lastModified = "Mon, 02 Jun 2025 07:55:00 GMT";
    const { feed, path } = await subscribe(db, user, { body: twoItems, contentType: RSS, lastModified });
    await syncFeed(db, feed.id, deps);
    expect((await getFeed(db, feed.id))?.lastModified).toBe(lastModified);
    expect((await syncFeed(db, feed.id, deps)).status).toBe("not-modified");
    expect(server.requestsTo(path)[1]?.headers["if-modified-since"]).toBe(lastModified);
  });

  it("dedupes by guid across syncs, updating changed titles", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const updated = rssFeed("Daily News", [
      ["c", "Third story", "Mon, 02 Jun 2025 09:00:00 +0000"],
      ["a", "First story (updated)", "Mon, 02 Jun 2025 07:00:00 +0000"],
      ["b", "Second story", "Mon, 02 Jun 2025 06:00:00 +0000"],
    ]);
    const { feed } = await subscribe(db, user, [
      { body: twoItems, contentType: RSS },
      { body: updated, contentType: RSS },
    ]);
    await syncFeed(db, feed.id, deps);
    const second = await syncFeed(db, feed.id, deps);
    expect(second).toMatchObject({ status: "ok", itemCount: 3, newItems: 1 });
    const items = await listFeedItems(db, user, { max: 10, interests: [] });
    expect(items.map((item) => item.title)).toEqual(["Third story", "First story (updated)", "Second story"]);
  });

  it.each([
    ["a 500", { status: 500, body: "Internal Server Error" }, /HTTP 500/],
    ["a timeout", { hang: true }, /no complete response within 300 ms/],
    [
      "a malformed body",
      { body: "<rss><channel><item><title>broken", contentType: RSS },
      /malformed feed|not a recognised feed/,
    ],
    ["an HTML page", { body: "<html><body>Login</body></html>", contentType: "text/html" }, /HTML page/],
    ["a 10 MB body", { body: "x".repeat(10 * 1024 * 1024), contentType: RSS }, /larger than the 5 MB limit/],
  ])("keeps the last good items and records the error on %s", async (_label, failure, message) => {
    const db = getDb();
    const user = await createTestUser(db);
    const { feed } = await subscribe(db, user, [{ body: twoItems, contentType: RSS, etag: '"v1"' }, failure]);
    await syncFeed(db, feed.id, deps);
    clock.advance(60_000);
    const failed = await syncFeed(db, feed.id, {
      ...deps,
      timeoutMs: "hang" in failure ? 300 : deps.timeoutMs,
    });
    expect(failed.status).toBe("error");
    expect(failed.status === "error" && failed.error).toMatch(message);
    const stored = await getFeed(db, feed.id);
    expect(stored?.lastError).toMatch(message);
    expect(stored?.itemCount).toBe(2);
    expect(stored?.etag).toBe('"v1"');
    expect(stored?.lastSyncAt).toEqual(clock.now());
    expect(stored?.lastSuccessAt?.getTime()).toBeLessThan(clock.now().getTime());
    expect((await listFeedItems(db, user, { max: 10, interests: [] })).map((item) => item.title)).toEqual([
      "First story",
      "Second story",
    ]);
  });

  it("clears the error once the feed recovers", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const { feed } = await subscribe(db, user, [{ status: 503 }, { body: twoItems, contentType: RSS }]);
    expect((await syncFeed(db, feed.id, deps)).status).toBe("error");
    expect((await getFeed(db, feed.id))?.lastError).toContain("HTTP 503");
    expect((await syncFeed(db, feed.id, deps)).status).toBe("ok");
    expect((await getFeed(db, feed.id))?.lastError).toBeNull();
  });

  it("syncAllFeeds reports every feed, one bad feed does not stop the others", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const good = await subscribe(db, user, { body: twoItems, contentType: RSS });
    const bad = await subscribe(db, user, { status: 500 });
    const progress: string[] = [];
    const results = await syncAllFeeds(db, {
      ...deps,
      userName: user.name,
      onProgress: (result, done, total) =>
        progress.push(`${done}/${total} ${result.feedId} ${result.status}`),
    });
    expect(results.map((result) => [result.feedId, result.status]).sort()).toEqual(
      [
        [good.feed.id, "ok"],
        [bad.feed.id, "error"],
      ].sort(),
    );
    expect(progress).toHaveLength(2);
    expect(progress.some((line) => line.startsWith("2/2"))).toBe(true);
    await expect(syncAllFeeds(db, { ...deps, userName: "nobody-here" })).rejects.toThrow(
      /no user named "nobody-here"/,
    );
  });

  it("the background loop syncs at start and stops cleanly", async () => {
    const db = getDb();
    const user = await createTestUser(db);
    const { feed } = await subscribe(db, user, { body: twoItems, contentType: RSS });
    const messages: string[] = [];
    const logger = {
      info: (_: object, message: string) => messages.push(message),
      warn: (_: object, message: string) => messages.push(message),
    };
    // The loop syncs every feed in this shared database, including the hanging one above: keep its limit short.
    const loop = startFeedSync({ db, ...deps, timeoutMs: 2_000, intervalMs: 60 * 60_000, logger });
    await loop.stop();
    expect((await getFeed(db, feed.id))?.itemCount).toBe(2);
    expect(messages).toContain("feeds synced");
  });
});
