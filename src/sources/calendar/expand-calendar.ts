/**
 * iCalendar text → the concrete occurrences that touch a time window, in instants and (for all-day events)
 * local dates. No I/O; the only clock it reads is the elapsed time its budget allows (injectable). ical.js
 * parses and runs RRULEs on wall-clock times; zones are resolved here (see `event-zone.ts`) so Windows
 * names, missing VTIMEZONEs and floating times all work.
 *
 * Hostile input is contained per event: an event that cannot be read or expanded is skipped and named in
 * the warnings, and recurrence runs on a budget (`recurrence-budget.ts`). Run it through
 * `expand-off-thread.ts` so a calendar never blocks the event loop.
 */
import ICAL from "ical.js";
import { IANAZone } from "luxon";
import { errorMessage } from "../../core/errors.ts";
import { storableSnippet, storableText } from "../storable-text.ts";
import { CalendarParseError } from "./calendar-parse-error.ts";
import {
  asIfUtc,
  createZoneResolver,
  type EventZone,
  luxonZone,
  type WallClock,
  wallClockOf,
  type ZoneResolver,
} from "./event-zone.ts";
import { prepareIcsText, splitEvents, summaryOf } from "./ics-text.ts";
import {
  FREQUENCY_SECONDS,
  type NominalDuration,
  type ParsedEvent,
  readEvent,
  type TimeValue,
} from "./read-event.ts";
import {
  BudgetCut,
  DEFAULT_RECURRENCE_LIMITS,
  formatCount,
  RecurrenceBudget,
  type RecurrenceLimits,
} from "./recurrence-budget.ts";
import { resolveTimeZoneName } from "./resolve-time-zone.ts";
import { readVtimezone } from "./vtimezone.ts";

/** One occurrence, shaped like an `events` row without its owner. */
export interface ExpandedInstance {
  uid: string;
  /** The occurrence's original start: ISO instant for timed series, "YYYY-MM-DD" for all-day ones. */
  instanceKey: string;
  title: string;
  description: string;
  location: string;
  allDay: boolean;
  startsAt: Date;
  endsAt: Date;
  /** All-day only: local dates, end exclusive. */
  startDate: string | null;
  endDate: string | null;
  /** The zone the event was written in; null for floating and all-day events. */
  timeZone: string | null;
  status: "confirmed" | "tentative";
}

export interface ExpandOptions {
  /** IANA zone of the user: floating times and all-day dates are read in it. */
  userZone: string;
  windowStart: Date;
  windowEnd: Date;
  /** Default `DEFAULT_RECURRENCE_LIMITS`. */
  limits?: RecurrenceLimits;
  /** Milliseconds from any fixed origin; default `performance.now`. */
  elapsedMs?: () => number;
  /** Called before each recurring series is expanded, so a watchdog can name the one that hangs. */
  onSeries?: (label: string) => void;
}

export interface ExpandResult {
  instances: ExpandedInstance[];
  warnings: string[];
  /** X-WR-CALNAME, when the exporter set one. */
  calendarName: string | undefined;
}

const DAY_MS = 86_400_000;
/** Longer than this is a broken or hostile event, not a sabbatical; its end would also overflow storage. */
const MAX_EVENT_LENGTH_MS = 5 * 366 * DAY_MS;
const MAX_WARNING_LENGTH = 500;
/** Series the budget never reached are listed by name in one warning, up to this many. */
const MAX_LISTED_SERIES = 5;

export function defaultExpansionWindow(now: Date): { windowStart: Date; windowEnd: Date } {
  return { windowStart: new Date(now.getTime() - DAY_MS), windowEnd: new Date(now.getTime() + 14 * DAY_MS) };
}

