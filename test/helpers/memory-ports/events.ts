/**
 * Calendar events in memory: the chat-created ones `Records` changes (a synced row is read-only there, the
 * next sync would overwrite it) and the user's local days as `Sources.events` reads them.
 */
import { randomUUID } from "node:crypto";
import { DateTime } from "luxon";
import type { EventQuery, EventView } from "../../../src/core/domain.ts";
import type { Records } from "../../../src/core/ports.ts";
import { copyRow, type EventRow, type MemoryTables, removeWhere } from "./tables.ts";

const UPCOMING_DEFAULT_DAYS = 7;
const MAX_DAYS = 60;

/** Bad event input: the same words the database store uses, for the model to read. */
export class EventInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EventInputError";
  }
}

type ChatEventPort = Pick<Records, "getEvent" | "createEvent" | "updateEvent" | "deleteEvent">;

export function createMemoryChatEvents(tables: MemoryTables): ChatEventPort {
  const chatEvent = (userId: number, id: number) =>
    tables.events.find(
      (row) => row.id === id && row.userId === userId && row.calendarId === null && !row.accountId,
    );
  return {
    getEvent: async (userId, id) => {
      const row = tables.events.find((event) => event.id === id && event.userId === userId);
      return row && copyRow(row);
    },
    async createEvent(userId, input) {
      const at = tables.now();
      const row: EventRow = {
        id: tables.nextId("events"),
        userId,
        calendarId: null,
        uid: `chat-${randomUUID()}`,
        instanceKey: "",
        title: requireTitle(input.title),
        description: input.description ?? "",
        location: input.location ?? "",
        status: input.status ?? "confirmed",
        ...timing(input, input.timeZone),
        createdAt: at,
        updatedAt: at,
      };
      tables.events.push(row);
      return copyRow(row);
    },
    async updateEvent(userId, id, changes, timeZone, now) {
      // Everything is worked out (and may refuse) before the row changes, as one UPDATE would.
      const set: Partial<EventRow> = { updatedAt: now };
      if (changes.title !== undefined) set.title = requireTitle(changes.title);
      if (changes.description !== undefined) set.description = changes.description;
      if (changes.location !== undefined) set.location = changes.location;
      if (changes.status !== undefined) set.status = changes.status;
      if (changes.allDay !== undefined) Object.assign(set, timing(changes, timeZone));
      const row = chatEvent(userId, id);
      if (!row) return undefined;
      Object.assign(row, set);
      return copyRow(row);
    },
    deleteEvent: async (userId, id) =>
      removeWhere(
        tables.events,
        (row) => row.id === id && row.userId === userId && row.calendarId === null && !row.accountId,
      ).length > 0,
  };
}

/**
 * Events on the user's local days: today, tomorrow, or upcoming (now to the end of the local day `days`
 * ahead). All-day events match on their local dates, timed ones on any overlap; cancelled ones are left out.
 */
export function eventsInRange(
  tables: MemoryTables,
  owner: { id: number; timeZone: string },
  query: EventQuery,
): EventView[] {
  const zone = owner.timeZone;
  const today = DateTime.fromJSDate(query.now, { zone }).startOf("day");
  let from: DateTime;
  let to: DateTime;
  if (query.range === "today") {
    from = today;
    to = today.plus({ days: 1 });
  } else if (query.range === "tomorrow") {
    from = today.plus({ days: 1 });
    to = today.plus({ days: 2 });
  } else {
    const days = Math.min(Math.max(1, Math.floor(query.days ?? UPCOMING_DEFAULT_DAYS)), MAX_DAYS);
    from = DateTime.fromJSDate(query.now, { zone });
    to = today.plus({ days: days + 1 });
  }
  const fromDate = from.toISODate() ?? "";
  const toDate = to.toISODate() ?? "";
  const fromInstant = from.toJSDate();
  const toInstant = to.toJSDate();
  return tables.events
    .filter((row) => {
      if (row.userId !== owner.id || row.status === "cancelled") return false;
      if (row.allDay)
        return (
          row.startDate !== null && row.endDate !== null && row.startDate < toDate && row.endDate > fromDate
        );
      return (
        row.startsAt < toInstant &&
        (row.endsAt > fromInstant ||
          (row.endsAt.getTime() === row.startsAt.getTime() && row.startsAt >= fromInstant))
      );
    })
    .map((row) => toView(row, zone, fromDate, toDate))
    .sort((a, b) => sortKey(a, zone) - sortKey(b, zone) || a.title.localeCompare(b.title) || a.id - b.id);
}

function toView(row: EventRow, zone: string, fromDate: string, toDate: string): EventView {
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
  };
}

/** All-day events sort at their local midnight in the user's current zone. */
function sortKey(view: EventView, zone: string): number {
  if (view.allDay) return DateTime.fromISO(view.start, { zone }).toMillis();
  return Date.parse(view.startsAt);
}

function shiftDate(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: "UTC" }).plus({ days }).toISODate() ?? date;
}

function requireTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed === "") throw new EventInputError("an event needs a title");
  return trimmed.slice(0, 500);
}

function timing(
  input: { allDay?: boolean; startsAt?: Date; endsAt?: Date; startDate?: string; endDate?: string },
  timeZone: string,
): Pick<EventRow, "allDay" | "startsAt" | "endsAt" | "startDate" | "endDate" | "timeZone"> {
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
