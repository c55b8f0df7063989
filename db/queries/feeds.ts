import { and, asc, count, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { FeedItemView } from "../../src/core/domain.ts";
import { BriefbotError } from "../../src/core/errors.ts";
import type { Database } from "../client.ts";
import { type Feed, type FeedItem, feedItems, feeds, users } from "../schema/index.ts";
import { matchesKeyword } from "./keywords.ts";

export type { FeedItemView };

export class FeedExistsError extends BriefbotError {
  constructor(readonly feed: Feed) {
    super("already_subscribed", `already subscribed to ${feed.url} (feed ${feed.id})`);
  }
}

export class InvalidFeedUrlError extends BriefbotError {
  constructor(url: string) {
    super("invalid_input", `"${url}" is not an http(s) feed address`);
  }
}

/** Topics are matched case-insensitively, so they are stored lower-cased and de-duplicated. */
export function normaliseTopics(topics: readonly string[]): string[] {
  return [...new Set(topics.map((topic) => topic.trim().toLowerCase()).filter(Boolean))];
}

export function normaliseFeedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new InvalidFeedUrlError(url);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new InvalidFeedUrlError(url);
  parsed.hash = "";
  return parsed.toString();
}

export async function addFeed(
  db: Database,
  values: { userId: number; url: string; topics?: readonly string[] },
): Promise<Feed> {
  const url = normaliseFeedUrl(values.url);
  const [feed] = await db
    .insert(feeds)
    .values({ userId: values.userId, url, topics: normaliseTopics(values.topics ?? []) })
    .onConflictDoNothing({ target: [feeds.userId, feeds.url] })
    .returning();
  if (feed) return feed;
  const [existing] = await db
    .select()
    .from(feeds)
    .where(and(eq(feeds.userId, values.userId), eq(feeds.url, url)));
  if (!existing) throw new Error(`feed ${url} neither inserted nor found`);
  throw new FeedExistsError(existing);
}

/** Unsubscribes: the feed and (by cascade) its items go. False when the user has no such feed. */
export async function removeFeed(db: Database, userId: number, id: number): Promise<boolean> {
  const deleted = await db
    .delete(feeds)
    .where(and(eq(feeds.id, id), eq(feeds.userId, userId)))
    .returning({ id: feeds.id });
  return deleted.length > 0;
}

export async function getFeed(db: Database, id: number): Promise<Feed | undefined> {
  const [feed] = await db.select().from(feeds).where(eq(feeds.id, id));
  return feed;
}

export type FeedWithOwner = Feed & { userName: string };

/** Every feed, or one user's, ordered by owner then id. */
export async function listFeeds(db: Database, filter: { userId?: number } = {}): Promise<FeedWithOwner[]> {
  return db
    .select({ ...getTableColumns(feeds), userName: users.name })
    .from(feeds)
    .innerJoin(users, eq(users.id, feeds.userId))
    .where(filter.userId === undefined ? undefined : eq(feeds.userId, filter.userId))
    .orderBy(asc(users.name), asc(feeds.id));
}

export interface FeedItemInput {
  guid: string;
  title: string;
  link: string | null;
  summary: string;
  publishedAt: Date | null;
}

/**
 * Stores a successful sync in one transaction: items upserted by (feedId, guid), then the feed's
 * validators, title and counts. Returns how many items were new.
 */
