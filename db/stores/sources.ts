/** What the background syncs cached, read for tools: events in a range, feed items, the forecast, sync health. */
import type { Database } from "../client.ts";
import { listCalendars } from "../queries/calendars.ts";
import { type EventOwner, type EventRange, listEvents } from "../queries/events.ts";
import { type ListFeedItemsOptions, listFeedItems, listFeeds } from "../queries/feeds.ts";
import { readCachedForecast } from "../queries/weather.ts";

export function createSources(db: Database) {
  return {
    events: (owner: EventOwner, query: { range: EventRange; days?: number; now: Date }) =>
      listEvents(db, owner, query),
    feedItems: (userId: number, query: ListFeedItemsOptions) => listFeedItems(db, { id: userId }, query),
    forecast: (place: { latitude: number; longitude: number }) =>
      readCachedForecast(db, place.latitude, place.longitude),
    /** How each of the user's calendars and feeds last synced. */
    health: async (userId: number) => {
      const [calendars, feeds] = await Promise.all([listCalendars(db, userId), listFeeds(db, { userId })]);
      return [
        ...calendars.map((calendar) => ({
          kind: "calendar" as const,
          id: calendar.id,
          name: calendar.name,
          lastSuccessAt: calendar.lastSuccessAt,
          lastError: calendar.lastError,
        })),
        ...feeds.map((feed) => ({
          kind: "feed" as const,
          id: feed.id,
          name: feed.title,
          lastSuccessAt: feed.lastSuccessAt,
          lastError: feed.lastError,
        })),
      ];
    },
  };
}