export function expandCalendar(icsText: string, options: ExpandOptions): ExpandResult {
  const warnings = new Set<string>();
  const warn = (message: string) => warnings.add(message);
  const userZoneName = IANAZone.isValidZone(options.userZone) ? options.userZone : "UTC";
  if (userZoneName !== options.userZone) warn(`unknown user time zone "${options.userZone}"; used UTC`);

  const prepared = prepareIcsText(icsText);
  for (const warning of prepared.warnings) warn(warning);
  const { calendars, vevents } = parseComponents(prepared.lines, warn);

  const vtimezones = new Map<string, ICAL.Timezone>();
  for (const calendar of calendars) {
    for (const component of calendar.getAllSubcomponents("vtimezone")) {
      const tzid = component.getFirstPropertyValue("tzid");
      if (typeof tzid !== "string") continue;
      try {
        const checked = readVtimezone(component);
        if ("timezone" in checked) vtimezones.set(tzid, checked.timezone);
        else warn(`ignored VTIMEZONE "${tzid}": ${checked.problem}`);
      } catch {
        warn(`ignored unreadable VTIMEZONE "${tzid}"`);
      }
    }
  }
  const resolver = createZoneResolver({ userZone: userZoneName, vtimezones, warn });
  const context: ExpansionContext = {
    resolver,
    userZone: luxonZone(userZoneName),
    calendarZone: calendarDefaultZone(calendars, vtimezones, resolver),
    windowStart: options.windowStart.getTime(),
    windowEnd: options.windowEnd.getTime(),
    budget: new RecurrenceBudget(
      options.limits ?? DEFAULT_RECURRENCE_LIMITS,
      options.elapsedMs ?? (() => performance.now()),
    ),
    warn,
  };

  const groups = new Map<string, EventGroup>();
  for (const vevent of vevents) {
    let event: ParsedEvent;
    try {
      event = readEvent(vevent, warn);
    } catch (error) {
      warn(`skipped event "${eventLabel(vevent)}": ${errorMessage(error)}`);
      continue;
    }
    const group = groups.get(event.uid) ?? { masters: [], overrides: [] };
    (event.recurrenceId ? group.overrides : group.masters).push(event);
    groups.set(event.uid, group);
  }

  // Expanded cheapest first, but kept in file order so ties in the final sort come out as before.
  const expanded: ExpandedInstance[][] = [];
  const notReached: string[] = [];
  let singlesDropped = 0;
  for (const { group, index } of byExpectedCost([...groups.values()], context)) {
    const series = group.masters.find((master) => master.rrule);
    if (context.budget.spent()) {
      if (series) notReached.push(`"${series.title || "(no title)"}"`);
      else singlesDropped += 1;
      continue;
    }
    if (series) options.onSeries?.(seriesLabel(series));
    // One event that breaks expansion (an absurd length, a zone luxon refuses) is skipped on its own.
    try {
      expanded[index] = expandGroup(group.masters, group.overrides, context);
    } catch (error) {
      const first = group.masters[0] ?? group.overrides[0];
      warn(`skipped event "${first?.title || "(no title)"}": ${errorMessage(error)}`);
    }
  }
  if (notReached.length > 0 || singlesDropped > 0) {
    const listed = notReached.slice(0, MAX_LISTED_SERIES).join(", ");
    const more =
      notReached.length > MAX_LISTED_SERIES ? ` and ${notReached.length - MAX_LISTED_SERIES} more` : "";
    const series =
      notReached.length > 0 ? `; ${notReached.length} recurring events not expanded: ${listed}${more}` : "";
    const singles = singlesDropped > 0 ? `; ${singlesDropped} single events dropped` : "";
    warn(`the calendar's recurrence budget ran out (${context.budget.spent()})${series}${singles}`);
  }

  return {
    instances: dedupe(expanded.flat(), warn).sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime()),
    warnings: [...warnings].map((warning) => storableSnippet(warning, MAX_WARNING_LENGTH)),
    calendarName: calendarName(calendars),
  };
}

interface EventGroup {
  masters: ParsedEvent[];
  overrides: ParsedEvent[];
}

/**
 * Single events first, then series by roughly how many steps they need to reach the window's end, so
 * the ordinary weekly meeting is expanded before an invitation with FREQ=SECONDLY can spend the budget.
 */
