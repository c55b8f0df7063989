/**
 * What one calendar object means. Events go through the ICS layer (`expandCalendar`: the same recurrence
 * expansion, budgets and zones as a subscription); tasks through `readTodos`. CalDAV puts one UID in each
 * object (RFC 4791 §4.1), so an event the expansion had to skip is the whole object lost: that is thrown,
 * and the sync skips the object with the reason.
 */
import type {
  DerivedEvent,
  DerivedItems,
  DerivedTask,
  DeriveOptions,
  RemoteObject,
} from "../../../core/accounts/ports.ts";
import { CalendarParseError } from "../../calendar/calendar-parse-error.ts";
import { expandCalendar } from "../../calendar/expand-calendar.ts";
import { readTodos } from "../../calendar/read-todo.ts";

export function deriveCaldavObject(object: RemoteObject, options: DeriveOptions): DerivedItems {
  if (object.format !== "icalendar")
    throw new CalendarParseError(`${object.remoteId}: not an iCalendar object`);
  const hasEvents = /^BEGIN:VEVENT\s*$/im.test(object.body);
  const hasTodos = /^BEGIN:VTODO\s*$/im.test(object.body);
  if (!hasEvents && !hasTodos) throw new CalendarParseError("it holds neither a VEVENT nor a VTODO");
  return {
    events: hasEvents ? deriveEvents(object.body, options) : [],
    tasks: hasTodos ? deriveTasks(object, options) : [],
  };
}

function deriveEvents(body: string, options: DeriveOptions): DerivedEvent[] {
  const expanded = expandCalendar(body, {
    userZone: options.timeZone,
    windowStart: options.windowStart,
    windowEnd: options.windowEnd,
  });
  const skipped = expanded.warnings.find((warning) => warning.startsWith("skipped event"));
  if (expanded.instances.length === 0 && skipped) throw new CalendarParseError(skipped);
  return expanded.instances.map((instance) => ({
    title: instance.title,
    description: instance.description,
    location: instance.location,
    allDay: instance.allDay,
    startsAt: instance.startsAt,
    endsAt: instance.endsAt,
    startDate: instance.startDate,
    endDate: instance.endDate,
    status: instance.status,
  }));
}

function deriveTasks(object: RemoteObject, options: DeriveOptions): DerivedTask[] {
  return readTodos(object.body, options).tasks.map(({ uid: _uid, parentUid, ...task }) => ({
    ...task,
    parentRemoteId: parentUid === null ? null : parentHref(parentUid, object.remoteId),
  }));
}

/**
 * RELATED-TO names the parent by UID, and one object cannot see the others, so the parent's href is the
 * one the clients give it: `<UID>.ics` in the same collection. Nextcloud Tasks, Thunderbird, Tasks.org
 * (DAVx5) and our own `createTask` all name new objects so. A parent stored under another name is not
 * found, and the subtask shows as a task of its own.
 */
export function parentHref(parentUid: string, childHref: string): string {
  return new URL(`${encodeURIComponent(parentUid)}.ics`, childHref).href;
}
