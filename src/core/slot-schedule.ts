/**
 * When a briefing slot falls, as an instant: the one DST-safe computation the scheduler (which claims runs)
 * and /settings (which tells the user when the next one comes) share, so the two cannot disagree.
 *
 * DST rules (one run per slot per local date, always):
 * - a wall time that does not exist (spring-forward gap, e.g. 02:30 in New York on the second Sunday of
 *   March) runs at the next valid minute, the end of the gap (03:00);
 * - a wall time that exists twice (fall-back, 01:30) runs at its first occurrence.
 */
import { DateTime } from "luxon";
import { addDays, localDate } from "./local-time.ts";

/** Minutes after the slot time during which a late briefing is still claimed and delivered. */
export const DEFAULT_STALE_AFTER_MINUTES = 90;
const MINUTE_MS = 60_000;

// Every scheduler tick asks for the same (zone, date, time) triples for every user; luxon zone math is not cheap.
const instantCache = new Map<string, number>();
const INSTANT_CACHE_LIMIT = 20_000;

/** The instant a local wall time happens on a local date in a zone, with the DST rules above. */
export function slotInstant(date: string, time: string, zone: string): Date {
  const key = `${zone}|${date}|${time}`;
  const cached = instantCache.get(key);
  if (cached !== undefined) return new Date(cached);
  const instant = computeSlotInstant(date, time, zone);
  if (instantCache.size >= INSTANT_CACHE_LIMIT) instantCache.clear();
  instantCache.set(key, instant.getTime());
  return instant;
}

function computeSlotInstant(date: string, time: string, zone: string): Date {
  const [hour, minute] = time.split(":").map(Number) as [number, number];
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const wanted = `${date}T${time}`;
  const wallAsUtc = Date.UTC(year, month - 1, day, hour, minute);
  // The offsets in force around that day: before and after any transition it contains.
  const offsets = new Set<number>();
  for (const probe of [wallAsUtc - 2 * 86_400_000, wallAsUtc + 2 * 86_400_000]) {
    offsets.add(DateTime.fromMillis(probe, { zone }).offset);
  }
  const candidates = [...offsets]
    .map((offset) => wallAsUtc - offset * MINUTE_MS)
    .filter((instant) => wallTime(instant, zone) === wanted)
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first !== undefined) return new Date(first);

  // In a gap: the first minute whose wall time is at or past the wanted one.
  const bounds = [...offsets].map((offset) => wallAsUtc - offset * MINUTE_MS);
  let low = Math.min(...bounds) - 3 * 3_600_000;
  let high = Math.max(...bounds) + 3 * 3_600_000;
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS;
    if (wallTime(middle, zone) >= wanted) high = middle;
    else low = middle;
  }
  return new Date(high);
}

function wallTime(instant: number, zone: string): string {
  return DateTime.fromMillis(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");
}

/** Where `now` stands against a slot's window [scheduledAt, scheduledAt + stale]. */
export function slotWindow(
  scheduledAt: Date,
  now: Date,
  staleAfterMinutes: number,
): "ahead" | "open" | "closed" {
  const at = now.getTime();
  if (at < scheduledAt.getTime()) return "ahead";
  return at <= scheduledAt.getTime() + staleAfterMinutes * MINUTE_MS ? "open" : "closed";
}

export interface NextSlotRun {
  localDate: string;
  /** The slot's instant on that date; in the past when `dueNow`. */
  at: Date;
  /** The window is open and nothing ran yet: the scheduler claims it on its next tick. */
  dueNow: boolean;
}

/**
 * The next briefing of one slot as the scheduler will run it: the first local date (yesterday on) that has
 * no scheduled run yet (`taken`) and whose window has not closed. A slot whose time already passed but
 * whose window is still open runs at once, as the scheduler would.
 */
export function nextSlotRun(input: {
  zone: string;
  time: string;
  now: Date;
  staleAfterMinutes: number;
  /** True for a local date on which this slot's scheduled run already exists. */
  taken: (localDate: string) => boolean;
}): NextSlotRun {
  const today = localDate(input.now, input.zone);
  // Yesterday too (a 23:30 slot's window runs past midnight, and the scheduler claims it then); after it,
  // three days always hold the answer: today's run may be taken, and tomorrow's window cannot have closed.
  for (let offset = -1; offset < 3; offset += 1) {
    const date = addDays(today, offset);
    if (input.taken(date)) continue;
    const at = slotInstant(date, input.time, input.zone);
    const window = slotWindow(at, input.now, input.staleAfterMinutes);
    if (window === "closed") continue;
    return { localDate: date, at, dueNow: window === "open" };
  }
  throw new Error(`no next run for ${input.time} in ${input.zone}`);
}
