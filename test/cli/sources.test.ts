/**
 * Subscriptions are tried before they are stored (a 404, a non-calendar or a non-feed is refused with one
 * line, exit 2, nothing saved), can be removed, and their secret addresses stay out of lists, progress
 * lines and logs unless the owner asks with --show-secrets.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listCalendars } from "../../db/queries/calendars.ts";
import { listFeedItems, listFeeds } from "../../db/queries/feeds.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { startCalendarSync } from "../../src/sources/calendar/calendar-sync-loop.ts";
import { startFeedSync } from "../../src/sources/feeds/sync-feed.ts";
import { cliHarness } from "../helpers/cli.ts";
import { loopbackSourcesConfig } from "../helpers/config-file.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { type StaticHttpServer, startStaticHttpServer } from "../servers/static-http-server.ts";
import { rssFeed } from "../sources/feeds/hostile-feeds.ts";

const scratch = mkdtempSync(join(tmpdir(), "briefbot-sources-"));
const NOT_A_CALENDAR = join(scratch, "README.md");
writeFileSync(NOT_A_CALENDAR, "# Notes\n\nThis is not a calendar.\n");
const SECRET = "private-5f2c9e0b7a41d3c8";
const SECRET_PATH = `/calendar/ical/ann%40example.com/${SECRET}/basic.ics`;
const CALENDAR = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//test//EN",
  "BEGIN:VEVENT",
  "UID:one@test",
  "DTSTART:20250602T090000Z",
  "DTEND:20250602T100000Z",
  "SUMMARY:Standup",
  "END:VEVENT",
  "END:VCALENDAR",
  "trailing junk",
].join("\r\n");

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describeEachDatabase("adding, removing and showing subscriptions", (getDb) => {
  let server: StaticHttpServer;
  beforeAll(async () => {
    server = await startStaticHttpServer({
      [SECRET_PATH]: { body: CALENDAR, contentType: "text/calendar" },
      "/feeds/token-9a8b7c6d5e/news.xml": {
        body: rssFeed("Private News", [["p1", "One", "Mon, 02 Jun 2025 07:00:00 +0000"]]),
        contentType: "application/rss+xml",
      },
      "/page.html": { body: "<!doctype html><html><body>Hello</body></html>", contentType: "text/html" },
    });
  });
  afterAll(async () => {
    await server?.close();
  });
  const run = cliHarness(getDb, {
    env: { BRIEFBOT_CONFIG: loopbackSourcesConfig() },
    clock: fixedClock("2025-06-02T08:00:00Z"),
  });

  it("refuses a file that is not a calendar and an address that answers 404, storing nothing", async () => {
    const user = await createTestUser(getDb());
    const file = await run("calendar", "add", "--user", user.name, NOT_A_CALENDAR);
    expect(file.code).toBe(2);
    expect(file.stdout).toBe("");
    expect(file.stderr).toBe(
      `briefbot: not added: ${NOT_A_CALENDAR} is not a usable calendar: not an iCalendar file (starts with "# Notes This is not a calendar.")\n`,
    );
    const missing = await run(
      "calendar",
      "add",
      "--user",
      user.name,
      `${server.url}/calendar/ical/nope/basic.ics`,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^briefbot: not added: http:\/\/127\.0\.0\.1:\d+\/calenda… is not a usable calendar: server answered HTTP 404 Not Found\n$/,
    );
    expect(await listCalendars(getDb(), user.id)).toEqual([]);
  });

  it("refuses a feed address that answers 404 or serves a web page, storing nothing", async () => {
    const user = await createTestUser(getDb());
    const missing = await run("feed", "add", "--user", user.name, `${server.url}/gone.xml`);
    expect(missing).toMatchObject({ code: 2, stdout: "" });
    expect(missing.stderr).toMatch(
      /^briefbot: not added: .* is not a usable feed: server answered HTTP 404 Not Found\n$/,
    );
    const page = await run("feed", "add", "--user", user.name, `${server.url}/page.html`);
    expect(page.code).toBe(2);
    expect(page.stderr).toMatch(/^briefbot: not added: .* is not a usable feed: .+\n$/);
    expect(await listFeeds(getDb(), { userId: user.id })).toEqual([]);
  });

  it("removes a feed with its items, and says so when there is no such feed", async () => {
    const user = await createTestUser(getDb());
    const added = await run(
      "feed",
      "add",
      "--user",
      user.name,
      `${server.url}/feeds/token-9a8b7c6d5e/news.xml`,
    );
    expect(added.code).toBe(0);
    const [feed] = await listFeeds(getDb(), { userId: user.id });
    expect(await listFeedItems(getDb(), user, { max: 10 })).toHaveLength(1);
    expect(await run("feed", "remove", String(feed?.id), "--user", user.name)).toEqual({
      code: 0,
      stdout: `removed feed ${feed?.id}\n`,
      stderr: "",
    });
    expect(await listFeeds(getDb(), { userId: user.id })).toEqual([]);
    expect(await listFeedItems(getDb(), user, { max: 10 })).toEqual([]);
    expect(await run("feed", "remove", String(feed?.id), "--user", user.name)).toMatchObject({
      code: 2,
      stderr: `briefbot: ${user.name} has no feed ${feed?.id}\n`,
    });
  });

  it("keeps secret addresses out of lists, progress and logs, and shows them to the owner on request", async () => {
    const user = await createTestUser(getDb());
    const address = `${server.url}${SECRET_PATH}`;
    const added = await run("calendar", "add", "--user", user.name, address);
    expect(added.code).toBe(0);
    const feedAdded = await run(
      "feed",
      "add",
      "--user",
      user.name,
      `${server.url}/feeds/token-9a8b7c6d5e/news.xml`,
    );
    expect(feedAdded.code).toBe(0);
    const listed = await run("calendar", "list", "--user", user.name);
    expect(listed.stdout).toMatch(/ · http:\/\/127\.0\.0\.1:\d+\/calenda… · /);
    // The warning is shown with its text, in the singular.
    expect(listed.stdout).toContain("1 warning: ignored text after END:VCALENDAR");

    // The calendar starts failing: its error message quotes the address it failed on.
    server.route(SECRET_PATH, { status: 500 });
    const synced = await run("calendar", "sync", "--user", user.name);
    const afterFailure = await run("calendar", "list", "--user", user.name);
    const json = await run("calendar", "list", "--user", user.name, "--json");
    const feeds = await run("feed", "list", "--user", user.name, "--json");
    const logged: string[] = [];
    const logger = {
      info: (details: object, message: string) => logged.push(`${message} ${JSON.stringify(details)}`),
      warn: (details: object, message: string) => logged.push(`${message} ${JSON.stringify(details)}`),
    };
    server.route("/feeds/token-9a8b7c6d5e/news.xml", { status: 503 });
    for (const loop of [
      startCalendarSync({
        db: getDb(),
        fetch,
        clock: fixedClock("2025-06-02T08:00:00Z"),
        intervalMs: 3_600_000,
        logger,
      }),
      startFeedSync({
        db: getDb(),
        fetch,
        clock: fixedClock("2025-06-02T08:00:00Z"),
        intervalMs: 3_600_000,
        logger,
      }),
    ]) {
      await loop.runNow();
      await loop.stop();
    }
    expect(afterFailure.stdout).toMatch(
      /error: http:\/\/127\.0\.0\.1:\d+\/calenda…: server answered HTTP 500/,
    );
    expect(logged.some((line) => line.startsWith("calendar sync failed"))).toBe(true);
    expect(logged.some((line) => line.startsWith("feed sync failed"))).toBe(true);
    const everything = [added, feedAdded, listed, synced, afterFailure, json, feeds]
      .map((result) => result.stdout + result.stderr)
      .concat(logged)
      .join("\n");
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain("token-9a8b7c6d5e");

    const owner = await run("calendar", "list", "--user", user.name, "--show-secrets");
    expect(owner.stdout).toContain(SECRET);
    expect((await run("feed", "list", "--user", user.name, "--show-secrets")).stdout).toContain(
      "token-9a8b7c6d5e",
    );
  });
});
