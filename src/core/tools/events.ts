import { DateTime } from "luxon";
import { z } from "zod";
import { recurringEventRefusal } from "../accounts/service.ts";
import { type CalendarEvent, type ChatEventChanges, EVENT_RANGES, type EventView } from "../domain.ts";
import { NotFoundError } from "../errors.ts";
import { FIELD_LIMITS } from "../field-limits.ts";
import { localDate } from "../local-time.ts";
import { defineTool, mutation, type ToolContext, type UndoEventFields } from "./define-tool.ts";
import { clip, compact, cutList } from "./format.ts";
import { staleSourcesNote } from "./freshness.ts";
import { clockTime, idArgument, isoDate } from "./schemas.ts";

/** The stored receipt's bound: a calendar that lists more than this in a range is not a calendar people read. */
const MAX_STORED_EVENTS = 500;

const RANGE_MEANING = { today: "today", tomorrow: "tomorrow", upcoming: "in the coming days" } as const;

export const listEventsTool = defineTool({
  name: "list_events",
  description:
    "The user's calendar events, in local time. range: today, tomorrow, or upcoming (from now, `days` ahead, " +
    "default 7). An empty list means nothing in that range.",
  readOnly: true,
  // Titles, places and descriptions of subscribed calendars are written by whoever sent the invitation.
  untrusted: (result) => listed(result, "events").some((event) => event.editable !== true),
  input: z.object({
    range: z.enum(EVENT_RANGES).default("today"),
    days: z.coerce
      .number()
      .int()
      .min(1)
      .max(60)
      .optional()
      .describe("For range=upcoming: how many days ahead"),
  }),
  async handler({ range, days }, context) {
    const now = context.clock.now();
    const [found, freshness] = await Promise.all([
      context.sources.events(
        { id: context.user.id, timeZone: context.user.timeZone },
        { range, now, ...(days !== undefined ? { days } : {}) },
      ),
      staleSourcesNote(context, "calendar"),
    ]);
    // The receipt keeps every event; the model's view of it is bounded (model-view.ts) to fit num_ctx.
    const { shown, more } = cutList(found, MAX_STORED_EVENTS, "events");
    return {
      range,
      ...(range === "upcoming" ? { days: days ?? 7 } : {}),
      today: localDate(now, context.user.timeZone),
      count: found.length,
      events: shown.map(eventView),
      ...(found.length === 0 ? { note: `Nothing on the calendar ${RANGE_MEANING[range]}.` } : {}),
      ...(more ? { note: more } : {}),
      ...(freshness ? { freshness } : {}),
    };
  },
});

/** "2025-06-02 10:30" → date "2025-06-02", start "10:30": the forms people and the grounding check read. */
export function eventView(event: EventView): Record<string, unknown> {
  const [startDate, startTime] = event.start.split(" ");
  const [endDate, endTime] = event.end.split(" ");
  return compact({
    id: event.id,
    title: event.title,
    date: startDate,
    start: event.allDay ? null : startTime,
    end: event.allDay ? null : endDate === startDate ? endTime : event.end,
    all_day: event.allDay ? true : null,
    last_day: event.allDay && endDate !== startDate ? endDate : null,
    location: event.location,
    status: event.status === "tentative" ? "tentative" : null,
    description: clip(event.description, 100),
    // Most events come from subscriptions; marking the few the user may change says more in fewer tokens.
    editable: event.source === "chat" ? true : null,
    // An account's event says where it lives ("Nextcloud · Personal"), as its tasks do.
    from: event.from ?? null,
  });
}

const timingFields = {
  date: isoDate.describe("Local date of the event, YYYY-MM-DD"),
  start_time: clockTime.optional().describe("Local start time HH:MM; omit for an all-day event"),
  end_time: clockTime.optional().describe("Local end time HH:MM; default one hour after the start"),
};

