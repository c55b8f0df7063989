/**
 * Our task writes as edits of the VTODO text the server last sent. Only the properties a write is about
 * change; everything else — X- properties (X-APPLE-SORT-ORDER, X-MOZ-*), VALARMs, ATTACHs, parameters we
 * never read — goes back as it came, so another client's data survives our edit. New tasks are a minimal
 * RFC 5545 VTODO.
 */
import ICAL from "ical.js";
import { DateTime } from "luxon";
import type { TaskDraft, TaskWrite } from "../../../core/accounts/ports.ts";
import { BriefbotError } from "../../../core/errors.ts";
import { PRIORITY_VALUES, priorityOf } from "../../calendar/read-todo.ts";
import { resolveTimeZoneName } from "../../calendar/resolve-time-zone.ts";
import { describeZone, newObject, parseObject, stampChange, utc } from "./ical-object.ts";

/** A stored task this edit cannot be made to (unreadable, no VTODO, an impossible due time). */
export class UnwritableTaskError extends BriefbotError<"unwritable_task"> {
  constructor(message: string) {
    super("unwritable_task", message);
  }
}

/** As in `read-todo.ts`: enough steps for a daily task begun 25 years ago. */
const MAX_RECURRENCE_STEPS = 10_000;

export function editTodo(icsText: string, write: TaskWrite, now: Date): string {
  const calendar = parseObject(
    icsText,
    (why) => new UnwritableTaskError(`the stored task cannot be parsed: ${why}`),
  );
  // The master only: overrides of single occurrences (RECURRENCE-ID) are another client's business.
  const todo = calendar
    .getAllSubcomponents("vtodo")
    .find((component) => !component.hasProperty("recurrence-id"));
  if (!todo) throw new UnwritableTaskError("the object holds no VTODO");

  if (write.kind === "complete" && advanceRecurring(todo, write.at)) {
    // The occurrence is done and the task moves on to the next one, as Tasks.org does; it stays open.
  } else if (write.kind === "complete") {
    todo.updatePropertyWithValue("status", "COMPLETED");
    todo.updatePropertyWithValue("completed", utc(write.at));
    todo.updatePropertyWithValue("percent-complete", 100);
  } else if (write.kind === "reopen") {
    todo.updatePropertyWithValue("status", "NEEDS-ACTION");
    todo.removeAllProperties("completed");
    todo.removeAllProperties("percent-complete");
  } else {
    const { changes } = write;
    if (changes.title !== undefined) todo.updatePropertyWithValue("summary", changes.title);
    if (changes.notes !== undefined) {
      if (changes.notes === "") todo.removeAllProperties("description");
      else todo.updatePropertyWithValue("description", changes.notes);
    }
    if (
      changes.priority !== undefined &&
      priorityOf(todo.getFirstPropertyValue("priority")) !== changes.priority
    ) {
      todo.updatePropertyWithValue("priority", PRIORITY_VALUES[changes.priority]);
    }
    if (changes.dueDate !== undefined || changes.dueTime !== undefined)
      setDue(calendar, todo, changes, write.timeZone);
  }
  stampChange(todo, now);
  return calendar.toString();
}

/**
 * A new date keeps the time the task had (in its own frame: TZID, UTC or floating), a new time keeps its
 * date. A new time is the user's wall time in the user's zone and is written so: DUE;TZID=<their zone>,
 * with a VTIMEZONE for it unless the object has one. A TZID already there that names the user's zone is
 * kept as it was spelled (a Windows name, say); one naming another zone is replaced by the user's, since
 * the person said the time on their own clock, and the other zone's VTIMEZONE stays for whatever else
 * refers to it.
 */
function setDue(
  calendar: ICAL.Component,
  todo: ICAL.Component,
  changes: { dueDate?: string | null; dueTime?: string | null },
  timeZone: string,
): void {
  const currentProperty = todo.getFirstProperty("due");
  const current = currentProperty?.getFirstValue();
  const currentTime = current instanceof ICAL.Time ? current : undefined;
  const date = changes.dueDate === undefined ? currentTime && dateOf(currentTime) : changes.dueDate;
  if (date === null || date === undefined) {
    todo.removeAllProperties("due");
    return;
  }
  if (changes.dueTime === undefined && currentTime && !currentTime.isDate) {
    // Only the date moves: the time keeps its zone (TZID or UTC) as written.
    const moved = currentTime.clone();
    const [year, month, day] = date.split("-").map(Number);
    moved.year = year ?? moved.year;
    moved.month = month ?? moved.month;
    moved.day = day ?? moved.day;
    currentProperty?.setValue(moved);
    return;
  }
  const time = changes.dueTime === undefined ? null : changes.dueTime;
  const keptTzid = currentProperty?.getParameter("tzid");
  todo.removeAllProperties("due");
  const property = new ICAL.Property("due", todo);
  if (time === null) {
    property.resetType("date");
    property.setValue(ICAL.Time.fromDateString(date));
  } else {
    if (!DateTime.fromISO(`${date}T${time}`, { zone: timeZone }).isValid)
      throw new UnwritableTaskError(`not a due time in ${timeZone}: ${date} ${time}`);
    const tzid =
      typeof keptTzid === "string" && resolveTimeZoneName(keptTzid) === resolveTimeZoneName(timeZone)
        ? keptTzid
        : timeZone;
    property.setValue(ICAL.Time.fromDateTimeString(`${date}T${time}:00`));
    property.setParameter("tzid", tzid);
    describeZone(calendar, tzid, timeZone, Number(date.slice(0, 4)));
  }
  todo.addProperty(property);
}

