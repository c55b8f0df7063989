import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { accounts } from "./accounts.ts";
import { eventStatusEnum } from "./enums.ts";
import { users } from "./users.ts";

/** An iCalendar subscription: a secret ICS address or a local .ics file. */
export const calendars = pgTable(
  "calendars",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    source: text().notNull(),
    name: text().notNull().default(""),
    etag: text(),
    lastModified: text(),
    lastSyncAt: timestamp({ withTimezone: true }),
    lastSuccessAt: timestamp({ withTimezone: true }),
    lastError: text(),
    eventCount: integer().notNull().default(0),
    /**
     * The last good ICS text of an http(s) subscription (within the fetch size limit), so a 304 can be
     * expanded again for the current window; null for local files and before the first good fetch.
     */
    body: text(),
    /** What the last successful expansion could not read cleanly (skipped events, unknown zones). */
    lastWarnings: jsonb().$type<string[]>().notNull().default([]),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("calendars_user_source_idx").on(t.userId, t.source)],
);
export type Calendar = typeof calendars.$inferSelect;

/**
 * One stored occurrence. Synced rows are expanded instances of a window around now; rows with a null
 * `calendarId` were created in chat and are never touched by a sync.
 */
export const events = pgTable(
  "events",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    calendarId: integer().references(() => calendars.id, { onDelete: "cascade" }),
    /** iCalendar UID (synced) or a generated id (chat). */
    uid: text().notNull(),
    /** Identifies the occurrence within a recurring series: its original start, ISO. */
    instanceKey: text().notNull().default(""),
    title: text().notNull(),
    description: text().notNull().default(""),
    location: text().notNull().default(""),
    allDay: boolean().notNull().default(false),
    /** Instants for timed events; for all-day events the local midnights in the user's zone at sync time. */
    startsAt: timestamp({ withTimezone: true }).notNull(),
    endsAt: timestamp({ withTimezone: true }).notNull(),
    /** All-day events: local dates "YYYY-MM-DD", end exclusive, so they never shift across zones. */
    startDate: text(),
    endDate: text(),
    /** The zone the event was written in (TZID), for display. */
    timeZone: text(),
    status: eventStatusEnum().notNull().default("confirmed"),
    /** An occurrence derived from an account's VEVENT: as on `tasks`. Null for ICS and chat events. */
    accountId: integer().references(() => accounts.id, { onDelete: "cascade" }),
    accountCollectionId: text(),
    remoteId: text(),
    sourceName: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("events_user_start_idx").on(t.userId, t.startsAt),
    index("events_user_dates_idx").on(t.userId, t.startDate),
    uniqueIndex("events_calendar_instance_idx").on(t.calendarId, t.uid, t.instanceKey),
    index("events_account_remote_idx").on(t.accountId, t.accountCollectionId, t.remoteId),
  ],
);
export type CalendarEvent = typeof events.$inferSelect;
export type NewCalendarEvent = typeof events.$inferInsert;

export const feeds = pgTable(
  "feeds",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    url: text().notNull(),
    title: text().notNull().default(""),
    /** Per-feed topics used by get_rss_items(topic). */
    topics: jsonb().$type<string[]>().notNull().default([]),
    etag: text(),
    lastModified: text(),
    lastSyncAt: timestamp({ withTimezone: true }),
    lastSuccessAt: timestamp({ withTimezone: true }),
    lastError: text(),
    itemCount: integer().notNull().default(0),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("feeds_user_url_idx").on(t.userId, t.url)],
);
export type Feed = typeof feeds.$inferSelect;

export const feedItems = pgTable(
  "feed_items",
  {
    id: serial().primaryKey(),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    feedId: integer()
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
    /** Dedupe key: guid, else id, else link. */
    guid: text().notNull(),
    title: text().notNull(),
    link: text(),
    summary: text().notNull().default(""),
    publishedAt: timestamp({ withTimezone: true }),
    fetchedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("feed_items_feed_guid_idx").on(t.feedId, t.guid),
    index("feed_items_user_published_idx").on(t.userId, t.publishedAt),
  ],
);
export type FeedItem = typeof feedItems.$inferSelect;

/** Forecasts keyed by rounded coordinates, shared by users at the same place. */
export const weatherCache = pgTable(
  "weather_cache",
  {
    id: serial().primaryKey(),
    latitude: doublePrecision().notNull(),
    longitude: doublePrecision().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    fetchedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("weather_cache_coords_idx").on(t.latitude, t.longitude)],
);
export type WeatherCacheRow = typeof weatherCache.$inferSelect;
