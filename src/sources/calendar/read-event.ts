/**
 * Reads one VEVENT into plain values. Date values come from ical.js's jCal strings rather than its Time
 * objects, so zone handling stays in one place (`event-zone.ts`) and odd values are caught here.
 */
import { createHash } from "node:crypto";
import ICAL from "ical.js";
import { needsCleaning, storableText } from "../storable-text.ts";
import type { WallClock } from "./event-zone.ts";

export interface TimeValue extends WallClock {
  isDate: boolean;
  isUtc: boolean;
  tzid: string | undefined;
}

export interface NominalDuration {
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
  negative: boolean;
}

export type EventStatus = "confirmed" | "tentative" | "cancelled";

export interface ParsedEvent {
  uid: string;
  title: string;
  description: string;
  location: string;
  status: EventStatus;
  start: TimeValue;
  end: TimeValue | undefined;
  duration: NominalDuration | undefined;
  rrule: ICAL.Recur | undefined;
  rdates: TimeValue[];
  exdates: TimeValue[];
  recurrenceId: TimeValue | undefined;
}

const MAX_TEXT = 4000;
const MAX_TITLE = 500;
/** UIDs are part of a unique index, whose rows PostgreSQL caps at about 2.7 KB; longer ones are hashed. */
const MAX_UID = 255;
/** One interval longer than this cannot put a second occurrence anywhere near now; ical.js would loop for each day of it. */
const MAX_INTERVAL_SECONDS = 100 * 366 * 86_400;
/** One step of each RRULE frequency, in seconds; months and years at their mean length. */
export const FREQUENCY_SECONDS: Readonly<Record<string, number>> = {
  SECONDLY: 1,
  MINUTELY: 60,
  HOURLY: 3_600,
  DAILY: 86_400,
  WEEKLY: 604_800,
  MONTHLY: 2_629_746,
  YEARLY: 31_556_952,
};

/** Throws a plain Error with a readable message when the event is unusable. */
export function readEvent(vevent: ICAL.Component, warn: (message: string) => void): ParsedEvent {
  const title = text(vevent, "summary");
  const label = title || "(no title)";
  if (["summary", "description", "location"].some((name) => needsCleaning(rawText(vevent, name)))) {
    warn(`event "${label}": removed control characters from its text`);
  }
  const startProperty = vevent.getFirstProperty("dtstart");
  if (!startProperty) throw new Error("it has no DTSTART");
  const start = firstTime(startProperty);
  if (!start) throw new Error(`its DTSTART "${rawValue(startProperty)}" is not a date`);

  const endProperty = vevent.getFirstProperty("dtend");
  const end = endProperty ? firstTime(endProperty) : undefined;
  if (endProperty && !end) warn(`event "${label}": ignored unreadable DTEND "${rawValue(endProperty)}"`);

  let duration: NominalDuration | undefined;
  const durationProperty = vevent.getFirstProperty("duration");
  if (!end && durationProperty) {
    const value = durationProperty.getFirstValue();
    if (value instanceof ICAL.Duration) {
      duration = {
        weeks: value.weeks,
        days: value.days,
        hours: value.hours,
        minutes: value.minutes,
        seconds: value.seconds,
        negative: value.isNegative,
      };
    } else {
      warn(`event "${label}": ignored unreadable DURATION`);
    }
  }

  let rrule: ICAL.Recur | undefined;
  const rruleProperty = vevent.getFirstProperty("rrule");
  if (rruleProperty) {
    const value = rruleProperty.getFirstValue();
    if (!(value instanceof ICAL.Recur && value.freq)) {
      warn(`event "${label}": ignored unreadable RRULE; kept the first occurrence only`);
    } else if ((FREQUENCY_SECONDS[value.freq] ?? 1) * value.interval > MAX_INTERVAL_SECONDS) {
      warn(`event "${label}": ignored RRULE with INTERVAL=${value.interval}; kept the first occurrence only`);
    } else {
      rrule = value;
    }
  }

  const recurrenceIdProperty = vevent.getFirstProperty("recurrence-id");
  const recurrenceId = recurrenceIdProperty ? firstTime(recurrenceIdProperty) : undefined;
  if (recurrenceIdProperty && !recurrenceId) throw new Error("its RECURRENCE-ID is not a date");

  const uid = text(vevent, "uid");
  return {
    uid: uid === "" ? syntheticUid(label, start) : uid.length > MAX_UID ? hashedUid(uid) : uid,
    title: title.slice(0, MAX_TITLE),
    description: text(vevent, "description").slice(0, MAX_TEXT),
    location: text(vevent, "location").slice(0, MAX_TEXT),
    status: readStatus(text(vevent, "status")),
    start,
    end,
    duration,
    rrule,
    rdates: allTimes(vevent, "rdate", label, warn),
    exdates: allTimes(vevent, "exdate", label, warn),
    recurrenceId,
  };
}