export function newTodo(draft: TaskDraft, uid: string, now: Date): string {
  const { calendar, component: todo } = newObject("vtodo", uid, now);
  todo.updatePropertyWithValue("summary", draft.title);
  if (draft.notes) todo.updatePropertyWithValue("description", draft.notes);
  todo.updatePropertyWithValue("status", "NEEDS-ACTION");
  if (draft.priority && draft.priority !== "normal") {
    todo.updatePropertyWithValue("priority", PRIORITY_VALUES[draft.priority]);
  }
  if (draft.dueDate) {
    const property = new ICAL.Property("due", todo);
    if (draft.dueTime) {
      // In UTC: an RFC-valid instant needs no VTIMEZONE, and every client shows it in its own zone.
      const local = DateTime.fromISO(`${draft.dueDate}T${draft.dueTime}`, { zone: draft.timeZone });
      if (!local.isValid) throw new UnwritableTaskError(`not a due time: ${draft.dueDate} ${draft.dueTime}`);
      property.setValue(utc(local.toJSDate()));
    } else {
      property.resetType("date");
      property.setValue(ICAL.Time.fromDateString(draft.dueDate));
    }
    todo.addProperty(property);
  }
  calendar.addSubcomponent(todo);
  return calendar.toString();
}

/**
 * Completing a recurring task completes its current occurrence: DTSTART and DUE move to the next one
 * (a COUNT shrinks by the occurrences passed), so the series goes on. The current occurrence is the first
 * on or after the day before the completion, as the reader picks it (`read-todo.ts`), compared on wall
 * clocks as if UTC: only an occurrence within hours of that edge could be judged differently. False when
 * the task does not recur or its series has no occurrence left; it is then completed as a whole.
 */
function advanceRecurring(todo: ICAL.Component, at: Date): boolean {
  const rruleProperty = todo.getFirstProperty("rrule");
  const rrule = rruleProperty?.getFirstValue();
  const startProperty = todo.getFirstProperty("dtstart");
  const dueProperty = todo.getFirstProperty("due");
  const anchorValue = (startProperty ?? dueProperty)?.getFirstValue();
  if (!(rrule instanceof ICAL.Recur) || !rrule.freq || !dueProperty || !(anchorValue instanceof ICAL.Time)) {
    return false;
  }
  const floating = (time: ICAL.Time) =>
    new ICAL.Time(
      {
        year: time.year,
        month: time.month,
        day: time.day,
        hour: time.hour,
        minute: time.minute,
        second: time.second,
        isDate: time.isDate,
      },
      ICAL.Timezone.localTimezone,
    );
  const edge = ICAL.Time.fromJSDate(new Date(at.getTime() - 86_400_000), true);
  const iterator = rrule.iterator(floating(anchorValue));
  let passed = 0;
  let current: ICAL.Time | null = null;
  for (let step = 0; step < MAX_RECURRENCE_STEPS; step += 1) {
    const next = iterator.next();
    if (!next) return false;
    passed += 1;
    if (wallClockMs(next) >= wallClockMs(edge)) {
      current = next;
      break;
    }
  }
  const following = current ? iterator.next() : null;
  if (!following) return false;
  const shift = wallClockMs(following) - wallClockMs(anchorValue);
  for (const property of [startProperty, dueProperty]) {
    const value = property?.getFirstValue();
    if (!(property && value instanceof ICAL.Time)) continue;
    const moved = value.clone();
    const target = new Date(wallClockMs(value) + shift);
    moved.year = target.getUTCFullYear();
    moved.month = target.getUTCMonth() + 1;
    moved.day = target.getUTCDate();
    moved.hour = target.getUTCHours();
    moved.minute = target.getUTCMinutes();
    moved.second = target.getUTCSeconds();
    property.setValue(moved);
  }
  if (rrule.count) {
    const remaining = rrule.count - passed;
    if (remaining <= 0) return false;
    rrule.count = remaining;
    rruleProperty?.setValue(rrule);
  }
  todo.removeAllProperties("completed");
  todo.removeAllProperties("percent-complete");
  todo.updatePropertyWithValue("status", "NEEDS-ACTION");
  return true;
}

function wallClockMs(time: ICAL.Time): number {
  return Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
}

function dateOf(time: ICAL.Time): string {
  return `${String(time.year).padStart(4, "0")}-${String(time.month).padStart(2, "0")}-${String(time.day).padStart(2, "0")}`;
}