export const createEventTool = defineTool({
  name: "create_event",
  description:
    "Add an event to the user's calendar. Give start_time for a timed event, or omit it for all day.",
  readOnly: false,
  input: z.object({
    title: z.string().trim().min(1, { error: "must not be empty" }).max(FIELD_LIMITS.eventTitle),
    ...timingFields,
    location: z.string().max(FIELD_LIMITS.eventLocation).optional(),
    description: z.string().max(FIELD_LIMITS.eventDescription).optional(),
  }),
  async describe(args) {
    const when = args.start_time
      ? `${args.date} ${args.start_time}${args.end_time ? `–${args.end_time}` : ""}`
      : `${args.date}, all day`;
    return `Add event "${args.title}" on ${when}${args.location ? ` at ${args.location}` : ""}`;
  },
  async handler(args, context) {
    const zone = context.user.timeZone;
    const common = {
      title: args.title,
      ...(args.location !== undefined ? { location: args.location } : {}),
      ...(args.description !== undefined ? { description: args.description } : {}),
      timeZone: zone,
    };
    const event = args.start_time
      ? await context.records.createEvent(context.user.id, {
          ...common,
          allDay: false,
          ...timedRange(args.date, args.start_time, args.end_time, zone),
        })
      : await context.records.createEvent(context.user.id, { ...common, allDay: true, startDate: args.date });
    return mutation(
      { created: rowView(event, zone) },
      `Added event ${event.id} "${event.title}" on ${whenText(event, zone)}${where(event, "to")}`,
      { op: "delete_event", id: event.id },
    );
  },
});

export const updateEventTool = defineTool({
  name: "update_event",
  description:
    "Change an event the user created in chat or one from their own calendar account (title, location, " +
    "description, or date and times together). Events from subscribed calendars, and occurrences of a " +
    "recurring series on an account, cannot be changed here.",
  readOnly: false,
  input: z.object({
    id: idArgument("event"),
    title: z.string().trim().min(1).max(FIELD_LIMITS.eventTitle).optional(),
    location: z.string().max(FIELD_LIMITS.eventLocation).optional(),
    description: z.string().max(FIELD_LIMITS.eventDescription).optional(),
    date: isoDate.optional().describe("New local date YYYY-MM-DD (with start_time for a timed event)"),
    start_time: timingFields.start_time,
    end_time: timingFields.end_time,
  }),
  async describe(args, context) {
    const event = await requireEditableEvent(context, args.id);
    const changes = [
      args.title !== undefined ? `title → "${args.title}"` : "",
      args.location !== undefined ? `location → "${args.location}"` : "",
      args.description !== undefined ? "new description" : "",
      args.date !== undefined ? `date → ${args.date}` : "",
      args.start_time !== undefined ? `start → ${args.start_time}` : "",
      args.end_time !== undefined ? `end → ${args.end_time}` : "",
    ].filter(Boolean);
    return `Change event ${event.id} "${event.title}" (${whenText(event, context.user.timeZone)}): ${changes.join("; ") || "nothing"}`;
  },
  async handler(args, context) {
    const zone = context.user.timeZone;
    const existing = await requireEditableEvent(context, args.id);
    let timing: ChatEventChanges = {};
    if (args.date !== undefined || args.start_time !== undefined || args.end_time !== undefined) {
      const date = args.date ?? DateTime.fromJSDate(existing.startsAt, { zone }).toISODate() ?? "";
      timing = args.start_time
        ? { allDay: false, ...timedRange(date, args.start_time, args.end_time, zone) }
        : args.end_time
          ? {
              allDay: false,
              ...timedRange(
                date,
                DateTime.fromJSDate(existing.startsAt, { zone }).toFormat("HH:mm"),
                args.end_time,
                zone,
              ),
            }
          : existing.allDay
            ? { allDay: true, startDate: date }
            : { allDay: false, ...shiftToDate(existing, date, zone) };
    }
    const changes: ChatEventChanges = {
      ...timing,
      ...(args.title !== undefined ? { title: args.title } : {}),
      ...(args.location !== undefined ? { location: args.location } : {}),
      ...(args.description !== undefined ? { description: args.description } : {}),
    };
    const updated = await context.records.updateEvent(
      context.user.id,
      args.id,
      changes,
      zone,
      context.clock.now(),
    );
    if (!updated) throw new NotFoundError(`no event ${args.id} created in chat`);
    return mutation(
      { updated: rowView(updated, zone) },
      `Updated event ${updated.id} "${updated.title}" (${whenText(updated, zone)})${where(updated)}`,
      { op: "restore_event", id: updated.id, fields: eventFields(existing) },
    );
  },
});

export const deleteEventTool = defineTool({
  name: "delete_event",
  description:
    "Delete an event the user created in chat or a single (not recurring) event from their own calendar " +
    "account. The user must confirm before it happens.",
  readOnly: false,
  input: z.object({ id: idArgument("event") }),
  alwaysConfirm: true,
  async describe({ id }, context) {
    const event = await requireEditableEvent(context, id);
    const when = DateTime.fromJSDate(event.startsAt, { zone: context.user.timeZone }).toFormat(
      event.allDay ? "ccc d LLL" : "ccc d LLL, HH:mm",
    );
    return `Delete event ${event.id} "${event.title}" (${when})`;
  },
  async handler({ id }, context) {
    const event = await requireEditableEvent(context, id);
    if (!(await context.records.deleteEvent(context.user.id, id)))
      throw new NotFoundError(`no event ${id} created in chat`);
    return mutation(
      { deleted: rowView(event, context.user.timeZone) },
      `Deleted event ${event.id} "${event.title}" (${whenText(event, context.user.timeZone)})${where(event, "from")}`,
    );
  },
});

