/** Feeds that are hostile or not feeds at all, through the real sync into the database. */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addFeed, getFeed, listFeedItems } from "../../../db/queries/feeds.ts";
import { fixedClock } from "../../../src/core/clock.ts";
import { syncFeed } from "../../../src/sources/feeds/sync-feed.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";
import {
  LOOPBACK_SOURCES,
  type ScriptedResponse,
  type StaticHttpServer,
  startStaticHttpServer,
} from "../../servers/static-http-server.ts";
import { rssFeed } from "./hostile-feeds.ts";

const RSS = "application/rss+xml; charset=utf-8";
const GOOD = rssFeed("Daily News", [
  ["a", "First story", "Mon, 02 Jun 2025 07:00:00 +0000"],
  ["b", "Second story", "Mon, 02 Jun 2025 06:00:00 +0000"],
]);

describeEachDatabase("hostile feeds", (getDb) => {
  let server: StaticHttpServer;
  let route = 0;
  beforeAll(async () => {
    server = await startStaticHttpServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  const deps = { fetch, clock: fixedClock("2025-06-02T08:00:00Z"), network: LOOPBACK_SOURCES };

  async function subscribe(script: ScriptedResponse | ScriptedResponse[]) {
    route += 1;
    const path = `/hostile-${route}.xml`;
    server.route(path, script);
    const user = await createTestUser(getDb());
    const feed = await addFeed(getDb(), { userId: user.id, url: `${server.url}${path}` });
    return { user, feed };
  }

  it("NULs and control characters in guid, title, link and description are removed, not fatal", async () => {
    const body = `<?xml version="1.0"?><rss version="2.0"><channel><title>Null\u0000 News</title>
<item><title>Pay\u0000roll</title><guid>id\u0000-1</guid><link>https://news.example/\u0000a</link><description>Bell\u0007 and null\u0000</description></item>
<item><title>Clean</title><guid>id-2</guid></item></channel></rss>`;
    const { user, feed } = await subscribe({ body, contentType: RSS });

    const result = await syncFeed(getDb(), feed.id, deps);

    expect(result).toMatchObject({ status: "ok", itemCount: 2 });
    const items = await listFeedItems(getDb(), user, { max: 10 });
    expect(items.map((item) => [item.title, item.link, item.summary]).sort()).toEqual([
      ["Clean", null, ""],
      ["Payroll", "https://news.example/a", "Bell and null"],
    ]);
    expect((await getFeed(getDb(), feed.id))?.title).toBe("Null News");
  });

  const garbage = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919 + 13) % 256));
  it.each([
    ["binary garbage", garbage, /binary data, not a feed/],
    [
      "binary garbage inside an <rss> element",
      Buffer.concat([Buffer.from('<rss version="2.0"><channel>'), garbage, Buffer.from("</channel></rss>")]),
      /binary data, not a feed/,
    ],
    [
      "a gzip-compressed feed without Content-Encoding",
      gzipSync(GOOD),
      /binary data, not a feed|not a recognised feed/,
    ],
    [
      "an HTML page",
      Buffer.from("<!doctype html><html><body>Log in</body></html>"),
      /an HTML page, not a feed/,
    ],
    [
      "a calendar",
      Buffer.from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n"),
      /not a recognised feed/,
    ],
    ["plain JSON", Buffer.from('{"items":[{"id":"1"}]}'), /not a recognised feed/],
    ["an empty body", Buffer.from(""), /empty, not a feed/],
  ])("%s is an error recorded on the feed; the items it had stay", async (_, body, message) => {
    const { user, feed } = await subscribe([
      { body: GOOD, contentType: RSS },
      { body: new Uint8Array(body), contentType: RSS },
    ]);
    expect((await syncFeed(getDb(), feed.id, deps)).status).toBe("ok");

    const result = await syncFeed(getDb(), feed.id, deps);

    expect(result.status).toBe("error");
    expect(result.status === "error" && result.error).toMatch(message);
    expect((await getFeed(getDb(), feed.id))?.lastError).toMatch(message);
    expect((await listFeedItems(getDb(), user, { max: 10 })).map((item) => item.title)).toEqual([
      "First story",
      "Second story",
    ]);
  });
});
