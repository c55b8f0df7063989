import { randomUUID } from "node:crypto";
import { and, eq, gt, gte, isNull, lt, ne, or, sql } from "drizzle-orm";
import { DateTime } from "luxon";
import type { ChatEventChanges, EventRange, EventView, NewChatEvent } from "../../src/core/domain.ts";
import { BriefbotError } from "../../src/core/errors.ts";
import type { Database } from "../client.ts";
import { type CalendarEvent, calendars, events, type NewCalendarEvent } from "../schema/index.ts";

export type { ChatEventChanges, EventRange, EventView, NewChatEvent };

export const EVENT_RANGES = ["today", "tomorrow", "upcoming"] as const;
/** Whose calendar, and which "today": ranges are the user's local days. */
export interface EventOwner {
  id: number;
  timeZone: string;
}

const UPCOMING_DEFAULT_DAYS = 7;
const MAX_DAYS = 60;

/**
 * Events on the user's local days: "today", "tomorrow", or "upcoming" (from now to the end of the local
 * day `days` ahead, default 7). All-day events match on their local dates, timed events on any overlap;
 * cancelled events are left out; synced and chat-created events together, sorted by start.
 */
export async function listEvents(
  db: Database,
  owner: EventOwner,
  options: { range: EventRange; days?: number; now: Date },
): Promise<EventView[]> {
  const zone = owner.timeZone;
  const today = DateTime.fromJSDate(options.now, { zone }).startOf("day");
  let from: DateTime;
  let to: DateTime;
  if (options.range === "today") {
    from = today;
    to = today.plus({ days: 1 });
  } else if (options.range === "tomorrow") {
    from = today.plus({ days: 1 });
    to = today.plus({ days: 2 });
  } else {
    const days = Math.min(Math.max(1, Math.floor(options.days ?? UPCOMING_DEFAULT_DAYS)), MAX_DAYS);
    from = DateTime.fromJSDate(options.now, { zone });
    to = today.plus({ days: days + 1 });
  }
  const fromDate = from.toISODate() ?? "";
  const toDate = to.toISODate() ?? "";
  const fromInstant = from.toJSDate();
  const toInstant = to.toJSDate();

  const rows = await db
    .select()
    .from(events)
    .where(
      and(
        eq(events.userId, owner.id),
        ne(events.status, "cancelled"),
        or(
          and(eq(events.allDay, true), lt(events.startDate, toDate), gt(events.endDate, fromDate)),
          and(
            eq(events.allDay, false),
            lt(events.startsAt, toInstant),
            or(
              gt(events.endsAt, fromInstant),
              and(eq(events.endsAt, events.startsAt), gte(events.startsAt, fromInstant)),
            ),
          ),
        ),
      ),
    );

  return rows
    .map((row) => toView(row, zone, fromDate, toDate))
    .sort((a, b) => sortKey(a, zone) - sortKey(b, zone) || a.title.localeCompare(b.title) || a.id - b.id);
}

function toView(row: CalendarEvent, zone: string, fromDate: string, toDate: string): EventView {
  const local = (instant: Date) => DateTime.fromJSDate(instant, { zone });
  let start: string;
  let end: string;
  let firstDay: string;
  let lastDay: string;
  if (row.allDay && row.startDate && row.endDate) {
    start = row.startDate;
    end = shiftDate(row.endDate, -1);
    firstDay = row.startDate;
    lastDay = end;
  } else {
    start = local(row.startsAt).toFormat("yyyy-MM-dd HH:mm");
    end = local(row.endsAt).toFormat("yyyy-MM-dd HH:mm");
    firstDay = local(row.startsAt).toISODate() ?? "";
    // An event ending at midnight is not on the next day.
    const endsAt = row.endsAt > row.startsAt ? new Date(row.endsAt.getTime() - 1) : row.endsAt;
    lastDay = local(endsAt).toISODate() ?? firstDay;
  }
  const days: string[] = [];
  for (
    let day = firstDay < fromDate ? fromDate : firstDay;
    day <= lastDay && day < toDate;
    day = shiftDate(day, 1)
  ) {
    days.push(day);
    if (days.length > MAX_DAYS) break;
  }
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    location: row.location,
    allDay: row.allDay,
    start,
    end,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    days,
    status: row.status === "tentative" ? "tentative" : "confirmed",
    source: row.calendarId === null && !row.accountId ? "chat" : "calendar",
    calendarId: row.calendarId,
    ...(row.sourceName ? { from: row.sourceName } : {}),
  };
}

