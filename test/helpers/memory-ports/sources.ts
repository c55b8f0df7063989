/**
 * The `Sources` port in memory: the calendars, feeds and forecasts a background sync would have cached, and
 * the seeding writes standing in for those syncs. No `refresh`: nothing here fetches.
 */
import { matchesKeyword } from "../../../db/queries/keywords.ts";
import type { FeedItemView } from "../../../src/core/domain.ts";
import type { SourceHealth, Sources } from "../../../src/core/ports.ts";
import { eventsInRange } from "./events.ts";
import { copyRow, type FeedItemRow, type FeedRow, type MemoryTables, UniqueViolation } from "./tables.ts";
import { compareText } from "./users.ts";

/** How many recent items interest ranking considers; older ones only appear through a topic. */
const INTEREST_WINDOW = 500;
const MAX_ITEMS = 200;

export function createMemorySources(tables: MemoryTables): Sources {
  return {
    events: async (owner, query) => eventsInRange(tables, owner, query),
    feedItems: async (userId, query) => feedItemsOf(tables, userId, query),
    forecast: async (place) => {
      const row = tables.forecasts.find(
        (forecast) =>
          forecast.latitude === roundCoordinate(place.latitude) &&
          forecast.longitude === roundCoordinate(place.longitude),
      );
      return row && copyRow(row);
    },
    health: async (userId) => {
      const ownerName = (id: number) => tables.users.find((user) => user.id === id)?.name ?? "";
      const calendars = tables.calendars
        .filter((row) => row.userId === userId)
        .sort((a, b) => compareText(ownerName(a.userId), ownerName(b.userId)) || a.id - b.id)
        .map(
          (row): SourceHealth => ({
            kind: "calendar",
            id: row.id,
            name: row.name,
            lastSuccessAt: row.lastSuccessAt,
            lastError: row.lastError,
          }),
        );
      const feeds = tables.feeds
        .filter((row) => row.userId === userId)
        .sort((a, b) => a.id - b.id)
        .map(
          (row): SourceHealth => ({
            kind: "feed",
            id: row.id,
            name: row.title,
            lastSuccessAt: row.lastSuccessAt,
            lastError: row.lastError,
          }),
        );
      return copyRow([...calendars, ...feeds]);
    },
  };
}

function feedItemsOf(
  tables: MemoryTables,
  userId: number,
  query: { max: number; topic?: string | undefined; interests?: readonly string[] | undefined },
): FeedItemView[] {
  const max = Math.max(0, Math.min(Math.floor(query.max), MAX_ITEMS));
  if (max === 0) return [];
  const topic = query.topic?.trim().toLowerCase();
  const feedOf = (item: FeedItemRow) => tables.feeds.find((feed) => feed.id === item.feedId);
  const interests = topic ? [] : normaliseTopics(query.interests ?? []);
  const rows = tables.feedItems
    .filter((item) => {
      if (item.userId !== userId) return false;
      const feed = feedOf(item);
      if (!feed) return false;
      return (
        !topic ||
        feed.topics.includes(topic) ||
        matchesKeyword(item.title, topic) ||
        matchesKeyword(item.summary, topic)
      );
    })
    .sort(
      (a, b) =>
        (b.publishedAt ?? b.fetchedAt).getTime() - (a.publishedAt ?? a.fetchedAt).getTime() || b.id - a.id,
    )
    .slice(0, interests.length > 0 ? Math.max(INTEREST_WINDOW, max) : max);
  const ranked = rows.map((item, position) => ({
    view: toView(item, feedOf(item) as FeedRow, interests),
    position,
  }));
  if (interests.length === 0) return ranked.map((entry) => entry.view);
  // Matching items claim slots first; the result is still shown newest first.
  const matching = ranked.filter((entry) => entry.view.matchedInterests.length > 0);
  const others = ranked.filter((entry) => entry.view.matchedInterests.length === 0);
  return [...matching, ...others]
    .slice(0, max)
    .sort((a, b) => a.position - b.position)
    .map((entry) => entry.view);
}

function toView(item: FeedItemRow, feed: FeedRow, interests: readonly string[]): FeedItemView {
  const text = `${item.title}\n${item.summary}`;
  return {
    id: item.id,
    feedId: item.feedId,
    feedTitle: feed.title,
    title: item.title,
    link: item.link,
    summary: item.summary,
    publishedAt: item.publishedAt && new Date(item.publishedAt),
    matchedInterests: interests.filter(
      (interest) => feed.topics.includes(interest) || matchesKeyword(text, interest),
    ),
  };
}

export function normaliseTopics(topics: readonly string[]): string[] {
  return [...new Set(topics.map((topic) => topic.trim().toLowerCase()).filter(Boolean))];
}

export function roundCoordinate(value: number): number {
  return Math.round(value * 100) / 100;
}

// ---------------------------------------------------------------------------------------------------------
// What the background syncs write, for seeding.

export function addMemoryFeed(
  tables: MemoryTables,
  values: { userId: number; url: string; topics?: readonly string[]; title?: string },
): FeedRow {
  const url = new URL(values.url.trim());
  url.hash = "";
  if (tables.feeds.some((row) => row.userId === values.userId && row.url === url.toString()))
    throw new UniqueViolation("feeds_user_url_idx");
  const feed: FeedRow = {
    id: tables.nextId("feeds"),
    userId: values.userId,
    url: url.toString(),
    title: values.title ?? "",
    topics: normaliseTopics(values.topics ?? []),
    lastSyncAt: null,
    lastSuccessAt: null,
    lastError: null,
    itemCount: 0,
    createdAt: tables.now(),
  };
  tables.feeds.push(feed);
  return copyRow(feed);
}

/** A successful sync: items upserted by (feed, guid), the feed's title and times updated. */
export function saveMemoryFeedSync(
  tables: MemoryTables,
  feed: Pick<FeedRow, "id" | "userId" | "title">,
  result: {
    title: string;
    at: Date;
    items: ReadonlyArray<{
      guid: string;
      title: string;
      link: string | null;
      summary: string;
      publishedAt: Date | null;
    }>;
  },
): void {
  for (const item of result.items) {
    const existing = tables.feedItems.find((row) => row.feedId === feed.id && row.guid === item.guid);
    if (existing) {
      Object.assign(existing, {
        title: item.title,
        link: item.link,
        summary: item.summary,
        publishedAt: item.publishedAt ?? existing.publishedAt,
      });
      continue;
    }
    tables.feedItems.push({
      id: tables.nextId("feed_items"),
      userId: feed.userId,
      feedId: feed.id,
      ...item,
      fetchedAt: result.at,
    });
  }
  const stored = tables.feeds.find((row) => row.id === feed.id);
  if (stored)
    Object.assign(stored, {
      title: result.title || feed.title,
      lastSyncAt: result.at,
      lastSuccessAt: result.at,
      lastError: null,
      itemCount: tables.feedItems.filter((row) => row.feedId === feed.id).length,
    });
}

export function saveMemoryForecast(
  tables: MemoryTables,
  place: { latitude: number; longitude: number },
  payload: Record<string, unknown>,
  fetchedAt: Date,
): void {
  const latitude = roundCoordinate(place.latitude);
  const longitude = roundCoordinate(place.longitude);
  const existing = tables.forecasts.find((row) => row.latitude === latitude && row.longitude === longitude);
  if (existing) Object.assign(existing, { payload: copyRow(payload), fetchedAt });
  else tables.forecasts.push({ latitude, longitude, payload: copyRow(payload), fetchedAt });
}