/** Property text as it may be stored: no NUL or other control characters (see `storable-text.ts`). */
function text(component: ICAL.Component, name: string): string {
  return storableText(rawText(component, name)).trim();
}

function rawText(component: ICAL.Component, name: string): string {
  const value = component.getFirstPropertyValue(name);
  return typeof value === "string" ? value : "";
}

function readStatus(value: string): EventStatus {
  const upper = value.toUpperCase();
  if (upper === "CANCELLED") return "cancelled";
  if (upper === "TENTATIVE") return "tentative";
  return "confirmed";
}

/** Events without a UID still need a stable identity across syncs. */
function syntheticUid(title: string, start: TimeValue): string {
  const hash = createHash("sha1")
    .update(`${title}\u0000${JSON.stringify(start)}`)
    .digest("hex");
  return `no-uid-${hash.slice(0, 16)}`;
}

function hashedUid(uid: string): string {
  return `sha1-${createHash("sha1").update(uid).digest("hex")}`;
}

function rawValue(property: ICAL.Property): string {
  return property.jCal.slice(3).map(String).join(",");
}

function tzidOf(property: ICAL.Property): string | undefined {
  const tzid = property.getParameter("tzid");
  const value = Array.isArray(tzid) ? tzid[0] : tzid;
  if (typeof value !== "string") return undefined;
  // The TZID ends up in warnings and in events.time_zone; a real one is a short name.
  const clean = storableText(value).trim().slice(0, 100);
  return clean === "" ? undefined : clean;
}

function firstTime(property: ICAL.Property): TimeValue | undefined {
  return timesOf(property)[0];
}

function timesOf(property: ICAL.Property): TimeValue[] {
  const tzid = tzidOf(property);
  const values: TimeValue[] = [];
  for (const raw of property.jCal.slice(3)) {
    // PERIOD values arrive as [start, end]; only the start matters for RDATE.
    const value = Array.isArray(raw) ? raw[0] : raw;
    const parsed = typeof value === "string" ? parseTimeValue(value, tzid) : undefined;
    if (parsed) values.push(parsed);
  }
  return values;
}

function allTimes(
  vevent: ICAL.Component,
  name: string,
  label: string,
  warn: (message: string) => void,
): TimeValue[] {
  const values: TimeValue[] = [];
  for (const property of vevent.getAllProperties(name)) {
    const times = timesOf(property);
    if (times.length < property.jCal.length - 3) {
      warn(`event "${label}": ignored unreadable ${name.toUpperCase()} "${rawValue(property)}"`);
    }
    values.push(...times);
  }
  return values;
}

const TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z)?)?$/;

/** jCal form: "2026-02-11", "2026-02-11T10:30:00" or "…Z". */
export function parseTimeValue(value: string, tzid: string | undefined): TimeValue | undefined {
  const match = value.match(TIME_PATTERN);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, zulu] = match;
  const result: TimeValue = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour ?? 0),
    minute: Number(minute ?? 0),
    second: Number(second ?? 0),
    isDate: hour === undefined,
    isUtc: zulu === "Z",
    tzid: zulu === "Z" || hour === undefined ? undefined : tzid,
  };
  const check = new Date(Date.UTC(result.year, result.month - 1, result.day, result.hour, result.minute));
  if (
    check.getUTCFullYear() !== result.year ||
    check.getUTCMonth() !== result.month - 1 ||
    check.getUTCDate() !== result.day ||
    result.hour > 23 ||
    result.minute > 59 ||
    result.second > 60
  ) {
    return undefined;
  }
  return result;
}
