import { expect, it } from "vitest";
import {
  addFeed,
  FeedExistsError,
  InvalidFeedUrlError,
  listFeedItems,
  listFeeds,
  saveFeedSync,
} from "../../../db/queries/feeds.ts";
import { interestsFromProfile } from "../../../src/core/feeds/interests.ts";
import { createTestUser, describeEachDatabase } from "../../helpers/database.ts";

describeEachDatabase("feed queries", (getDb) => {
  const at = new Date("2025-06-02T08:00:00Z");
  const item = (guid: string, title: string, publishedAt: string | null, summary = "") => ({
    guid,
    title,
    link: `https://news.example/${guid}`,
    summary,
    publishedAt: publishedAt ? new Date(publishedAt) : null,
  });

  async function seed(profile = "") {
    const db = getDb();
    const user = await createTestUser(db, { profile });
    const tech = await addFeed(db, {
      userId: user.id,
      url: "https://tech.example/rss",
      topics: ["Tech", " tech ", "AI"],
    });
    const world = await addFeed(db, { userId: user.id, url: "https://world.example/rss#frag" });
    await saveFeedSync(db, tech, {
      title: "Tech Daily",
      etag: null,
      lastModified: null,
      at,
      items: [
        item("t1", "Chip maker results", "2025-06-02T06:00:00Z"),
        item("t2", "New phone launched", "2025-06-01T12:00:00Z"),
      ],
    });
    await saveFeedSync(db, world, {
      title: "World",
      etag: null,
      lastModified: null,
      at,
      items: [
        item("w1", "Storm hits the coast", "2025-06-02T07:00:00Z", "Climate scientists warn of more."),
        item("w2", "Election results", "2025-05-30T10:00:00Z"),
        item("w3", "Undated bulletin", null),
        item("w4", "Cycling tour begins", "2025-05-29T10:00:00Z"),
      ],
    });
    return { db, user, tech, world };
  }

  it("adds feeds with normalised topics and URL, refusing duplicates and non-http addresses", async () => {
    const { db, user, tech, world } = await seed();
    expect(tech.topics).toEqual(["tech", "ai"]);
    expect(world.url).toBe("https://world.example/rss");
    await expect(addFeed(db, { userId: user.id, url: "https://tech.example/rss" })).rejects.toBeInstanceOf(
      FeedExistsError,
    );
    await expect(addFeed(db, { userId: user.id, url: "file:///etc/passwd" })).rejects.toBeInstanceOf(
      InvalidFeedUrlError,
    );
    await expect(addFeed(db, { userId: user.id, url: "not a url" })).rejects.toBeInstanceOf(
      InvalidFeedUrlError,
    );
    const listed = await listFeeds(db, { userId: user.id });
    expect(listed.map((feed) => [feed.title, feed.itemCount, feed.userName])).toEqual([
      ["Tech Daily", 2, user.name],
      ["World", 4, user.name],
    ]);
  });

  it("lists newest first, undated items by fetch time, and respects max", async () => {
    const { db, user } = await seed();
    const items = await listFeedItems(db, user, { max: 4, interests: [] });
    expect(items.map((entry) => entry.title)).toEqual([
      "Undated bulletin",
      "Storm hits the coast",
      "Chip maker results",
      "New phone launched",
    ]);
    expect(items[1]?.feedTitle).toBe("World");
  });

  it("filters by per-feed topic or by keyword in title and summary", async () => {
    const { db, user } = await seed();
    const tech = await listFeedItems(db, user, { max: 10, topic: "TECH" });
    expect(tech.map((entry) => entry.title)).toEqual(["Chip maker results", "New phone launched"]);
    const climate = await listFeedItems(db, user, { max: 10, topic: "climate" });
    expect(climate.map((entry) => entry.title)).toEqual(["Storm hits the coast"]);
    const elections = await listFeedItems(db, user, { max: 10, topic: "election" });
    expect(elections.map((entry) => entry.title)).toEqual(["Election results"]);
    expect(await listFeedItems(db, user, { max: 10, topic: "50% off (sale)" })).toEqual([]);
  });

  it("gives interest matches the slots first, still newest first", async () => {
    const { db, user } = await seed("interests: cycling, election");
    const items = await listFeedItems(db, user, { max: 3, interests: interestsFromProfile(user.profile) });
    expect(items.map((entry) => [entry.title, entry.matchedInterests])).toEqual([
      ["Undated bulletin", []],
      ["Election results", ["election"]],
      ["Cycling tour begins", ["cycling"]],
    ]);
    const explicit = await listFeedItems(db, user, { max: 1, interests: ["ai"] });
    expect(explicit.map((entry) => [entry.title, entry.matchedInterests])).toEqual([
      ["Chip maker results", ["ai"]],
    ]);
  });

  it("never returns another user's items", async () => {
    const { db } = await seed();
    const stranger = await createTestUser(db);
    expect(await listFeedItems(db, stranger, { max: 10 })).toEqual([]);
  });
});
