/**
 * The gate's options for one user at one moment, made in one place for briefings and chat alike: their
 * zone, local date and time, and the names that are theirs to mention (their own, their profile's).
 */
import { DateTime } from "luxon";
import type { GroundingOptions } from "./types.ts";

export interface GateUser {
  name: string;
  timeZone: string;
  profile: string;
}

export function gateOptions(user: GateUser, now: Date, localDate?: string): GroundingOptions {
  const local = DateTime.fromJSDate(now, { zone: user.timeZone });
  const today = local.toISODate() ?? "";
  return {
    timeZone: user.timeZone,
    localDate: localDate ?? today,
    // A run for another day (a catch-up) speaks of that day as a whole, not from this minute.
    ...(localDate === undefined || localDate === today ? { localTime: local.toFormat("HH:mm") } : {}),
    knownNames: [user.name],
    profile: user.profile,
  };
}
