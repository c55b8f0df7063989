import { DateTime, IANAZone } from "luxon";

/** True for names the IANA database knows ("Europe/London"), false for "UTC+2", "CET-ish" or typos. */
export function isValidTimeZone(zone: string): boolean {
  return zone.includes("/") || zone === "UTC" ? IANAZone.isValidZone(zone) : false;
}

/** The user's calendar date at `now`, "YYYY-MM-DD". */
export function localDate(now: Date, zone: string): string {
  return DateTime.fromJSDate(now, { zone }).toISODate() ?? fail(zone);
}

/** The user's wall-clock time at `now`, "HH:MM". */
export function localTime(now: Date, zone: string): string {
  return DateTime.fromJSDate(now, { zone }).toFormat("HH:mm");
}

export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: "UTC" }).plus({ days }).toISODate() ?? fail(date);
}

/** The instant a local date begins in a zone (the first valid minute, on DST days). */
export function startOfLocalDay(date: string, zone: string): Date {
  return DateTime.fromISO(date, { zone }).startOf("day").toJSDate();
}

/** Human "Mon 1 Dec, 14:30" in the user's zone, for prose and receipts. */
export function formatLocal(instant: Date, zone: string, format = "ccc d LLL, HH:mm"): string {
  return DateTime.fromJSDate(instant, { zone }).toFormat(format);
}

/** The instant `days` whole days of 24 hours before `now` ("the last N days"). */
export function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}

export function isIsoDate(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && DateTime.fromISO(value).isValid;
}

export function isClockTime(value: string): boolean {
  return /^([01]\d|2[0-3]):[0-5]\d$/.test(value);
}

function fail(input: string): never {
  throw new Error(`invalid date or time zone: ${input}`);
}