/** All-day events sort at their local midnight in the user's current zone (the stored instant may be from another zone). */
function sortKey(view: EventView, zone: string): number {
  if (view.allDay) return DateTime.fromISO(view.start, { zone }).toMillis();
  return Date.parse(view.startsAt);
}

function shiftDate(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: "UTC" }).plus({ days }).toISODate() ?? date;
}

// ---------------------------------------------------------------------------------------------------------
// Chat-created events. Only rows with a null calendarId belong to chat; synced rows are read-only here,
// since the next sync would overwrite any change.

export class EventInputError extends BriefbotError {
  constructor(message: string) {
    super("invalid_input", message);
  }
}

export async function createEvent(db: Database, userId: number, input: NewChatEvent): Promise<CalendarEvent> {
  const values: NewCalendarEvent = {
    userId,
    calendarId: null,
    uid: `chat-${randomUUID()}`,
    instanceKey: "",
    title: requireTitle(input.title),
    description: input.description ?? "",
    location: input.location ?? "",
    status: input.status ?? "confirmed",
    ...timing(input, input.timeZone),
  };
  const [row] = await db.insert(events).values(values).returning();
  if (!row) throw new Error("event insert returned nothing");
  return row;
}

/** Any of the user's events (synced or chat), or undefined — never another user's. */
export async function getEvent(db: Database, userId: number, id: number): Promise<CalendarEvent | undefined> {
  const [row] = await db
    .select()
    .from(events)
    .where(and(eq(events.id, id), eq(events.userId, userId)))
    .limit(1);
  return row;
}

/** Changes a chat-created event of this user; undefined when there is no such event. */
export async function updateEvent(
  db: Database,
  userId: number,
  id: number,
  changes: ChatEventChanges,
  timeZone: string,
  now: Date,
): Promise<CalendarEvent | undefined> {
  const set: Partial<NewCalendarEvent> = { updatedAt: now };
  if (changes.title !== undefined) set.title = requireTitle(changes.title);
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.location !== undefined) set.location = changes.location;
  if (changes.status !== undefined) set.status = changes.status;
  if (changes.allDay !== undefined) Object.assign(set, timing(changes, timeZone));
  const [row] = await db
    .update(events)
    .set(set)
    .where(
      and(eq(events.id, id), eq(events.userId, userId), isNull(events.calendarId), isNull(events.accountId)),
    )
    .returning();
  return row;
}

export async function deleteEvent(db: Database, userId: number, id: number): Promise<boolean> {
  const deleted = await db
    .delete(events)
    .where(
      and(eq(events.id, id), eq(events.userId, userId), isNull(events.calendarId), isNull(events.accountId)),
    )
    .returning({ id: events.id });
  return deleted.length > 0;
}

function requireTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed === "") throw new EventInputError("an event needs a title");
  return trimmed.slice(0, 500);
}

function timing(
  input: { allDay?: boolean; startsAt?: Date; endsAt?: Date; startDate?: string; endDate?: string },
  timeZone: string,
): Pick<NewCalendarEvent, "allDay" | "startsAt" | "endsAt" | "startDate" | "endDate" | "timeZone"> {
  if (input.allDay) {
    const startDate = requireDate(input.startDate);
    const endDate = input.endDate === undefined ? shiftDate(startDate, 1) : requireDate(input.endDate);
    if (endDate <= startDate)
      throw new EventInputError("an all-day event's end date must be after its start date");
    return {
      allDay: true,
      startDate,
      endDate,
      startsAt: DateTime.fromISO(startDate, { zone: timeZone }).toJSDate(),
      endsAt: DateTime.fromISO(endDate, { zone: timeZone }).toJSDate(),
      timeZone: null,
    };
  }
  const startsAt = input.startsAt;
  if (!startsAt || Number.isNaN(startsAt.getTime()))
    throw new EventInputError("an event needs a valid start");
  const endsAt = input.endsAt ?? new Date(startsAt.getTime() + 3_600_000);
  if (Number.isNaN(endsAt.getTime()) || endsAt < startsAt)
    throw new EventInputError("an event cannot end before it starts");
  return { allDay: false, startsAt, endsAt, startDate: null, endDate: null, timeZone };
}

