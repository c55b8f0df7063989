import { expect, it } from "vitest";
import { briefingToolSet } from "../../../src/core/tools/allowlists.ts";
import { createDefaultToolRegistry } from "../../../src/core/tools/catalog.ts";
import { dispatchToolCall } from "../../../src/core/tools/dispatch.ts";
import { addFeed, createTestUser, describeInMemory, saveFeedSync } from "../../helpers/test-store.ts";
import { toolContextFor } from "../fixture.ts";

const tools = briefingToolSet(createDefaultToolRegistry());

describeInMemory("get_rss_items", (getStore) => {
  async function userWithNews(profile: string) {
    const store = getStore();
    const user = await createTestUser(store, { timeZone: "Europe/London", profile });
    const feed = await addFeed(store, { userId: user.id, url: `https://news.example/${user.id}.rss` });
    const at = new Date("2025-06-02T08:00:00Z");
    const item = (guid: string, title: string, publishedAt: string) => ({
      guid,
      title,
      link: null,
      summary: "",
      publishedAt: new Date(publishedAt),
    });
    await saveFeedSync(store, feed, {
      title: "News",
      etag: null,
      lastModified: null,
      at,
      items: [
        item("a", "Markets open flat", "2025-06-02T07:00:00Z"),
        item("b", "Weekend football scores", "2025-06-02T06:00:00Z"),
        item("c", "Cycling tour begins", "2025-05-29T10:00:00Z"),
      ],
    });
    return toolContextFor(store, user);
  }

  const titles = (result: unknown) =>
    (result as { items: Array<{ title: string }> }).items.map((item) => item.title);

  it("gives what the profile says the user cares about the first slots, still newest first", async () => {
    const context = await userWithNews("Tone: brief\ninterests: cycling");
    const outcome = await dispatchToolCall(
      tools,
      { id: "c1", function: { name: "get_rss_items", arguments: { max: 2 } } },
      context,
    );
    expect(titles(outcome.result)).toEqual(["Markets open flat", "Cycling tour begins"]);
    expect(outcome.result).toMatchObject({ items: [{}, { interests: ["cycling"] }] });
  });

  it("lists newest first without interests, and a topic overrides them", async () => {
    const plain = await userWithNews("");
    const newest = await dispatchToolCall(
      tools,
      { id: "c2", function: { name: "get_rss_items", arguments: { max: 2 } } },
      plain,
    );
    expect(titles(newest.result)).toEqual(["Markets open flat", "Weekend football scores"]);
    const cycling = await userWithNews("interests: cycling");
    const football = await dispatchToolCall(
      tools,
      { id: "c3", function: { name: "get_rss_items", arguments: { max: 2, topic: "football" } } },
      cycling,
    );
    expect(titles(football.result)).toEqual(["Weekend football scores"]);
  });
});