function byExpectedCost(
  groups: EventGroup[],
  context: ExpansionContext,
): { group: EventGroup; index: number }[] {
  const cost = (group: EventGroup): number => {
    let steps = 0;
    for (const master of group.masters) {
      if (!master.rrule) continue;
      const seconds = FREQUENCY_SECONDS[master.rrule.freq] ?? 1;
      const span = Math.max(0, context.windowEnd - asIfUtc(master.start)) / 1000;
      const needed = span / (seconds * Math.max(1, master.rrule.interval));
      steps += master.rrule.count ? Math.min(master.rrule.count, needed) : needed;
    }
    return steps;
  };
  return groups
    .map((group, index) => ({ group, index, cost: cost(group) }))
    .sort((a, b) => a.cost - b.cost || a.index - b.index);
}

/** How warnings name a series: its title and the rule itself, so the operator can find it in the file. */
function seriesLabel(master: ParsedEvent): string {
  const rule = master.rrule ? storableSnippet(master.rrule.toString(), 120) : "";
  return `event "${master.title || "(no title)"}" (RRULE:${rule})`;
}

interface ExpansionContext {
  resolver: ZoneResolver;
  userZone: EventZone;
  /** Where a UTC UNTIL/RECURRENCE-ID on an all-day series is turned into a date (Exchange writes local midnight in UTC). */
  calendarZone: EventZone;
  windowStart: number;
  windowEnd: number;
  budget: RecurrenceBudget;
  warn(message: string): void;
}

function parseComponents(
  lines: string[],
  warn: (message: string) => void,
): { calendars: ICAL.Component[]; vevents: ICAL.Component[] } {
  try {
    const calendars = toComponents(ICAL.parse(lines.join("\r\n")));
    return { calendars, vevents: calendars.flatMap((calendar) => calendar.getAllSubcomponents("vevent")) };
  } catch (wholeFileError) {
    // One broken line makes ical.js reject the whole file; parse event by event so the rest survives.
    const { skeleton, events } = splitEvents(lines);
    let calendars: ICAL.Component[] = [];
    try {
      calendars = toComponents(ICAL.parse(skeleton));
    } catch (error) {
      warn(`ignored unreadable calendar properties: ${errorMessage(error)}`);
    }
    const vevents: ICAL.Component[] = [];
    let firstError: string | undefined;
    for (const eventText of events) {
      try {
        vevents.push(...toComponents(ICAL.parse(eventText)).flatMap((c) => c.getAllSubcomponents("vevent")));
      } catch (error) {
        firstError ??= errorMessage(error);
        warn(`skipped event "${summaryOf(eventText)}": ${errorMessage(error)}`);
      }
    }
    if (events.length > 0 && vevents.length === 0) {
      throw new CalendarParseError(`none of the ${events.length} events could be read: ${firstError}`, {
        cause: wholeFileError,
      });
    }
    if (events.length === 0 && calendars.length === 0) {
      throw new CalendarParseError(`unreadable calendar: ${errorMessage(wholeFileError)}`, {
        cause: wholeFileError,
      });
    }
    return { calendars, vevents };
  }
}

function toComponents(jcal: unknown): ICAL.Component[] {
  const list = Array.isArray(jcal) && Array.isArray(jcal[0]) ? jcal : [jcal];
  return list.map((item) => new ICAL.Component(item as unknown[]));
}

function calendarDefaultZone(
  calendars: ICAL.Component[],
  vtimezones: Map<string, ICAL.Timezone>,
  resolver: ZoneResolver,
): EventZone {
  for (const calendar of calendars) {
    const declared = calendar.getFirstPropertyValue("x-wr-timezone");
    if (typeof declared === "string" && resolveTimeZoneName(declared))
      return resolver.resolve(declared, false);
  }
  for (const tzid of vtimezones.keys()) {
    const name = resolveTimeZoneName(tzid);
    if (name !== "UTC") return resolver.resolve(tzid, false);
  }
  return resolver.floating;
}

