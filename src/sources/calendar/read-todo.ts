/**
 * iCalendar text → the tasks its VTODOs describe, as a CalDAV task list (Nextcloud Tasks, Thunderbird,
 * Tasks.org through DAVx5) writes them. Text clean-up, zones and VTIMEZONEs go through the same code as
 * events (`ics-text.ts`, `event-zone.ts`), so a DUE with a Windows TZID or a missing VTIMEZONE is read the
 * way a DTSTART would be. No I/O, no clock: "now" is the start of the expansion window.
 */
import ICAL from "ical.js";
import { IANAZone } from "luxon";
import type { DerivedTask, DeriveOptions } from "../../core/accounts/ports.ts";
import { storableText } from "../storable-text.ts";
import { CalendarParseError } from "./calendar-parse-error.ts";
import { asIfUtc, createZoneResolver, type WallClock, type ZoneResolver } from "./event-zone.ts";
import { prepareIcsText } from "./ics-text.ts";
import { parseTimeValue, type TimeValue } from "./read-event.ts";
import { readVtimezone } from "./vtimezone.ts";

/**
 * A task as its own text says; RELATED-TO names the parent by UID, which only the caller can turn into
 * the parent's address.
 */
export interface ReadTodo extends Omit<DerivedTask, "parentRemoteId"> {
  uid: string;
  parentUid: string | null;
}

export interface ReadTodosResult {
  /** One per UID: the master VTODO (its current occurrence when it recurs). */
  tasks: ReadTodo[];
  warnings: string[];
}

const MAX_TITLE = 500;
const MAX_TEXT = 4000;
const MAX_LABELS = 50;
/** A recurring task's current occurrence is searched this many steps at most; enough for a daily task begun 25 years ago. */
const MAX_RECURRENCE_STEPS = 10_000;