export async function saveFeedSync(
  db: Database,
  feed: Pick<Feed, "id" | "userId" | "title">,
  result: {
    title: string;
    items: readonly FeedItemInput[];
    etag: string | null;
    lastModified: string | null;
    at: Date;
  },
): Promise<{ newItems: number; itemCount: number }> {
  const unique = new Map<string, FeedItemInput>();
  // ON CONFLICT cannot touch the same row twice in one statement; the first occurrence wins.
  for (const item of result.items) if (!unique.has(item.guid)) unique.set(item.guid, item);
  const rows = [...unique.values()].map((item) => ({
    userId: feed.userId,
    feedId: feed.id,
    guid: item.guid,
    title: item.title,
    link: item.link,
    summary: item.summary,
    publishedAt: item.publishedAt,
    fetchedAt: result.at,
  }));

  return db.transaction(async (tx) => {
    let newItems = 0;
    for (let start = 0; start < rows.length; start += 200) {
      const inserted = await tx
        .insert(feedItems)
        .values(rows.slice(start, start + 200))
        .onConflictDoUpdate({
          target: [feedItems.feedId, feedItems.guid],
          set: {
            title: sql`excluded.title`,
            link: sql`excluded.link`,
            summary: sql`excluded.summary`,
            publishedAt: sql`coalesce(excluded.published_at, ${feedItems.publishedAt})`,
          },
        })
        // xmax = 0 only on rows this statement inserted, so updates are not counted as new.
        .returning({ inserted: sql<boolean>`(xmax = 0)` });
      newItems += inserted.filter((row) => row.inserted).length;
    }
    const [counted] = await tx
      .select({ value: count() })
      .from(feedItems)
      .where(eq(feedItems.feedId, feed.id));
    const itemCount = counted?.value ?? 0;
    await tx
      .update(feeds)
      .set({
        title: result.title || feed.title,
        etag: result.etag,
        lastModified: result.lastModified,
        lastSyncAt: result.at,
        lastSuccessAt: result.at,
        lastError: null,
        itemCount,
      })
      .where(eq(feeds.id, feed.id));
    return { newItems, itemCount };
  });
}

/** 304: the server vouched for what we have, so only the sync times move. */
export async function markFeedNotModified(db: Database, feedId: number, at: Date): Promise<void> {
  await db
    .update(feeds)
    .set({ lastSyncAt: at, lastSuccessAt: at, lastError: null })
    .where(eq(feeds.id, feedId));
}

/** A failed sync records why and keeps every stored item. */
export async function markFeedFailed(db: Database, feedId: number, at: Date, error: string): Promise<void> {
  await db
    .update(feeds)
    .set({ lastSyncAt: at, lastError: error.slice(0, 1000) })
    .where(eq(feeds.id, feedId));
}

export interface ListFeedItemsOptions {
  max: number;
  /** Items from feeds tagged with this topic, or whose title/summary mention it. */
  topic?: string | undefined;
  /** Used when no topic is given: items mentioning an interest take the available slots first. */
  interests?: readonly string[] | undefined;
}

/** How many recent items interest ranking considers; older ones only appear through a topic. */
const INTEREST_WINDOW = 500;

/** The user's feed items, newest first (undated items by when we fetched them). */
export async function listFeedItems(
  db: Database,
  user: { id: number },
  options: ListFeedItemsOptions,
): Promise<FeedItemView[]> {
  const max = Math.max(0, Math.min(Math.floor(options.max), 200));
  if (max === 0) return [];
  const topic = options.topic?.trim().toLowerCase();
  const conditions: SQL[] = [eq(feedItems.userId, user.id)];
  if (topic) conditions.push(topicCondition(topic));

  const interests = topic ? [] : normaliseTopics(options.interests ?? []);
  const rows = await db
    .select({
      item: feedItems,
      feedTitle: feeds.title,
      feedTopics: feeds.topics,
    })
    .from(feedItems)
    .innerJoin(feeds, eq(feeds.id, feedItems.feedId))
    .where(and(...conditions))
    .orderBy(desc(sql`coalesce(${feedItems.publishedAt}, ${feedItems.fetchedAt})`), desc(feedItems.id))
    .limit(interests.length > 0 ? Math.max(INTEREST_WINDOW, max) : max);

  // `position` is the newest-first query order, restored after ranking.
  const ranked = rows.map((row, position) => ({
    view: toView(row.item, row.feedTitle, row.feedTopics, interests),
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

function topicCondition(topic: string): SQL {
  const escaped = topic.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+");
  const pattern = `\\m${escaped}${topic.length <= 3 ? "\\M" : ""}`;
  return sql`(${feeds.topics} @> ${JSON.stringify([topic])}::jsonb or ${feedItems.title} ~* ${pattern} or ${feedItems.summary} ~* ${pattern})`;
}

function toView(item: FeedItem, feedTitle: string, feedTopics: string[], interests: readonly string[]) {
  const text = `${item.title}\n${item.summary}`;
  const matchedInterests = interests.filter(
    (interest) => feedTopics.includes(interest) || matchesKeyword(text, interest),
  );
  return {
    id: item.id,
    feedId: item.feedId,
    feedTitle,
    title: item.title,
    link: item.link,
    summary: item.summary,
    publishedAt: item.publishedAt,
    matchedInterests,
  };
}
