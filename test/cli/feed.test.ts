import { afterAll, beforeAll, expect, it } from "vitest";
import { listFeeds } from "../../db/queries/feeds.ts";
import { registerFeedCommands } from "../../src/cli/commands/feed.ts";
import { fixedClock } from "../../src/core/clock.ts";
import { cliHarness } from "../helpers/cli.ts";
import { loopbackSourcesConfig } from "../helpers/config-file.ts";
import { createTestUser, describeEachDatabase } from "../helpers/database.ts";
import { type StaticHttpServer, startStaticHttpServer } from "../servers/static-http-server.ts";
import { rssFeed } from "../sources/feeds/hostile-feeds.ts";

describeEachDatabase("briefbot feed", (getDb) => {
  let server: StaticHttpServer;
  beforeAll(async () => {
    server = await startStaticHttpServer({
      "/news.xml": {
        body: rssFeed("CLI News", [
          ["n1", "One", "Mon, 02 Jun 2025 07:00:00 +0000"],
          ["n2", "Two", "Mon, 02 Jun 2025 06:00:00 +0000"],
        ]),
        contentType: "application/rss+xml",
      },
      "/down.xml": { status: 502 },
    });
  });
  afterAll(async () => {
    await server?.close();
  });
  const run = cliHarness(getDb, {
    env: { BRIEFBOT_CONFIG: loopbackSourcesConfig() },
    families: [registerFeedCommands],
    clock: fixedClock("2025-06-02T08:00:00Z"),
  });

  it("adds a feed, syncing it once, then lists and syncs with progress", async () => {
    const user = await createTestUser(getDb());
    const added = await run(
      "feed",
      "add",
      "--user",
      user.name,
      `${server.url}/news.xml`,
      "--topic",
      "World",
      "--topic",
      "tech",
    );
    expect(added).toMatchObject({ code: 0, stderr: "" });
    expect(added.stdout).toMatch(
      /^added feed \d+ "CLI News" \(http:\/\/127\.0\.0\.1:\d+\/news\.xm…\): 2 items\n$/,
    );

    const listed = await run("feed", "list", "--user", user.name);
    expect(listed.stdout).toMatch(
      /CLI News \(http:\/\/127\.0\.0\.1:\d+\/news\.xm…\) {2}2 items {2}synced 2025-06-02 08:00 UTC {2}\[world, tech\]/,
    );
    const json = JSON.parse((await run("feed", "list", "--user", user.name, "--json")).stdout) as {
      title: string;
      topics: string[];
    }[];
    expect(json).toMatchObject([{ title: "CLI News", topics: ["world", "tech"] }]);

    const synced = await run("feed", "sync", "--user", user.name);
    expect(synced.code).toBe(0);
    expect(synced.stderr).toMatch(/\[1\/1\] http:\/\/127\.0\.0\.1:\d+\/news\.xm…: 2 items \(0 new\)/);
    expect(synced.stdout).toBe("synced 1 feed: 1 ok, 0 failed\n");
  });

  it("refuses a feed whose server is failing now with exit code 1 (try later), storing nothing", async () => {
    const user = await createTestUser(getDb());
    const added = await run("feed", "add", "--user", user.name, `${server.url}/down.xml`);
    expect(added.code).toBe(1);
    expect(added.stdout).toBe("");
    expect(added.stderr).toMatch(
      /^briefbot: not added: http:\/\/127\.0\.0\.1:\d+\/down\.xm… is not a usable feed: server answered HTTP 502 Bad Gateway\n$/,
    );
    expect(await listFeeds(getDb(), { userId: user.id })).toEqual([]);
  });

  it("without sources.allow_hosts in BRIEFBOT_CONFIG, a feed on 127.0.0.1 is refused at add time and nothing stored", async () => {
    const strict = cliHarness(getDb, {
      families: [registerFeedCommands],
      clock: fixedClock("2025-06-02T08:00:00Z"),
    });
    const user = await createTestUser(getDb());
    const asked = server.requestsTo("/news.xml").length;
    const added = await strict("feed", "add", "--user", user.name, `${server.url}/news.xml`);
    expect(added.code).toBe(2);
    expect(added.stderr).toContain(
      "refused: 127.0.0.1 is a loopback address (allow it with sources.allow_private_networks or sources.allow_hosts in BRIEFBOT_CONFIG)",
    );
    expect(server.requestsTo("/news.xml")).toHaveLength(asked);
    expect(await listFeeds(getDb(), { userId: user.id })).toEqual([]);
  });

  it("refuses bad input with one clear line and writes nothing", async () => {
    const user = await createTestUser(getDb());
    expect(await run("feed", "add", "--user", user.name, "ftp://example.com/feed")).toEqual({
      code: 2,
      stdout: "",
      stderr: 'briefbot: "ftp://example.com/feed" is not an http(s) feed address\n',
    });
    expect(await run("feed", "add", "--user", "ghost", `${server.url}/news.xml`)).toMatchObject({
      code: 2,
      stderr: 'briefbot: no user named "ghost" (see: briefbot user list)\n',
    });
    expect((await run("feed", "sync", "--user", "ghost")).code).toBe(2);
    expect(await listFeeds(getDb(), { userId: user.id })).toEqual([]);
    await run("feed", "add", "--user", user.name, `${server.url}/news.xml`);
    const duplicate = await run("feed", "add", "--user", user.name, `${server.url}/news.xml`);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toContain("already subscribed to");
  });
});