function requireDate(value: string | undefined): string {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value) || !DateTime.fromISO(value).isValid) {
    throw new EventInputError(`"${value ?? ""}" is not a date (YYYY-MM-DD)`);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------------
// Sync storage.

export type SyncedInstance = Omit<
  NewCalendarEvent,
  "id" | "userId" | "calendarId" | "createdAt" | "updatedAt"
>;

const INSERT_CHUNK = 500;
/** A broken calendar can warn once per event; the first ones say what is wrong. */
const MAX_STORED_WARNINGS = 100;
/** Past occurrences are kept this long for "what did I have last week" questions, then pruned. */
const KEEP_PAST_MS = 60 * 86_400_000;

/**
 * Replaces one calendar's occurrences from the window start onwards with a fresh expansion and marks the
 * sync successful, in one transaction: a reader sees the old set or the new one, never a mix or nothing.
 * Rows with a null calendarId (chat) are never matched.
 */
export async function replaceCalendarEvents(
  db: Database,
  calendar: { id: number; userId: number },
  instances: SyncedInstance[],
  sync: {
    windowStart: Date;
    at: Date;
    etag?: string | null;
    lastModified?: string | null;
    name?: string;
    /** The ICS text just fetched; undefined leaves the stored body as it is (a 304 re-expansion). */
    body?: string | null;
    warnings?: string[];
  },
): Promise<void> {
  await db.transaction(async (tx) => {
    const mine = eq(events.calendarId, calendar.id);
    await tx
      .delete(events)
      .where(
        and(
          mine,
          or(
            gte(events.endsAt, sync.windowStart),
            gte(events.startsAt, sync.windowStart),
            lt(events.endsAt, new Date(sync.windowStart.getTime() - KEEP_PAST_MS)),
          ),
        ),
      );
    for (let index = 0; index < instances.length; index += INSERT_CHUNK) {
      const chunk = instances.slice(index, index + INSERT_CHUNK).map((instance) => ({
        ...instance,
        userId: calendar.userId,
        calendarId: calendar.id,
        updatedAt: sync.at,
      }));
      await tx
        .insert(events)
        .values(chunk)
        .onConflictDoUpdate({
          target: [events.calendarId, events.uid, events.instanceKey],
          set: {
            title: sql`excluded.title`,
            description: sql`excluded.description`,
            location: sql`excluded.location`,
            allDay: sql`excluded.all_day`,
            startsAt: sql`excluded.starts_at`,
            endsAt: sql`excluded.ends_at`,
            startDate: sql`excluded.start_date`,
            endDate: sql`excluded.end_date`,
            timeZone: sql`excluded.time_zone`,
            status: sql`excluded.status`,
            updatedAt: sql`excluded.updated_at`,
          },
        });
    }
    await tx
      .update(calendars)
      .set({
        lastSyncAt: sync.at,
        lastSuccessAt: sync.at,
        lastError: null,
        eventCount: instances.length,
        ...(sync.etag !== undefined ? { etag: sync.etag } : {}),
        ...(sync.lastModified !== undefined ? { lastModified: sync.lastModified } : {}),
        ...(sync.name ? { name: sync.name } : {}),
        ...(sync.body !== undefined ? { body: sync.body } : {}),
        lastWarnings: (sync.warnings ?? []).slice(0, MAX_STORED_WARNINGS),
      })
      .where(eq(calendars.id, calendar.id));
  });
}