export const eventTools = [listEventsTool, createEventTool, updateEventTool, deleteEventTool];

/** A chat event, or an account's event (written through to its server); refused before any Confirm. */
async function requireEditableEvent(context: ToolContext, id: number): Promise<CalendarEvent> {
  const event = await context.records.getEvent(context.user.id, id);
  if (!event) throw new NotFoundError(`no event ${id}`);
  if (event.calendarId !== null) {
    throw new Error(`event ${id} comes from a subscribed calendar; change it in that calendar instead`);
  }
  if (event.recurring) throw recurringEventRefusal(event);
  return event;
}

/** " on Nextcloud · Personal" for an account's event, "" for a chat event. */
function where(event: CalendarEvent, preposition = "on"): string {
  return event.sourceName ? ` ${preposition} ${event.sourceName}` : "";
}

function timedRange(
  date: string,
  start: string,
  end: string | undefined,
  zone: string,
): { startsAt: Date; endsAt?: Date } {
  const startsAt = DateTime.fromISO(`${date}T${start}`, { zone });
  if (!startsAt.isValid) throw new Error(`${date} ${start} is not a valid local time`);
  if (end === undefined) return { startsAt: startsAt.toJSDate() };
  let endsAt = DateTime.fromISO(`${date}T${end}`, { zone });
  // "23:00 to 01:00" ends the next day.
  if (endsAt < startsAt) endsAt = endsAt.plus({ days: 1 });
  return { startsAt: startsAt.toJSDate(), endsAt: endsAt.toJSDate() };
}

function shiftToDate(event: CalendarEvent, date: string, zone: string): { startsAt: Date; endsAt: Date } {
  const start = DateTime.fromJSDate(event.startsAt, { zone });
  const target = DateTime.fromISO(date, { zone }).set({ hour: start.hour, minute: start.minute });
  const duration = event.endsAt.getTime() - event.startsAt.getTime();
  return { startsAt: target.toJSDate(), endsAt: new Date(target.toMillis() + duration) };
}

function rowView(event: CalendarEvent, zone: string): Record<string, unknown> {
  const start = DateTime.fromJSDate(event.startsAt, { zone });
  const end = DateTime.fromJSDate(event.endsAt, { zone });
  return compact({
    id: event.id,
    title: event.title,
    date: event.allDay ? event.startDate : start.toISODate(),
    start: event.allDay ? null : start.toFormat("HH:mm"),
    end: event.allDay
      ? null
      : end.hasSame(start, "day")
        ? end.toFormat("HH:mm")
        : end.toFormat("yyyy-LL-dd HH:mm"),
    all_day: event.allDay ? true : null,
    location: event.location,
  });
}

/** "2025-06-06 10:00–11:00" or "2025-06-06, all day", in the user's zone. */
function whenText(event: CalendarEvent, zone: string): string {
  if (event.allDay)
    return `${event.startDate ?? DateTime.fromJSDate(event.startsAt, { zone }).toISODate()}, all day`;
  const start = DateTime.fromJSDate(event.startsAt, { zone });
  const end = DateTime.fromJSDate(event.endsAt, { zone });
  return `${start.toFormat("yyyy-LL-dd HH:mm")}–${end.hasSame(start, "day") ? end.toFormat("HH:mm") : end.toFormat("yyyy-LL-dd HH:mm")}`;
}

/** The fields an update may change, as they were: what Undo puts back. */
function eventFields(event: CalendarEvent): UndoEventFields {
  return {
    title: event.title,
    description: event.description,
    location: event.location,
    allDay: event.allDay,
    ...(event.allDay
      ? {
          ...(event.startDate ? { startDate: event.startDate } : {}),
          ...(event.endDate ? { endDate: event.endDate } : {}),
        }
      : { startsAt: event.startsAt.toISOString(), endsAt: event.endsAt.toISOString() }),
  };
}

function listed(result: unknown, key: string): Array<Record<string, unknown>> {
  if (typeof result !== "object" || result === null) return [];
  const value = (result as Record<string, unknown>)[key];
  return Array.isArray(value)
    ? value.filter((item): item is Record<string, unknown> => typeof item === "object" && item !== null)
    : [];
}
