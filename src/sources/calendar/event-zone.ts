/**
 * Wall-clock ↔ instant conversion for the zone an event was written in. Recurrence rules run on wall-clock
 * times (that is what RFC 5545 means by "every Monday at 09:00"), so expansion needs both directions.
 */
import ICAL from "ical.js";
import { DateTime } from "luxon";
import { resolveTimeZoneName } from "./resolve-time-zone.ts";

/** Calendar fields as written, no zone attached. Months are 1-based. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock fields of a luxon `DateTime`, an `ICAL.Time` or anything shaped like them. */
export function wallClockOf(time: WallClock): WallClock {
  return {
    year: time.year,
    month: time.month,
    day: time.day,
    hour: time.hour,
    minute: time.minute,
    second: time.second,
  };
}

/** The wall-clock time read as if it were UTC: within a day of the real instant, and free to compute. */
export function asIfUtc(value: WallClock): number {
  return Date.UTC(value.year, value.month - 1, value.day, value.hour, value.minute, value.second);
}

export interface EventZone {
  /** Shown to people and stored on the event; null for floating times. */
  name: string | null;
  toInstant(wallClock: WallClock): Date;
  toWallClock(instant: Date): WallClock;
}

export function luxonZone(zone: string, name: string | null = zone): EventZone {
  return {
    name,
    toInstant: (wallClock) => wallClockToInstant(wallClock, zone),
    toWallClock: (instant) => wallClockOf(DateTime.fromJSDate(instant, { zone })),
  };
}

/**
 * RFC 5545 §3.3.5: a wall-clock time that occurs twice (autumn fall-back) means the first one; one that
 * does not exist (spring gap) is read with the offset from before the gap, which luxon already does.
 */
function wallClockToInstant(wallClock: WallClock, zone: string): Date {
  const guess = asIfUtc(wallClock);
  const before = DateTime.fromMillis(guess - 36 * 3_600_000, { zone }).offset;
  const after = DateTime.fromMillis(guess + 36 * 3_600_000, { zone }).offset;
  // No transition nearby (the common case): one offset, no ambiguity.
  if (before === after) return new Date(guess - before * 60_000);
  const candidates = new Set<number>([guess - before * 60_000, guess - after * 60_000]);
  const valid = [...candidates]
    .filter((instant) => {
      const local = DateTime.fromMillis(instant, { zone });
      return (
        local.year === wallClock.year &&
        local.month === wallClock.month &&
        local.day === wallClock.day &&
        local.hour === wallClock.hour &&
        local.minute === wallClock.minute
      );
    })
    .sort((a, b) => a - b);
  if (valid[0] !== undefined) return new Date(valid[0]);
  return DateTime.fromObject(wallClock, { zone }).toJSDate();
}

/** A zone known only from the file's own VTIMEZONE (Outlook's "Customized Time Zone"). */
function vtimezoneZone(timezone: ICAL.Timezone, name: string): EventZone {
  return {
    name,
    toInstant: (wallClock) =>
      new Date(new ICAL.Time({ ...wallClock, isDate: false }, timezone).toUnixTime() * 1000),
    toWallClock: (instant) => wallClockOf(ICAL.Time.fromJSDate(instant, true).convertToZone(timezone)),
  };
}

export interface ZoneResolver {
  /** undefined tzid → floating → the user's zone. */
  resolve(tzid: string | undefined, isUtc: boolean): EventZone;
  utc: EventZone;
  floating: EventZone;
}

/**
 * Name-based mapping wins over the file's VTIMEZONE: Exchange VTIMEZONEs are often wrong (a "New Zealand
 * Standard Time" block with CET offsets is a real export), while the Windows name is reliable.
 */
export function createZoneResolver(options: {
  userZone: string;
  vtimezones: Map<string, ICAL.Timezone>;
  warn(message: string): void;
}): ZoneResolver {
  const cache = new Map<string, EventZone>();
  const utc = luxonZone("UTC");
  const floating = luxonZone(options.userZone, null);
  return {
    utc,
    floating,
    resolve(tzid, isUtc) {
      if (isUtc) return utc;
      if (tzid === undefined || tzid.trim() === "") return floating;
      const cached = cache.get(tzid);
      if (cached) return cached;
      let zone: EventZone;
      const named = resolveTimeZoneName(tzid);
      const vtimezone = options.vtimezones.get(tzid);
      if (named) {
        zone = luxonZone(named);
      } else if (vtimezone) {
        zone = vtimezoneZone(vtimezone, tzid);
      } else {
        options.warn(`unknown time zone "${tzid}"; read as ${options.userZone}`);
        zone = luxonZone(options.userZone);
      }
      cache.set(tzid, zone);
      return zone;
    },
  };
}