function calendarName(calendars: ICAL.Component[]): string | undefined {
  for (const calendar of calendars) {
    const name = calendar.getFirstPropertyValue("x-wr-calname");
    if (typeof name === "string" && storableText(name).trim() !== "") return storableText(name).trim();
  }
  return undefined;
}

function expandGroup(
  masters: ParsedEvent[],
  overrides: ParsedEvent[],
  context: ExpansionContext,
): ExpandedInstance[] {
  const master = masters[0];
  if (master?.status === "cancelled") return [];
  const instances: ExpandedInstance[] = [];

  const overriddenKeys = new Set<string>();
  const keyedOverrides: { override: ParsedEvent; key: string }[] = [];
  for (const override of overrides) {
    const recurrenceId = override.recurrenceId;
    if (!recurrenceId) continue;
    const key = master ? occurrenceKey(recurrenceId, master, context) : ownKey(recurrenceId, context);
    overriddenKeys.add(key);
    keyedOverrides.push({ override, key });
  }

  for (const series of masters) instances.push(...expandMaster(series, overriddenKeys, context));

  for (const { override, key } of keyedOverrides) {
    if (override.status === "cancelled") continue;
    const fallbackLength = master ? lengthOf(master, zoneOfStart(master, context), context) : undefined;
    const instance = singleInstance(override, key, context, fallbackLength);
    if (instance && overlapsWindow(instance, context)) {
      if (!takeInstance(`event "${override.title || master?.title || "(no title)"}"`, context)) break;
      instances.push({ ...instance, title: override.title || master?.title || "(no title)" });
    }
  }
  return instances;
}

/** Counts one occurrence against the calendar's allowance; false (with a warning) once it is full. */
function takeInstance(label: string, context: ExpansionContext): boolean {
  if (context.budget.takeInstance()) return true;
  context.warn(`${label}: stopped: the calendar's recurrence budget ran out (${context.budget.spent()})`);
  return false;
}

type Length =
  | { kind: "days"; days: number }
  | { kind: "exact"; ms: number }
  | { kind: "nominal"; duration: NominalDuration };

function zoneOfStart(event: ParsedEvent, context: ExpansionContext): EventZone {
  return context.resolver.resolve(event.start.tzid, event.start.isUtc);
}

/** The event's length; throws when it is absurd, which skips the event. */
function lengthOf(event: ParsedEvent, zone: EventZone, context: ExpansionContext): Length | undefined {
  const length = rawLengthOf(event, zone, context);
  if (length && !(lengthUpperBoundMs(length) <= MAX_EVENT_LENGTH_MS)) {
    throw new Error("it lasts longer than five years (DTEND or DURATION is absurd)");
  }
  return length;
}

function rawLengthOf(event: ParsedEvent, zone: EventZone, context: ExpansionContext): Length | undefined {
  const { start, end, duration } = event;
  if (start.isDate) {
    if (end) return { kind: "days", days: Math.max(1, daysBetween(start, end)) };
    if (duration) return { kind: "days", days: Math.max(1, duration.weeks * 7 + duration.days) };
    return undefined;
  }
  if (end) {
    // DTEND may be written in another zone than DTSTART (a flight that lands in Tokyo time).
    const startMs = zone.toInstant(start).getTime();
    const endMs = end.isDate
      ? zone.toInstant(midnight(end)).getTime()
      : instantOf(end, zone, context).getTime();
    return { kind: "exact", ms: Math.max(0, endMs - startMs) };
  }
  if (duration) return { kind: "nominal", duration };
  return undefined;
}

