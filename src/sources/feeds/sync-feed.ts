/**
 * Feed sync: fetch with ETag/Last-Modified, parse, upsert. A failing feed records `lastError` and keeps
 * the items it had; nothing here throws for a bad feed.
 */
import type { Database } from "../../../db/client.ts";
import {
  getFeed,
  listFeeds,
  markFeedFailed,
  markFeedNotModified,
  saveFeedSync,
} from "../../../db/queries/feeds.ts";
import { findUserByName } from "../../../db/queries/users.ts";
import type { Feed } from "../../../db/schema/index.ts";
import type { Clock } from "../../core/clock.ts";
import { NotFoundError } from "../../core/errors.ts";
import { redactAddress, redactAddressesIn } from "../../core/redact.ts";
import { type FetchFunction, fetchWithCache } from "../http-cache-fetch.ts";
import type { NetworkPolicy } from "../network/address-policy.ts";
import { errorMessage, type PeriodicSync, type SyncLogger, startPeriodicSync } from "../periodic-sync.ts";
import { type SourceLeases, sourceLeaseName, unsharedSources } from "../source-lease.ts";
import { storableSnippet } from "../storable-text.ts";
import { parseFeedDocument } from "./parse-feed.ts";

export interface FeedSyncDeps {
  fetch: FetchFunction;
  clock: Clock;
  /** Per-request limit; default 15 s. */
  timeoutMs?: number;
  /** Per-response limit; default 5 MB. */
  maxBytes?: number;
  /** Which addresses feed fetches and their redirects may reach; default public only. */
  network?: NetworkPolicy;
}

export type FeedSyncResult =
  | { feedId: number; url: string; status: "ok"; itemCount: number; newItems: number }
  | { feedId: number; url: string; status: "not-modified"; itemCount: number }
  | { feedId: number; url: string; status: "error"; itemCount: number; error: string };

export const FEED_REQUEST_HEADERS = {
  Accept:
    "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5",
  "User-Agent": "briefbot/0.1 (feed reader)",
};

export async function syncFeed(db: Database, feedId: number, deps: FeedSyncDeps): Promise<FeedSyncResult> {
  const feed = await getFeed(db, feedId);
  if (!feed) throw new Error(`no feed with id ${feedId}`);
  return syncLoadedFeed(db, feed, deps);
}

async function syncLoadedFeed(db: Database, feed: Feed, deps: FeedSyncDeps): Promise<FeedSyncResult> {
  const base = { feedId: feed.id, url: feed.url };
  try {
    const response = await fetchWithCache(deps.fetch, feed.url, {
      etag: feed.etag,
      lastModified: feed.lastModified,
      headers: FEED_REQUEST_HEADERS,
      ...(deps.timeoutMs === undefined ? {} : { timeoutMs: deps.timeoutMs }),
      ...(deps.maxBytes === undefined ? {} : { maxBytes: deps.maxBytes }),
      ...(deps.network === undefined ? {} : { network: deps.network }),
    });
    if (response.status === "not-modified") {
      await markFeedNotModified(db, feed.id, deps.clock.now());
      return { ...base, status: "not-modified", itemCount: feed.itemCount };
    }
    const parsed = parseFeedDocument(response.body, feed.url);
    const saved = await saveFeedSync(db, feed, {
      title: parsed.title,
      items: parsed.items,
      etag: response.etag ?? null,
      lastModified: response.lastModified ?? null,
      at: deps.clock.now(),
    });
    return { ...base, status: "ok", ...saved };
  } catch (error) {
    // Messages quote the offending input; PostgreSQL must be able to store them.
    const message = storableSnippet(errorMessage(error), 1000);
    await markFeedFailed(db, feed.id, deps.clock.now(), message);
    return { ...base, status: "error", itemCount: feed.itemCount, error: message };
  }
}

export interface SyncAllFeedsOptions extends FeedSyncDeps {
  /** Only this user's feeds. */
  userName?: string | undefined;
  /** Called after each feed, in completion order. */
  onProgress?: ((result: FeedSyncResult, done: number, total: number) => void) | undefined;
  /** Feeds fetched at once; default 4. */
  concurrency?: number;
  /** Shared by the processes on one database: a feed another one is fetching is left out. */
  leases?: SourceLeases;
}

/** Syncs every feed (or one user's). Throws only for an unknown user name. */
export async function syncAllFeeds(db: Database, options: SyncAllFeedsOptions): Promise<FeedSyncResult[]> {
  let userId: number | undefined;
  if (options.userName !== undefined) {
    const user = await findUserByName(db, options.userName);
    if (!user) throw new NotFoundError(`no user named "${options.userName}" (see: briefbot user list)`);
    userId = user.id;
  }
  const pending = await listFeeds(db, userId === undefined ? {} : { userId });
  const results: FeedSyncResult[] = [];
  const total = pending.length;
  const guard = options.leases ?? unsharedSources;
  const workers = Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 4, total)) }, async () => {
    for (let feed = pending.shift(); feed; feed = pending.shift()) {
      const loaded = feed;
      const outcome = await guard
        .exclusive(sourceLeaseName.feed(feed.id), () => syncLoadedFeed(db, loaded, options))
        .catch((error: unknown) => ({ ran: true as const, value: failed(loaded, error) }));
      // Another process is fetching it; what it gets lands in the same rows.
      if (!outcome.ran) continue;
      const result = outcome.value;
      results.push(result);
      try {
        options.onProgress?.(result, results.length, total);
      } catch {
        // A broken progress printer must not stop the sync.
      }
    }
  });
  await Promise.all(workers);
  return results;
}

function failed(feed: Feed, error: unknown): FeedSyncResult {
  return {
    feedId: feed.id,
    url: feed.url,
    status: "error",
    itemCount: feed.itemCount,
    error: errorMessage(error),
  };
}

export interface FeedSyncLoopOptions extends FeedSyncDeps {
  db: Database;
  /** Default 30 minutes. */
  intervalMs?: number;
  logger?: SyncLogger | undefined;
  /** One fetch per feed across the processes on the database. */
  leases?: SourceLeases;
}

export const DEFAULT_FEED_SYNC_INTERVAL_MS = 30 * 60 * 1000;

/** Background sync of every feed: now, then every `intervalMs`. */
export function startFeedSync(options: FeedSyncLoopOptions): PeriodicSync {
  const { db, logger } = options;
  return startPeriodicSync({
    name: "feed",
    intervalMs: options.intervalMs ?? DEFAULT_FEED_SYNC_INTERVAL_MS,
    logger,
    run: async () => {
      const results = await syncAllFeeds(db, options);
      for (const result of results) {
        if (result.status === "error")
          logger?.warn(
            // Private feeds carry tokens in their address; logs get it redacted.
            { feedId: result.feedId, url: redactAddress(result.url), error: redactAddressesIn(result.error) },
            "feed sync failed",
          );
      }
      const changed = results.filter((result) => result.status === "ok").length;
      logger?.info({ feeds: results.length, changed }, "feeds synced");
    },
  });
}
