/**
 * How an account's event is told to the user when the server's copy differs from what the mirror held:
 * `title "A" → "B"; start "2026-12-03 10:00" → "2026-12-03 15:00"`, in the user's zone, and the facts a
 * reply may repeat (grounding reads them as a receipt's data).
 */
import { DateTime } from "luxon";
import type { CalendarEvent, DerivedEvent } from "../domain.ts";

type EventShape = Pick<
  DerivedEvent,
  "title" | "description" | "location" | "allDay" | "startsAt" | "endsAt" | "startDate" | "endDate"
>;

export function eventDifferences(before: EventShape, now: EventShape, zone: string): string {
  const shown = (event: EventShape) => ({
    title: event.title,
    start: startOf(event, zone),
    end: endOf(event, zone),
    location: event.location,
    description: event.description,
  });
  const [was, is] = [shown(before), shown(now)];
  const fields = ["title", "start", "end", "location", "description"] as const;
  const changed = fields
    .filter((field) => was[field] !== is[field])
    .map((field) => `${field} ${quote(was[field])} → ${quote(is[field])}`);
  return changed.length > 0 ? changed.join("; ") : "its version changed, not what it says";
}

/** The server's copy as a tool shows an event. */
export function eventFacts(
  id: CalendarEvent["id"],
  event: EventShape,
  zone: string,
): Record<string, unknown> {
  const start = startOf(event, zone);
  return {
    id,
    title: event.title,
    date: start.slice(0, 10),
    start: event.allDay ? null : start.slice(11),
    end: event.allDay ? null : endOf(event, zone),
    all_day: event.allDay,
    location: event.location || null,
  };
}

/** "2026-12-03 10:00", or the date of an all-day event. */
function startOf(event: EventShape, zone: string): string {
  if (event.allDay && event.startDate) return event.startDate;
  return DateTime.fromJSDate(event.startsAt, { zone }).toFormat("yyyy-LL-dd HH:mm");
}

/** An all-day event's last day (inclusive), as people say it. */
function endOf(event: EventShape, zone: string): string {
  if (event.allDay && event.endDate)
    return DateTime.fromISO(event.endDate, { zone: "UTC" }).minus({ days: 1 }).toISODate() ?? event.endDate;
  return DateTime.fromJSDate(event.endsAt, { zone }).toFormat("yyyy-LL-dd HH:mm");
}

export function quote(value: string | null): string {
  return value === null || value === "" ? "(none)" : `"${value}"`;
}