function expandMaster(
  master: ParsedEvent,
  overriddenKeys: Set<string>,
  context: ExpansionContext,
): ExpandedInstance[] {
  const zone = master.start.isDate ? context.userZone : zoneOfStart(master, context);
  const length =
    lengthOf(master, zone, context) ??
    (master.start.isDate ? { kind: "days", days: 1 } : { kind: "exact", ms: 0 });
  const excluded = new Set(master.exdates.map((exdate) => occurrenceKey(exdate, master, context)));
  const excludedDates = new Set(
    master.exdates.filter((exdate) => exdate.isDate).map((exdate) => dateKey(exdate)),
  );

  // Occurrences that end well before the window are skipped before any zone arithmetic: a daily series
  // from years ago would otherwise cost thousands of conversions on every sync.
  const skipBefore = context.windowStart - lengthUpperBoundMs(length) - 2 * DAY_MS;
  const instances: ExpandedInstance[] = [];
  const perSeries = context.budget.limits.instancesPerSeries;
  for (const occurrence of occurrenceWallClocks(master, zone, context)) {
    if (instances.length >= perSeries) {
      context.warn(
        `${seriesLabel(master)}: stopped after ${formatCount(perSeries)} occurrences in the sync window`,
      );
      break;
    }
    if (asIfUtc(occurrence) < skipBefore) continue;
    const key = master.start.isDate ? dateKey(occurrence) : zone.toInstant(occurrence).toISOString();
    if (excluded.has(key) || overriddenKeys.has(key)) continue;
    // A DATE EXDATE on a timed series: Google and others mean "not on that day".
    if (!master.start.isDate && excludedDates.has(dateKey(occurrence))) continue;
    const instance = buildInstance(
      master,
      { ...occurrence, isDate: master.start.isDate },
      zone,
      length,
      key,
      context,
    );
    if (overlapsWindow(instance, context)) {
      if (
        !takeInstance(master.rrule ? seriesLabel(master) : `event "${master.title || "(no title)"}"`, context)
      )
        break;
      instances.push(instance);
    }
  }
  return instances;
}

/** DTSTART, the RRULE's occurrences up to the window's end, and RDATEs, as wall-clock times in the series' zone. */
function* occurrenceWallClocks(
  master: ParsedEvent,
  zone: EventZone,
  context: ExpansionContext,
): Generator<WallClock> {
  const isDate = master.start.isDate;
  // Wall-clock times are within ±14 h of their instants; two days of slack keeps the stop safe without zone math.
  const pastWindow = (wallClock: WallClock) => asIfUtc(wallClock) >= context.windowEnd + 2 * DAY_MS;

  if (!master.rrule) {
    yield master.start;
  } else {
    const rule = master.rrule.clone();
    rule.until = ICAL.Time.fromData({
      ...earlier(untilWallClock(rule.until, master, zone, context), lastUsefulWallClock(context)),
      isDate,
    });
    const iterator = startIterator(rule, master, context);
    if (iterator) {
      for (;;) {
        let next: ICAL.Time | null;
        try {
          next = iterator.next();
        } catch (error) {
          context.warn(
            error instanceof BudgetCut
              ? `${seriesLabel(master)}: ${error.message}`
              : `${seriesLabel(master)}: recurrence rule failed (${errorMessage(error)})`,
          );
          break;
        }
        if (!next) break;
        const wallClock = wallClockOf(next);
        if (pastWindow(wallClock)) break;
        yield wallClock;
      }
    }
  }
  for (const rdate of master.rdates) {
    if (isDate) {
      yield midnight(rdate);
    } else {
      yield rdate.isDate
        ? { ...master.start, ...dateOnly(rdate) }
        : zone.toWallClock(instantOf(rdate, zone, context));
    }
  }
}

function startIterator(
  rule: ICAL.Recur,
  master: ParsedEvent,
  context: ExpansionContext,
): ICAL.RecurIterator | undefined {
  try {
    const iterator = rule.iterator(
      ICAL.Time.fromData({ ...wallClockOf(master.start), isDate: master.start.isDate }),
    );
    context.budget.meter(iterator);
    return iterator;
  } catch (error) {
    // ical.js validates BY-part combinations when the iterator starts ("Invalid BYYEARDAY rule").
    context.warn(`${seriesLabel(master)}: recurrence rule failed (${errorMessage(error)})`);
    return undefined;
  }
}

