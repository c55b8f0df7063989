/**
 * The contract of `Sources` over what the syncs cached: feed items newest first (undated ones by when they
 * were fetched), a topic matching a feed's tag or a word start, interests taking the slots first, the cap on
 * how many; forecasts by rounded place; how each feed last synced. Held by the in-memory ports and the
 * database stores.
 */
import { expect, it } from "vitest";
import { addFeed, saveCachedForecast, saveFeedSync } from "../helpers/test-store.ts";
import { describeEachStore } from "./harness.ts";

const at = new Date("2025-06-02T05:00:00Z");
const hoursAgo = (hours: number) => new Date(at.getTime() - hours * 3_600_000);

describeEachStore("sources", (world) => {
  async function userWithFeeds() {
    const { store } = world();
    const user = await world().addUser();
    const tech = await addFeed(store, {
      userId: user.id,
      url: `https://tech.example/${user.id}.rss`,
      topics: ["AI"],
    });
    const local = await addFeed(store, { userId: user.id, url: `https://local.example/${user.id}.rss` });
    await saveFeedSync(store, tech, {
      title: "Tech Daily",
      etag: null,
      lastModified: null,
      at,
      items: [
        { guid: "t1", title: "Chips get faster", link: null, summary: "", publishedAt: hoursAgo(1) },
        { guid: "t2", title: "Undated gadget news", link: null, summary: "", publishedAt: null },
      ],
    });
    await saveFeedSync(store, local, {
      title: "Town News",
      etag: null,
      lastModified: null,
      at,
      items: [
        {
          guid: "l1",
          title: "Election results in",
          link: "https://local.example/1",
          summary: "Turnout up",
          publishedAt: hoursAgo(2),
        },
        {
          guid: "l2",
          title: "Bakery opens",
          link: null,
          summary: "Said to be good",
          publishedAt: hoursAgo(3),
        },
        { guid: "l3", title: "Rain expected", link: null, summary: "", publishedAt: hoursAgo(4) },
      ],
    });
    return { user, tech, local };
  }

  it("lists a user's items newest first, undated ones by when they were fetched, within the cap", async () => {
    const { sources } = world().ports;
    const { user, tech } = await userWithFeeds();
    const other = await world().addUser();
    const titles = async (max: number) =>
      (await sources.feedItems(user.id, { max })).map((item) => item.title);
    expect(await titles(10)).toEqual([
      "Undated gadget news",
      "Chips get faster",
      "Election results in",
      "Bakery opens",
      "Rain expected",
    ]);
    expect(await titles(2)).toEqual(["Undated gadget news", "Chips get faster"]);
    expect(await titles(0)).toEqual([]);
    expect(await sources.feedItems(other.id, { max: 10 })).toEqual([]);
    expect((await sources.feedItems(user.id, { max: 10 }))[1]).toMatchObject({
      feedId: tech.id,
      feedTitle: "Tech Daily",
      link: null,
      publishedAt: hoursAgo(1),
      matchedInterests: [],
    });
  });

  it("matches a topic by a feed's tag or a word start, and short topics only as whole words", async () => {
    const { sources } = world().ports;
    const { user } = await userWithFeeds();
    const titles = async (topic: string) =>
      (await sources.feedItems(user.id, { max: 10, topic })).map((item) => item.title);
    // The tech feed's tag; the bakery's "Said" does not hold the word "ai".
    expect(await titles("ai")).toEqual(["Undated gadget news", "Chips get faster"]);
    expect(await titles("elect")).toEqual(["Election results in"]);
    expect(await titles("turnout")).toEqual(["Election results in"]);
    expect(await titles("nothing-like-this")).toEqual([]);
  });

  it("lets items mentioning an interest take the slots first, still shown newest first", async () => {
    const { sources } = world().ports;
    const { user } = await userWithFeeds();
    const items = await sources.feedItems(user.id, { max: 2, interests: ["Rain", "bakery"] });
    expect(items.map((item) => [item.title, item.matchedInterests])).toEqual([
      ["Bakery opens", ["bakery"]],
      ["Rain expected", ["rain"]],
    ]);
  });

  it("reads a forecast by its rounded place, the latest one saved", async () => {
    const { sources } = world().ports;
    const { store } = world();
    const place = { latitude: 48.8566 + Math.random() / 1000, longitude: 2.3522 };
    expect(await sources.forecast(place)).toBeUndefined();
    await saveCachedForecast(
      store,
      place.latitude,
      place.longitude,
      { current: { temperature_2m: 11 } },
      hoursAgo(2),
    );
    await saveCachedForecast(
      store,
      place.latitude,
      place.longitude,
      { current: { temperature_2m: 14 } },
      hoursAgo(1),
    );
    expect(await sources.forecast({ latitude: 48.86, longitude: 2.35 })).toMatchObject({
      latitude: 48.86,
      longitude: 2.35,
      payload: { current: { temperature_2m: 14 } },
      fetchedAt: hoursAgo(1),
    });
  });

  it("says how each of the user's feeds last synced", async () => {
    const { sources } = world().ports;
    const { user, tech, local } = await userWithFeeds();
    expect(await sources.health?.(user.id)).toEqual([
      { kind: "feed", id: tech.id, name: "Tech Daily", lastSuccessAt: at, lastError: null },
      { kind: "feed", id: local.id, name: "Town News", lastSuccessAt: at, lastError: null },
    ]);
  });
});
