/**
 * A VTIMEZONE for an IANA zone, so an event we write with `TZID=Europe/Berlin` carries the definition RFC
 * 5545 §3.2.19 asks for. Built from luxon's zone data: each offset change from a year before to two years
 * after the event is one observance (no RRULE), which every client reads and which cannot be wrong about
 * a rule the zone does not follow. A zone without changes gets one STANDARD block.
 */
import ICAL from "ical.js";
import { DateTime } from "luxon";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export function vtimezoneFor(zone: string, around: Date): ICAL.Component {
  const component = new ICAL.Component("vtimezone");
  component.updatePropertyWithValue("tzid", zone);
  const from = Date.UTC(new Date(around).getUTCFullYear() - 1, 0, 1);
  const to = Date.UTC(new Date(around).getUTCFullYear() + 3, 0, 1);
  const changes = offsetChanges(zone, from, to);
  if (changes.length === 0) {
    const offset = offsetAt(zone, from);
    component.addSubcomponent(observance("standard", "19700101T000000", offset, offset));
    return component;
  }
  for (const at of changes) {
    const before = offsetAt(zone, at - 1);
    const after = offsetAt(zone, at);
    // DTSTART is the wall clock the change happens at, read in the offset before it (§3.6.5).
    const local = DateTime.fromMillis(at, { zone: "UTC" }).plus({ minutes: before });
    const kind = DateTime.fromMillis(at, { zone }).isInDST ? "daylight" : "standard";
    component.addSubcomponent(observance(kind, local.toFormat("yyyyLLdd'T'HHmmss"), before, after));
  }
  return component;
}

function observance(kind: "standard" | "daylight", start: string, from: number, to: number): ICAL.Component {
  const component = new ICAL.Component(kind);
  component.addPropertyWithValue("dtstart", ICAL.Time.fromDateTimeString(toIsoWallClock(start)));
  component.addPropertyWithValue("tzoffsetfrom", ICAL.UtcOffset.fromSeconds(from * 60));
  component.addPropertyWithValue("tzoffsetto", ICAL.UtcOffset.fromSeconds(to * 60));
  return component;
}

/** The instants (ms) at which the zone's offset changes, found a day at a time and then to the minute. */
function offsetChanges(zone: string, from: number, to: number): number[] {
  const changes: number[] = [];
  for (let day = from; day < to; day += DAY_MS) {
    if (offsetAt(zone, day) === offsetAt(zone, day + DAY_MS)) continue;
    let low = day;
    let high = day + DAY_MS;
    while (high - low > MINUTE_MS) {
      const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS;
      if (offsetAt(zone, middle) === offsetAt(zone, day)) low = middle;
      else high = middle;
    }
    changes.push(high);
  }
  return changes;
}

/** Minutes east of UTC. */
function offsetAt(zone: string, at: number): number {
  return DateTime.fromMillis(at, { zone }).offset;
}

function toIsoWallClock(compact: string): string {
  return `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}T${compact.slice(9, 11)}:${compact.slice(11, 13)}:${compact.slice(13, 15)}`;
}