/**
 * The window's end (plus the same slack `pastWindow` allows) as a wall clock: occurrences after it are
 * never used, and an UNTIL there keeps ical.js from searching up to the year 20000 for a rule that matches
 * nothing.
 */
function lastUsefulWallClock(context: ExpansionContext): WallClock {
  const end = new Date(context.windowEnd + 2 * DAY_MS);
  return {
    year: end.getUTCFullYear(),
    month: end.getUTCMonth() + 1,
    day: end.getUTCDate(),
    hour: end.getUTCHours(),
    minute: end.getUTCMinutes(),
    second: end.getUTCSeconds(),
  };
}

function earlier(a: WallClock | undefined, b: WallClock): WallClock {
  return a !== undefined && asIfUtc(a) < asIfUtc(b) ? a : b;
}

/**
 * RRULEs iterate on floating wall-clock times, so UNTIL has to be brought into the series' zone first;
 * otherwise a UTC UNTIL is compared with local times and the last occurrence is lost or gained.
 */
function untilWallClock(
  until: ICAL.Time | null,
  master: ParsedEvent,
  zone: EventZone,
  context: ExpansionContext,
): WallClock | undefined {
  if (!until) return undefined;
  const raw = wallClockOf(until);
  const isUtc = !until.isDate && until.toString().endsWith("Z");
  if (master.start.isDate) {
    if (until.isDate || !isUtc) return midnight(raw);
    return midnight(context.calendarZone.toWallClock(utcInstant(raw)));
  }
  if (until.isDate) return { ...raw, hour: 23, minute: 59, second: 59 };
  return isUtc ? zone.toWallClock(utcInstant(raw)) : raw;
}

/** The key an EXDATE or RECURRENCE-ID points at, in the master's terms. */
function occurrenceKey(value: TimeValue, master: ParsedEvent, context: ExpansionContext): string {
  if (master.start.isDate) {
    if (value.isDate || !value.isUtc) return dateKey(value);
    return dateKey(context.calendarZone.toWallClock(utcInstant(value)));
  }
  const masterZone = zoneOfStart(master, context);
  if (value.isDate) return `date:${dateKey(value)}`;
  return instantOf(value, masterZone, context).toISOString();
}

/** An override without a master: its RECURRENCE-ID read on its own terms. */
function ownKey(value: TimeValue, context: ExpansionContext): string {
  if (value.isDate) return dateKey(value);
  return instantOf(value, context.resolver.floating, context).toISOString();
}

function instantOf(value: TimeValue, floatingZone: EventZone, context: ExpansionContext): Date {
  if (value.isUtc) return utcInstant(value);
  if (value.tzid) return context.resolver.resolve(value.tzid, false).toInstant(value);
  return floatingZone.toInstant(value);
}

function singleInstance(
  event: ParsedEvent,
  key: string,
  context: ExpansionContext,
  fallbackLength: Length | undefined,
): ExpandedInstance | undefined {
  const zone = event.start.isDate ? context.userZone : zoneOfStart(event, context);
  let length = lengthOf(event, zone, context) ?? fallbackLength;
  // A master's day count means nothing to a timed override, and the other way round.
  if (length && (length.kind === "days") !== event.start.isDate) length = undefined;
  length ??= event.start.isDate ? { kind: "days", days: 1 } : { kind: "exact", ms: 0 };
  return buildInstance(event, event.start, zone, length, key, context);
}

function buildInstance(
  event: ParsedEvent,
  start: WallClock & { isDate: boolean },
  zone: EventZone,
  length: Length,
  key: string,
  context: ExpansionContext,
): ExpandedInstance {
  const base = {
    uid: event.uid,
    instanceKey: key,
    title: event.title || "(no title)",
    description: event.description,
    location: event.location,
    status: event.status === "tentative" ? ("tentative" as const) : ("confirmed" as const),
  };
  if (start.isDate) {
    const days = length.kind === "days" ? length.days : 1;
    const startDate = dateKey(start);
    const endDate = addDays(startDate, days);
    return {
      ...base,
      allDay: true,
      startsAt: context.userZone.toInstant(parseDateKey(startDate)),
      endsAt: context.userZone.toInstant(parseDateKey(endDate)),
      startDate,
      endDate,
      timeZone: null,
    };
  }
  const startsAt = zone.toInstant(start);
  return {
    ...base,
    allDay: false,
    startsAt,
    endsAt: applyLength(startsAt, length, zone),
    startDate: null,
    endDate: null,
    timeZone: zone.name,
  };
}