export function readTodos(icsText: string, options: DeriveOptions): ReadTodosResult {
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);
  const prepared = prepareIcsText(icsText);
  warnings.push(...prepared.warnings);
  let calendar: ICAL.Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(prepared.lines.join("\r\n")) as unknown[]);
  } catch (error) {
    throw new CalendarParseError(
      `unreadable task: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
  const vtimezones = new Map<string, ICAL.Timezone>();
  for (const component of calendar.getAllSubcomponents("vtimezone")) {
    const tzid = component.getFirstPropertyValue("tzid");
    if (typeof tzid !== "string") continue;
    const checked = readVtimezone(component);
    if ("timezone" in checked) vtimezones.set(tzid, checked.timezone);
  }
  const userZone = IANAZone.isValidZone(options.timeZone) ? options.timeZone : "UTC";
  const resolver = createZoneResolver({ userZone, vtimezones, warn });

  const todos = calendar.getAllSubcomponents("vtodo");
  const masters = todos.filter((todo) => !todo.hasProperty("recurrence-id"));
  const overrides = todos.filter((todo) => todo.hasProperty("recurrence-id"));
  const tasks = masters.map((master) => readTodo(master, overrides, resolver, options));
  return { tasks, warnings };
}

function readTodo(
  todo: ICAL.Component,
  overrides: ICAL.Component[],
  resolver: ZoneResolver,
  options: DeriveOptions,
): ReadTodo {
  const uid = text(todo, "uid");
  const start = timeOf(todo, "dtstart");
  let due = timeOf(todo, "due");
  let done = isDone(todo);
  let completedAt = done ? completedTime(todo) : null;

  const rrule = todo.getFirstPropertyValue("rrule");
  const anchor = start ?? due;
  if (rrule instanceof ICAL.Recur && rrule.freq && anchor && due && !done) {
    const occurrence = currentOccurrence(rrule, anchor, resolver, options);
    if (occurrence) {
      // DUE moves with DTSTART (RFC 5545 §3.8.5.3: the rule is on DTSTART; the task keeps its length).
      const shift = asIfUtc(occurrence) - asIfUtc(anchor);
      due = { ...due, ...wallClockAt(asIfUtc(due) + shift) };
      const override = overrides.find((candidate) =>
        sameOccurrence(timeOf(candidate, "recurrence-id"), occurrence),
      );
      if (override) {
        done = isDone(override);
        completedAt = done ? completedTime(override) : null;
        due = timeOf(override, "due") ?? due;
      }
    }
  }

  const { dueDate, dueTime } = dueInUserZone(due, resolver);
  return {
    uid,
    title: text(todo, "summary").slice(0, MAX_TITLE) || "(no title)",
    notes: text(todo, "description").slice(0, MAX_TEXT),
    dueDate,
    dueTime,
    priority: priorityOf(todo.getFirstPropertyValue("priority")),
    status: done ? "done" : "open",
    completedAt,
    parentUid: parentUidOf(todo) ?? null,
    labels: labelsOf(todo),
  };
}

/**
 * RFC 5545 §3.8.1.9: 0 is undefined; "a value in the range of one (1) to four (4) specifies a 'HIGH'
 * priority. A value of five (5) is the normal or 'MEDIUM' priority. A value in the range of six (6) to
 * nine (9) is 'LOW' priority" — the three-level mapping CUAs use, and ours.
 */
export function priorityOf(value: unknown): DerivedTask["priority"] {
  const number = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(number) || number <= 0 || number === 5 || number > 9) return "normal";
  return number <= 4 ? "high" : "low";
}

/** What a CalDAV client writes for each of our levels: Thunderbird's and Nextcloud Tasks' 1 / 5 / 9. */
export const PRIORITY_VALUES: Readonly<Record<DerivedTask["priority"], number>> = {
  high: 1,
  normal: 5,
  low: 9,
};

/**
 * Done is STATUS:COMPLETED, or a COMPLETED date without a STATUS (older Thunderbird). CANCELLED counts as
 * done too: it is no longer something to do, and listing it as open would nag about it every morning.
 */
function isDone(todo: ICAL.Component): boolean {
  const status = text(todo, "status").toUpperCase();
  if (status === "COMPLETED" || status === "CANCELLED") return true;
  if (status === "" && todo.hasProperty("completed")) return true;
  return false;
}

function completedTime(todo: ICAL.Component): Date | null {
  const completed = timeOf(todo, "completed");
  if (!completed) return null;
  // COMPLETED must be UTC (RFC 5545 §3.8.2.1); a floating one is read as UTC rather than dropped.
  return new Date(asIfUtc(completed));
}

/** The parent's UID: RELATED-TO without RELTYPE, or with RELTYPE=PARENT (its default, RFC 5545 §3.2.15). */
function parentUidOf(todo: ICAL.Component): string | undefined {
  for (const property of todo.getAllProperties("related-to")) {
    const reltype = property.getParameter("reltype");
    const type = (Array.isArray(reltype) ? reltype[0] : reltype) ?? "PARENT";
    const value = property.getFirstValue();
    if (String(type).toUpperCase() === "PARENT" && typeof value === "string" && value.trim() !== "") {
      return storableText(value).trim();
    }
  }
  return undefined;
}

/** CATEGORIES may repeat and each may hold a comma-separated list; both are kept, duplicates once. */
function labelsOf(todo: ICAL.Component): string[] {
  const labels = new Set<string>();
  for (const property of todo.getAllProperties("categories")) {
    for (const value of property.getValues()) {
      const label = typeof value === "string" ? storableText(value).trim() : "";
      if (label !== "") labels.add(label);
    }
  }
  return [...labels].slice(0, MAX_LABELS);
}

function dueInUserZone(
  due: TimeValue | undefined,
  resolver: ZoneResolver,
): { dueDate: string | null; dueTime: string | null } {
  if (!due) return { dueDate: null, dueTime: null };
  if (due.isDate) return { dueDate: dateKey(due), dueTime: null };
  const instant = resolver.resolve(due.tzid, due.isUtc).toInstant(due);
  const local = resolver.floating.toWallClock(instant);
  return { dueDate: dateKey(local), dueTime: `${pad(local.hour)}:${pad(local.minute)}` };
}

/**
 * The first occurrence on or after the start of the window (yesterday, in the window the briefings use),
 * read on wall clocks in the series' own zone; the last one when the series has ended before it.
 */
function currentOccurrence(
  rrule: ICAL.Recur,
  anchor: TimeValue,
  resolver: ZoneResolver,
  options: DeriveOptions,
): WallClock | undefined {
  const zone = anchor.isDate ? resolver.floating : resolver.resolve(anchor.tzid, anchor.isUtc);
  const from = asIfUtc(
    anchor.isDate ? midnight(zone.toWallClock(options.windowStart)) : zone.toWallClock(options.windowStart),
  );
  const iterator = rrule.iterator(
    new ICAL.Time(
      {
        year: anchor.year,
        month: anchor.month,
        day: anchor.day,
        hour: anchor.hour,
        minute: anchor.minute,
        second: anchor.second,
        isDate: anchor.isDate,
      },
      ICAL.Timezone.localTimezone,
    ),
  );
  let last: WallClock | undefined;
  for (let step = 0; step < MAX_RECURRENCE_STEPS; step += 1) {
    const next = iterator.next();
    if (!next) return last;
    last = {
      year: next.year,
      month: next.month,
      day: next.day,
      hour: next.hour,
      minute: next.minute,
      second: next.second,
    };
    if (asIfUtc(last) >= from) return last;
  }
  return last;
}

function sameOccurrence(recurrenceId: TimeValue | undefined, occurrence: WallClock): boolean {
  return recurrenceId !== undefined && asIfUtc(recurrenceId) === asIfUtc(occurrence);
}

function timeOf(component: ICAL.Component, name: string): TimeValue | undefined {
  const property = component.getFirstProperty(name);
  if (!property) return undefined;
  const raw = property.jCal[3];
  const tzid = property.getParameter("tzid");
  const zone = Array.isArray(tzid) ? tzid[0] : tzid;
  return typeof raw === "string"
    ? parseTimeValue(raw, typeof zone === "string" ? zone : undefined)
    : undefined;
}

function text(component: ICAL.Component, name: string): string {
  const value = component.getFirstPropertyValue(name);
  return typeof value === "string" ? storableText(value).trim() : "";
}

function wallClockAt(ms: number): WallClock {
  const date = new Date(ms);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
  };
}

function midnight(value: WallClock): WallClock {
  return { ...value, hour: 0, minute: 0, second: 0 };
}

function dateKey(value: Pick<WallClock, "year" | "month" | "day">): string {
  return `${String(value.year).padStart(4, "0")}-${pad(value.month)}-${pad(value.day)}`;
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}
