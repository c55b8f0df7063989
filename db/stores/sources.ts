/** What the background syncs cached, read for tools: events in a range, feed items, the forecast. */
import type { Database } from "../client.ts";
import { type EventOwner, type EventRange, listEvents } from "../queries/events.ts";
import { type ListFeedItemsOptions, listFeedItems } from "../queries/feeds.ts";
import { readCachedForecast } from "../queries/weather.ts";

export function createSources(db: Database) {
  return {
    events: (owner: EventOwner, query: { range: EventRange; days?: number; now: Date }) =>
      listEvents(db, owner, query),
    feedItems: (userId: number, query: ListFeedItemsOptions) => listFeedItems(db, { id: userId }, query),
    forecast: (place: { latitude: number; longitude: number }) =>
      readCachedForecast(db, place.latitude, place.longitude),
  };
}
