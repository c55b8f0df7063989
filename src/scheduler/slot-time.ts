/**
 * When each user's briefing slots fall, as instants. Pure: the scheduler hands in the users and `now`.
 * The wall-time → instant math (and its DST rules) is the core's `slotInstant`, shared with /settings.
 */
import { DateTime } from "luxon";
import { SLOT_NAMES, type SlotName, type User } from "../core/domain.ts";
import { isClockTime, isValidTimeZone, localDate } from "../core/local-time.ts";
import { DEFAULT_STALE_AFTER_MINUTES, slotInstant, slotWindow } from "../core/slot-schedule.ts";

export type SchedulableUser = Pick<User, "id" | "timeZone" | "slots" | "createdAt">;

/** One (user, slot, local date) with its instant and its "not after". */
export interface SlotOccurrence {
  userId: number;
  slot: SlotName;
  localDate: string;
  /** Local "HH:MM" as configured. */
  time: string;
  scheduledAt: Date;
  /** Past this instant a briefing for this slot is no longer worth sending. */
  notAfter: Date;
}

export interface SlotWindowOptions {
  /** Minutes after the slot time during which a late briefing is still delivered. Default 90. */
  staleAfterMinutes?: number;
}

export { DEFAULT_STALE_AFTER_MINUTES, slotInstant };

const MINUTE_MS = 60_000;

// luxon builds an Intl formatter to validate a zone; a tick validates every user.
const zoneValidity = new Map<string, boolean>();

function validZone(zone: string): boolean {
  let valid = zoneValidity.get(zone);
  if (valid === undefined) {
    valid = typeof zone === "string" && isValidTimeZone(zone);
    if (zoneValidity.size > 1000) zoneValidity.clear();
    zoneValidity.set(zone, valid);
  }
  return valid;
}

/** Why a user cannot be scheduled, or undefined when they can. */
export function scheduleProblem(user: SchedulableUser): string | undefined {
  if (!validZone(user.timeZone)) return `time zone "${user.timeZone}" is not an IANA zone`;
  if (typeof user.slots !== "object" || user.slots === null) return "slots are not an object";
  for (const slot of SLOT_NAMES) {
    const time = user.slots[slot];
    if (time !== null && time !== undefined && (typeof time !== "string" || !isClockTime(time))) {
      return `slot ${slot} time "${String(time)}" is not HH:MM`;
    }
  }
  return undefined;
}

/** The slots a user has on one local date; nothing for a user that cannot be scheduled. */
export function slotsOn(
  user: SchedulableUser,
  date: string,
  options: SlotWindowOptions = {},
): SlotOccurrence[] {
  if (scheduleProblem(user)) return [];
  const staleMs = (options.staleAfterMinutes ?? DEFAULT_STALE_AFTER_MINUTES) * MINUTE_MS;
  const occurrences: SlotOccurrence[] = [];
  for (const slot of SLOT_NAMES) {
    const time = user.slots[slot];
    if (!time) continue;
    const scheduledAt = slotInstant(date, time, user.timeZone);
    occurrences.push({
      userId: user.id,
      slot,
      localDate: date,
      time,
      scheduledAt,
      notAfter: new Date(scheduledAt.getTime() + staleMs),
    });
  }
  return occurrences;
}

/** The slot occurrence of one (user, slot, date), if that slot is on. */
export function slotOccurrence(
  user: SchedulableUser,
  slot: string,
  date: string,
  options: SlotWindowOptions = {},
): SlotOccurrence | undefined {
  return slotsOn(user, date, options).find((occurrence) => occurrence.slot === slot);
}

// Yesterday too: a 23:30 slot's window runs past local midnight.
function recentOccurrences(
  users: SchedulableUser[],
  now: Date,
  options: SlotWindowOptions,
): SlotOccurrence[] {
  const all: SlotOccurrence[] = [];
  const datesByZone = new Map<string, string[]>();
  for (const user of users) {
    if (scheduleProblem(user)) continue;
    let dates = datesByZone.get(user.timeZone);
    if (!dates) {
      const today = localDate(now, user.timeZone);
      dates = [shiftDate(today, -1), today, shiftDate(today, 1)];
      datesByZone.set(user.timeZone, dates);
    }
    for (const date of dates) all.push(...slotsOn(user, date, options));
  }
  return all;
}

/** Calendar arithmetic on "YYYY-MM-DD" without a zone (hot path: luxon parsing is slow here). */
function shiftDate(date: string, days: number): string {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/** Slots whose time has come and whose window is still open at `now`. */
export function dueSlots(
  users: SchedulableUser[],
  now: Date,
  options: SlotWindowOptions = {},
): SlotOccurrence[] {
  const staleAfter = options.staleAfterMinutes ?? DEFAULT_STALE_AFTER_MINUTES;
  return recentOccurrences(users, now, options).filter(
    (occurrence) => slotWindow(occurrence.scheduledAt, now, staleAfter) === "open",
  );
}

/**
 * Slots whose window closed earlier today, in each user's zone (a late-evening slot whose window crossed
 * midnight counts for the new day). Earlier days are history, not catch-up; slots that fell before the
 * user existed are not "missed": nobody expected them.
 */
export function missedSlots(
  users: SchedulableUser[],
  now: Date,
  options: SlotWindowOptions = {},
): SlotOccurrence[] {
  const at = now.getTime();
  const byId = new Map(users.map((user) => [user.id, user]));
  const dayStarts = new Map<string, number>();
  const startOfToday = (zone: string) => {
    let start = dayStarts.get(zone);
    if (start === undefined) {
      start = DateTime.fromJSDate(now, { zone }).startOf("day").toMillis();
      dayStarts.set(zone, start);
    }
    return start;
  };
  return recentOccurrences(users, now, options).filter((occurrence) => {
    const user = byId.get(occurrence.userId);
    if (!user) return false;
    const closed = occurrence.notAfter.getTime();
    return (
      closed < at &&
      closed >= startOfToday(user.timeZone) &&
      occurrence.scheduledAt.getTime() >= user.createdAt.getTime()
    );
  });
}

/** Slots starting within the next `leadMinutes` (for pre-warming the model). */
export function upcomingSlots(users: SchedulableUser[], now: Date, leadMinutes: number): SlotOccurrence[] {
  const at = now.getTime();
  return recentOccurrences(users, now, {}).filter(
    (occurrence) =>
      occurrence.scheduledAt.getTime() > at &&
      occurrence.scheduledAt.getTime() <= at + leadMinutes * MINUTE_MS,
  );
}
