/**
 * A VTIMEZONE for a DUE;TZID we write. RFC 5545 §3.6.5 wants one for every TZID an object uses; clients
 * that know the IANA name (all we read, and we ourselves) go by the name, the rest by this. It holds the
 * zone's offsets as luxon knows them from the year written on: the offset in force on 1 January, then
 * each change during the next `YEARS` years, as one-off observances (no RRULE to go stale or to expand).
 * A later write of the same TZID finds it there and adds none, hence the years ahead.
 */
import ICAL from "ical.js";
import { DateTime } from "luxon";

const DAY_MS = 86_400_000;
const YEARS = 5;

export function zoneComponent(tzid: string, zone: string, year: number): ICAL.Component {
  const component = new ICAL.Component("vtimezone");
  component.updatePropertyWithValue("tzid", tzid);
  const start = DateTime.fromObject({ year, month: 1, day: 1 }, { zone });
  const first = start.minus({ days: 1 });
  component.addSubcomponent(observance(first, start, start));
  for (const change of changesIn(zone, year, year + YEARS)) {
    component.addSubcomponent(observance(change.before, change.after, change.after));
  }
  return component;
}

/** The instants the zone's offset changes from `from` to `to` (years), to the minute, with the times either side. */
function changesIn(zone: string, from: number, to: number): { before: DateTime; after: DateTime }[] {
  const changes: { before: DateTime; after: DateTime }[] = [];
  let day = DateTime.fromObject({ year: from, month: 1, day: 1 }, { zone }).toMillis();
  const end = DateTime.fromObject({ year: to, month: 1, day: 1 }, { zone }).toMillis();
  const offsetAt = (ms: number) => DateTime.fromMillis(ms, { zone }).offset;
  while (day < end) {
    const next = Math.min(day + DAY_MS, end);
    if (offsetAt(day) !== offsetAt(next)) {
      // Offsets change on the minute: halve the day down to one.
      let low = day;
      let high = next;
      while (high - low > 60_000) {
        const middle = low + Math.floor((high - low) / 120_000) * 60_000;
        if (offsetAt(middle) === offsetAt(low)) low = middle;
        else high = middle;
      }
      changes.push({
        before: DateTime.fromMillis(low, { zone }),
        after: DateTime.fromMillis(high, { zone }),
      });
    }
    day = next;
  }
  return changes;
}

/** One onset: `after`'s offset from `before`'s, from `onset`'s instant as a wall time in `before`'s offset. */
function observance(before: DateTime, after: DateTime, onset: DateTime): ICAL.Component {
  const component = new ICAL.Component(after.isInDST ? "daylight" : "standard");
  const wall = onset.toUTC().plus({ minutes: before.offset });
  component.updatePropertyWithValue(
    "dtstart",
    ICAL.Time.fromDateTimeString(wall.toFormat("yyyy-MM-dd'T'HH:mm:ss")),
  );
  component.updatePropertyWithValue("tzoffsetfrom", ICAL.UtcOffset.fromSeconds(before.offset * 60));
  component.updatePropertyWithValue("tzoffsetto", ICAL.UtcOffset.fromSeconds(after.offset * 60));
  const name = after.offsetNameShort;
  if (name) component.updatePropertyWithValue("tzname", name);
  return component;
}
