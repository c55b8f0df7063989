/**
 * Our event writes as edits of the VEVENT text the server last sent, as `vtodo-write.ts` does for tasks:
 * only SUMMARY, LOCATION, DESCRIPTION and the timing change (with DTSTAMP, LAST-MODIFIED and SEQUENCE);
 * ATTENDEEs, VALARMs, X- properties, parameters and other components go back as they came.
 *
 * A recurring series (RRULE, RDATE, or RECURRENCE-ID overrides) is not written at all: from chat we only
 * ever see one occurrence, and writing the master would move or delete every occurrence when the person
 * meant one. `isSeries` lets the caller refuse before it asks for a Confirm.
 *
 * A timed event is written in the user's zone (`DTSTART;TZID=<zone>`), with a VTIMEZONE for it when the
 * object has none, so other clients show it at the same wall-clock time; an all-day one as VALUE=DATE.
 */
import ICAL from "ical.js";
import { DateTime } from "luxon";
import type { EventChanges, EventDraft, EventTiming } from "../../../core/accounts/ports.ts";
import { BriefbotError } from "../../../core/errors.ts";
import { describeZone, newObject, parseObject, stampChange, utc } from "./ical-object.ts";

/** A stored event this edit cannot be made to (unreadable, no VEVENT, a recurring series). */
export class UnwritableEventError extends BriefbotError<"unwritable_event"> {
  constructor(message: string) {
    super("unwritable_event", message);
  }
}

const unreadable = (why: string) => new UnwritableEventError(`the stored event cannot be parsed: ${why}`);

export function isSeries(icsText: string): boolean {
  const events = parseObject(icsText, unreadable).getAllSubcomponents("vevent");
  return (
    events.length > 1 ||
    events.some((event) => ["rrule", "rdate", "recurrence-id"].some((name) => event.hasProperty(name)))
  );
}

export function editEvent(icsText: string, changes: EventChanges, now: Date): string {
  const calendar = parseObject(icsText, unreadable);
  if (isSeries(icsText))
    throw new UnwritableEventError(
      "it is one occurrence of a recurring series, which is not changed from here",
    );
  const event = calendar.getFirstSubcomponent("vevent");
  if (!event) throw new UnwritableEventError("the object holds no VEVENT");
  setText(event, "summary", changes.title);
  setText(event, "location", changes.location);
  setText(event, "description", changes.description);
  if (changes.timing) {
    setTiming(calendar, event, changes.timing, changes.timeZone);
    // RFC 5545 §3.8.7.4: a change of time is a new revision other clients (and invitees) should see.
    const sequence = event.getFirstPropertyValue("sequence");
    event.updatePropertyWithValue("sequence", (typeof sequence === "number" ? sequence : 0) + 1);
  }
  stampChange(event, now);
  return calendar.toString();
}

export function newEvent(draft: EventDraft, uid: string, now: Date): string {
  const { calendar, component: event } = newObject("vevent", uid, now);
  event.updatePropertyWithValue("summary", draft.title);
  if (draft.location) event.updatePropertyWithValue("location", draft.location);
  if (draft.description) event.updatePropertyWithValue("description", draft.description);
  calendar.addSubcomponent(event);
  setTiming(calendar, event, draft.timing, draft.timeZone);
  return calendar.toString();
}

/** An empty text removes the property; undefined leaves it as it is. */
function setText(event: ICAL.Component, name: string, value: string | undefined): void {
  if (value === undefined) return;
  if (value === "") event.removeAllProperties(name);
  else event.updatePropertyWithValue(name, value);
}

function setTiming(calendar: ICAL.Component, event: ICAL.Component, timing: EventTiming, zone: string): void {
  // DTEND replaces a DURATION: the two may not both be present (§3.6.1).
  event.removeAllProperties("duration");
  if (timing.allDay) {
    setDate(event, "dtstart", timing.startDate);
    setDate(event, "dtend", timing.endDate);
    return;
  }
  setZoned(event, "dtstart", timing.startsAt, zone);
  setZoned(event, "dtend", timing.endsAt, zone);
  if (zone !== "UTC") describeZone(calendar, zone, zone, timing.startsAt.getUTCFullYear());
}

/** A fresh property: the old one's parameters (TZID, VALUE, a malformed one) say nothing about the new time. */
function freshProperty(event: ICAL.Component, name: string): ICAL.Property {
  event.removeAllProperties(name);
  const property = new ICAL.Property(name, event);
  event.addProperty(property);
  return property;
}

function setDate(event: ICAL.Component, name: string, date: string): void {
  const property = freshProperty(event, name);
  property.resetType("date");
  property.setValue(ICAL.Time.fromDateString(date));
}

function setZoned(event: ICAL.Component, name: string, instant: Date, zone: string): void {
  const property = freshProperty(event, name);
  if (zone === "UTC") {
    property.setValue(utc(instant));
    return;
  }
  const local = DateTime.fromJSDate(instant, { zone });
  property.setParameter("tzid", zone);
  property.setValue(ICAL.Time.fromDateTimeString(local.toFormat("yyyy-LL-dd'T'HH:mm:ss")));
}