function applyLength(start: Date, length: Length, zone: EventZone): Date {
  if (length.kind === "exact") return new Date(start.getTime() + length.ms);
  if (length.kind === "days") return new Date(start.getTime() + length.days * DAY_MS);
  const { duration } = length;
  const sign = duration.negative ? -1 : 1;
  // Days and weeks are nominal (same wall-clock time on a later day, across DST); hours and less are exact.
  const wallClock = zone.toWallClock(start);
  const shiftedDate = parseDateKey(addDays(dateKey(wallClock), sign * (duration.weeks * 7 + duration.days)));
  const dayShifted = zone.toInstant({ ...wallClock, ...dateOnly(shiftedDate) });
  const exactMs = sign * ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000;
  const end = dayShifted.getTime() + exactMs;
  return new Date(Math.max(end, start.getTime()));
}

function overlapsWindow(instance: ExpandedInstance, context: ExpansionContext): boolean {
  const start = instance.startsAt.getTime();
  const end = instance.endsAt.getTime();
  if (start >= context.windowEnd) return false;
  return end > context.windowStart || (end === start && start >= context.windowStart);
}

function dedupe(instances: ExpandedInstance[], warn: (message: string) => void): ExpandedInstance[] {
  const seen = new Set<string>();
  const unique: ExpandedInstance[] = [];
  for (const instance of instances) {
    const key = `${instance.uid}\u0000${instance.instanceKey}`;
    if (seen.has(key)) {
      warn(`event "${instance.title}": duplicate occurrence ${instance.instanceKey} ignored`);
      continue;
    }
    seen.add(key);
    unique.push(instance);
  }
  return unique;
}

function midnight(value: WallClock): WallClock {
  return { year: value.year, month: value.month, day: value.day, hour: 0, minute: 0, second: 0 };
}

function dateOnly(value: WallClock): Pick<WallClock, "year" | "month" | "day"> {
  return { year: value.year, month: value.month, day: value.day };
}

function lengthUpperBoundMs(length: Length): number {
  if (length.kind === "exact") return length.ms;
  if (length.kind === "days") return length.days * DAY_MS;
  const { weeks, days, hours, minutes, seconds } = length.duration;
  return (weeks * 7 + days + 1) * DAY_MS + ((hours * 60 + minutes) * 60 + seconds) * 1000;
}

function utcInstant(value: WallClock): Date {
  return new Date(asIfUtc(value));
}

export function dateKey(value: Pick<WallClock, "year" | "month" | "day">): string {
  return `${String(value.year).padStart(4, "0")}-${String(value.month).padStart(2, "0")}-${String(value.day).padStart(2, "0")}`;
}

function parseDateKey(key: string): WallClock {
  const [year, month, day] = key.split("-").map(Number);
  return { year: year ?? 1970, month: month ?? 1, day: day ?? 1, hour: 0, minute: 0, second: 0 };
}

function addDays(key: string, days: number): string {
  const { year, month, day } = parseDateKey(key);
  const shifted = new Date(Date.UTC(year, month - 1, day + days));
  return dateKey({
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
  });
}

function daysBetween(start: WallClock, end: WallClock): number {
  return Math.round((utcInstant(midnight(end)).getTime() - utcInstant(midnight(start)).getTime()) / DAY_MS);
}

function eventLabel(vevent: ICAL.Component): string {
  const summary = vevent.getFirstPropertyValue("summary");
  return typeof summary === "string" && summary.trim() !== "" ? summary.trim().slice(0, 80) : "(no title)";
}
